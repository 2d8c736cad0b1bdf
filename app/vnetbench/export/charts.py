"""Pictures that are not the diagram: the verdict heatmap and the measured-results plots, drawn with QPainter.

No plotting library: a line chart with nice ticks and a heatmap are a few dozen lines of QPainter, draw the
same into SVG and PNG, and keep the report free of matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen, QPolygonF

from . import style
from .qt import ensure_app, font, picture_bytes

SERIES_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
CHART_W, CHART_H = 760.0, 280.0


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2, 5 x 10^n steps) covering ``lo``..``hi``."""
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(1, count)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    ticks = [round(math.floor(lo / step) * step, 10)]
    while ticks[-1] < hi - step * 1e-9:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _fmt(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 or value == int(value) else f"{value:.3g}"


# --- results ------------------------------------------------------------------------------------------------


def draw_run(p: QPainter, rect: QRectF, title: str, series: dict[str, list[tuple[float, float]]], unit: str,
             estimate: float | None = None, x_label: str = "time (s)") -> None:
    """One line chart: a line per series, the prediction's estimate as a dashed line."""
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QColor(style.TEXT_COLOR))
    p.setFont(font(13, True))
    p.drawText(QPointF(rect.left() + 4, rect.top() + 16), title)
    plot = rect.adjusted(64, 30, -16, -40)
    xs = [x for pts in series.values() for x, _ in pts] or [0.0, 1.0]
    ys = [y for pts in series.values() for _, y in pts] + ([estimate] if estimate is not None else [])
    y_ticks = nice_ticks(min(0.0, min(ys, default=0.0)), max(ys, default=1.0))
    x_ticks = nice_ticks(min(xs), max(xs))
    x0, x1, y0, y1 = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]

    def at(x: float, y: float) -> QPointF:
        return QPointF(plot.left() + (x - x0) / ((x1 - x0) or 1) * plot.width(),
                       plot.bottom() - (y - y0) / ((y1 - y0) or 1) * plot.height())

    p.setFont(font(10))
    metrics = QFontMetricsF(font(10))
    grid = QPen(QColor("#e0e0e0"), 1)
    for y in y_ticks:
        p.setPen(grid)
        p.drawLine(at(x0, y), at(x1, y))
        p.setPen(QColor(style.MUTED_TEXT))
        label = _fmt(y)
        p.drawText(QPointF(plot.left() - 6 - metrics.horizontalAdvance(label), at(x0, y).y() + 4), label)
    for x in x_ticks:
        p.setPen(QColor(style.MUTED_TEXT))
        label = _fmt(x)
        pos = at(x, y0)
        p.drawText(QPointF(pos.x() - metrics.horizontalAdvance(label) / 2, plot.bottom() + 14), label)
    p.setPen(QPen(QColor("#9e9e9e"), 1))
    p.drawLine(QLineF(plot.bottomLeft(), plot.bottomRight()))
    p.drawLine(QLineF(plot.bottomLeft(), plot.topLeft()))
    p.setPen(QColor(style.MUTED_TEXT))
    p.drawText(QPointF(plot.center().x() - metrics.horizontalAdvance(x_label) / 2, plot.bottom() + 30), x_label)
    p.save()
    p.translate(rect.left() + 12, plot.center().y() + metrics.horizontalAdvance(unit) / 2)
    p.rotate(-90)
    p.drawText(QPointF(0, 0), unit)
    p.restore()
    if estimate is not None:
        pen = QPen(QColor(style.TEXT_COLOR), 1.2, Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.drawLine(at(x0, estimate), at(x1, estimate))
        p.drawText(at(x0, estimate) + QPointF(4, -4), f"predicted {_fmt(estimate)} {unit}")
    legend_x = plot.right()
    for i, (name, pts) in enumerate(series.items()):
        color = QColor(SERIES_COLORS[i % len(SERIES_COLORS)])
        p.setPen(QPen(color, 2))
        if len(pts) == 1:
            p.setBrush(color)
            p.drawEllipse(at(*pts[0]), 3, 3)
        else:
            p.drawPolyline(QPolygonF([at(x, y) for x, y in pts]))
        if name:
            legend_x -= metrics.horizontalAdvance(name) + 24
            p.drawLine(QPointF(legend_x, rect.top() + 12), QPointF(legend_x + 14, rect.top() + 12))
            p.setPen(QColor(style.TEXT_COLOR))
            p.drawText(QPointF(legend_x + 18, rect.top() + 16), name)


def run_series(run) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {}
    for s in run.samples:
        out.setdefault(s.series, []).append((s.t, s.value))
    return out


def runs_picture(runs: Sequence, fmt: str, scale: float = 1.0) -> bytes:
    """All runs' samples, one chart per run, stacked."""
    from ..measure.compare import compare

    def paint(p: QPainter) -> None:
        p.fillRect(QRectF(0, 0, CHART_W, height), QColor("#ffffff"))
        if not runs:
            p.setFont(font(14))
            p.setPen(QColor(style.MUTED_TEXT))
            p.drawText(QRectF(0, 0, CHART_W, height), Qt.AlignmentFlag.AlignCenter, "no measured runs")
        for i, run in enumerate(runs):
            c = compare(run)
            draw_run(p, QRectF(0, i * CHART_H, CHART_W, CHART_H), run.title, run_series(run), c.unit, c.estimate)

    height = CHART_H * max(1, len(runs))
    return picture_bytes(CHART_W, height, paint, fmt, scale, "measured runs")


# --- verdict heatmap -----------------------------------------------------------------------------------------

CELL = 26.0


def heatmap_picture(names: Sequence[str], grid: Sequence[Sequence[str]], fmt: str, title: str = "",
                    scale: float = 1.0) -> bytes:
    """Rows are sources, columns destinations; each cell is the verdict's colour and symbol; a legend below."""
    ensure_app()
    metrics = QFontMetricsF(font(11))
    label_w = max((metrics.horizontalAdvance(n) for n in names), default=40.0) + 12
    top = label_w + 36
    n = len(names)
    legend_h = 26.0 * 3 + 16
    width = max(label_w + n * CELL + 24, 560.0)
    height = top + n * CELL + legend_h + 20

    def paint(p: QPainter) -> None:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(QRectF(0, 0, width, height), QColor("#ffffff"))
        p.setPen(QColor(style.TEXT_COLOR))
        p.setFont(font(14, True))
        p.drawText(QPointF(8, 20), title)
        p.setFont(font(11))
        for i, name in enumerate(names):
            p.drawText(QRectF(4, top + i * CELL, label_w - 8, CELL),
                       Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, name)
            p.save()
            p.translate(label_w + i * CELL + CELL / 2 + 4, top - 6)
            p.rotate(-60)
            p.drawText(QPointF(0, 0), name)
            p.restore()
        p.setFont(font(12, True))
        for r, row in enumerate(grid):
            for c, verdict in enumerate(row):
                cell = QRectF(label_w + c * CELL, top + r * CELL, CELL, CELL)
                if r == c:
                    p.fillRect(cell, QColor("#f0f0f0"))
                    continue
                p.fillRect(cell, QColor(style.VERDICT_COLORS.get(verdict, style.UNKNOWN_COLOR)))
                p.setPen(QColor(style.VERDICT_TEXT_COLORS.get(verdict, "#000000")))
                p.drawText(cell, Qt.AlignmentFlag.AlignCenter, style.VERDICT_SYMBOLS.get(verdict, "?"))
        p.setPen(QPen(QColor("#ffffff"), 1))
        for i in range(n + 1):
            p.drawLine(QLineF(label_w, top + i * CELL, label_w + n * CELL, top + i * CELL))
            p.drawLine(QLineF(label_w + i * CELL, top, label_w + i * CELL, top + n * CELL))
        y = top + n * CELL + 20
        p.setFont(font(11))
        for i, (verdict, color) in enumerate(style.VERDICT_COLORS.items()):
            x = 8 + (i % 2) * 220
            row_y = y + (i // 2) * 26
            box = QRectF(x, row_y, 20, 20)
            p.fillRect(box, QColor(color))
            p.setPen(QColor(style.VERDICT_TEXT_COLORS[verdict]))
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, style.VERDICT_SYMBOLS[verdict])
            p.setPen(QColor(style.TEXT_COLOR))
            p.drawText(QPointF(x + 28, row_y + 15), verdict)

    return picture_bytes(width, height, paint, fmt, scale, title or "verdict matrix")
