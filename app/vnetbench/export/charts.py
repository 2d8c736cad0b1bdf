"""Pictures that are not the diagram: the verdict heatmap and the measured-results plots, drawn with QPainter.

No plotting library: a line chart with nice ticks and a heatmap are a few dozen lines of QPainter, draw the
same into SVG and PNG, and keep the report free of matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen, QPolygonF

from ..measure.curves import RunChart, run_chart
from . import style
from .qt import ensure_app, font, picture_bytes
from .style import series_colors
from .words import number

CHART_W, CHART_H = 760.0, 280.0
#: Room for the table beside a chart (a sweep's sizes and throughputs, a round trip's percentiles).
TABLE_W = 200.0
#: Chart PNGs carry twice the pixels of their layout (a device pixel ratio of 2, 192 dpi), sharp in
#: documentation; an explicit ``--dpi`` is taken as it is.
PIXEL_RATIO = 2.0


#: A prediction this many times the largest measured value is written above the chart, not drawn to scale.
OFF_SCALE = 4.0


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


def log_ticks(xs: Sequence[float]) -> list[float]:
    """Ticks of a log axis: the values themselves when they are few (a sweep's sizes), else powers of ten."""
    values = sorted({x for x in xs if x > 0}) or [1.0, 10.0]
    if len(values) <= 12:
        return values
    return [10.0 ** e for e in range(math.floor(math.log10(values[0])), math.ceil(math.log10(values[-1])) + 1)]


# --- results ------------------------------------------------------------------------------------------------


def _axis_label(name: str, unit: str) -> str:
    return f"{name} ({unit})" if unit else name


def draw_chart(p: QPainter, rect: QRectF, title: str, chart: RunChart, estimate: float | None = None) -> None:
    """One chart: a line per curve (its band shaded behind it), the prediction's estimate as a dashed line,
    the y axis from zero, and the chart's table on the right when it has one."""
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QColor(style.TEXT_COLOR))
    p.setFont(font(13, True))
    p.drawText(QPointF(rect.left() + 4, rect.top() + 16), title)
    right = TABLE_W + 16 if chart.rows else 16
    plot = rect.adjusted(64, 46, -right, -40)
    xs = [x for c in chart.curves for x, _ in c.points] or [0.0, 1.0]
    # The axis takes the prediction in unless it is far above the data (20.9 Gbit/s predicted, 130 Mbit/s
    # measured): then the curve would lie flat on zero, so the prediction is written at the top edge instead.
    off_scale = estimate is not None and chart.y_max() > 0 and estimate > OFF_SCALE * chart.y_max()
    top = (chart.y_max() if off_scale else max(chart.y_max(), estimate or 0.0)) or 1.0
    y_ticks = nice_ticks(0.0, top)
    if chart.log_x:
        x_ticks = log_ticks(xs)
        lo, hi = math.log10(x_ticks[0]), math.log10(x_ticks[-1])
        pad = 0.04 * ((hi - lo) or 1)   # the end points sit inside the frame, their labels too
        lo, hi = lo - pad, hi + pad
    else:
        x_ticks = nice_ticks(min(xs), max(xs))
        lo, hi = x_ticks[0], x_ticks[-1]
    y0, y1 = y_ticks[0], y_ticks[-1]

    def at(x: float, y: float) -> QPointF:
        u = math.log10(max(x, 1e-12)) if chart.log_x else x
        return QPointF(plot.left() + (u - lo) / ((hi - lo) or 1) * plot.width(),
                       plot.bottom() - (y - y0) / ((y1 - y0) or 1) * plot.height())

    p.setFont(font(10))
    metrics = QFontMetricsF(font(10))
    grid = QPen(QColor("#e0e0e0"), 1)
    for y in y_ticks:
        p.setPen(grid)
        p.drawLine(QPointF(plot.left(), at(0, y).y()), QPointF(plot.right(), at(0, y).y()))
        p.setPen(QColor(style.MUTED_TEXT))
        label = number(y)
        p.drawText(QPointF(plot.left() - 6 - metrics.horizontalAdvance(label), at(0, y).y() + 4), label)
    for x in x_ticks:
        pos = QPointF(at(x, y0).x(), plot.bottom())
        if chart.log_x:
            p.setPen(grid)
            p.drawLine(pos, QPointF(pos.x(), plot.top()))
        p.setPen(QColor(style.MUTED_TEXT))
        label = number(x)
        p.drawText(QPointF(pos.x() - metrics.horizontalAdvance(label) / 2, plot.bottom() + 14), label)
    p.setPen(QPen(QColor("#9e9e9e"), 1))
    p.drawLine(QLineF(plot.bottomLeft(), plot.bottomRight()))
    p.drawLine(QLineF(plot.bottomLeft(), plot.topLeft()))
    p.setPen(QColor(style.MUTED_TEXT))
    x_label = _axis_label(chart.x_label, chart.x_unit) + (", log scale" if chart.log_x else "")
    p.drawText(QPointF(plot.center().x() - metrics.horizontalAdvance(x_label) / 2, plot.bottom() + 30), x_label)
    y_label = _axis_label(chart.y_label, chart.y_unit)
    p.save()
    p.translate(rect.left() + 12, plot.center().y() + metrics.horizontalAdvance(y_label) / 2)
    p.rotate(-90)
    p.drawText(QPointF(0, 0), y_label)
    p.restore()
    if estimate is not None and off_scale:
        p.setPen(QColor(style.TEXT_COLOR))
        words = chart.estimate.format(number(estimate, chart.y_unit))
        words = f"\u2191 {words}, above this scale"
        p.drawText(QPointF(plot.right() - metrics.horizontalAdvance(words), rect.top() + 35), words)  # legend row
    elif estimate is not None:
        p.setPen(QPen(QColor(style.TEXT_COLOR), 1.2, Qt.PenStyle.DashLine))
        y = at(0, estimate).y()
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
        p.drawText(QPointF(plot.left() + 4, y - 4), chart.estimate.format(number(estimate, chart.y_unit)))
    colors = series_colors(len(chart.curves))
    legend: list[tuple[str, QColor, bool]] = []
    for curve, hexcolor in zip(chart.curves, colors):
        color = QColor(hexcolor)
        if curve.band:
            shade = QColor(color)
            shade.setAlphaF(0.22)
            outline = [at(x, high) for x, _, high in curve.band] + [at(x, low) for x, low, _ in reversed(curve.band)]
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(shade)
            p.drawPolygon(QPolygonF(outline))
            p.setBrush(Qt.BrushStyle.NoBrush)
            legend.append((curve.band_name, shade, True))
        p.setPen(QPen(color, 2))
        p.setBrush(color)
        if len(curve.points) > 1:
            p.drawPolyline(QPolygonF([at(x, y) for x, y in curve.points]))
        if len(curve.points) == 1 or chart.log_x:
            for pt in curve.points:
                p.drawEllipse(at(*pt), 3, 3)
        p.setBrush(Qt.BrushStyle.NoBrush)
        if curve.name:
            legend.append((curve.name, color, False))
    x = plot.left()
    for name, color, filled in legend:   # one row under the title, left to right
        if filled:
            p.fillRect(QRectF(x, rect.top() + 26, 14, 10), color)
        else:
            p.setPen(QPen(color, 2))
            p.drawLine(QPointF(x, rect.top() + 31), QPointF(x + 14, rect.top() + 31))
        p.setPen(QColor(style.TEXT_COLOR))
        p.drawText(QPointF(x + 18, rect.top() + 35), name)
        x += metrics.horizontalAdvance(name) + 32
    if chart.rows:
        _table(p, QRectF(rect.right() - TABLE_W - 8, plot.top(), TABLE_W, plot.height()), chart)


def _table(p: QPainter, box: QRectF, chart: RunChart) -> None:
    """The chart's figures as a two-column table, values right-aligned, as a person copies them."""
    row_h = min(20.0, box.height() / (len(chart.rows) + 1))
    p.setFont(font(10, True))
    p.setPen(QColor(style.TEXT_COLOR))
    p.fillRect(QRectF(box.left(), box.top(), box.width(), row_h), QColor("#eceff1"))
    half = box.width() / 2
    flags = Qt.AlignmentFlag.AlignVCenter
    p.drawText(QRectF(box.left() + 4, box.top(), half - 8, row_h), flags | Qt.AlignmentFlag.AlignLeft,
               chart.header[0])
    p.drawText(QRectF(box.left() + half, box.top(), half - 4, row_h), flags | Qt.AlignmentFlag.AlignRight,
               chart.header[1])
    p.setFont(font(10))
    for i, (label, value) in enumerate(chart.rows, start=1):
        y = box.top() + i * row_h
        if i % 2 == 0:
            p.fillRect(QRectF(box.left(), y, box.width(), row_h), QColor("#f7f9fa"))
        p.drawText(QRectF(box.left() + 4, y, half - 8, row_h), flags | Qt.AlignmentFlag.AlignLeft, label)
        p.drawText(QRectF(box.left() + half, y, half - 4, row_h), flags | Qt.AlignmentFlag.AlignRight, number(value))
    p.setPen(QPen(QColor("#cfd8dc"), 1))
    p.drawRect(QRectF(box.left(), box.top(), box.width(), row_h * (len(chart.rows) + 1)))


def runs_picture(runs: Sequence, fmt: str, scale: float = 1.0) -> bytes:
    """All runs, one chart per run, stacked (a PNG at ``scale`` pixels per unit)."""
    from ..measure.compare import compare

    def paint(p: QPainter) -> None:
        p.fillRect(QRectF(0, 0, CHART_W, height), QColor("#ffffff"))
        if not runs:
            p.setFont(font(14))
            p.setPen(QColor(style.MUTED_TEXT))
            p.drawText(QRectF(0, 0, CHART_W, height), Qt.AlignmentFlag.AlignCenter, "no measured runs")
        for i, run in enumerate(runs):
            draw_chart(p, QRectF(0, i * CHART_H, CHART_W, CHART_H), run.title, run_chart(run), compare(run).estimate)

    height = CHART_H * max(1, len(runs))
    return picture_bytes(CHART_W, height, paint, fmt, scale, "measured runs")


# --- verdict heatmap -----------------------------------------------------------------------------------------

CELL = 26.0


def heatmap_picture(names: Sequence[str], grid: Sequence[Sequence[str]], fmt: str, title: str = "",
                    scale: float = 1.0) -> bytes:
    """Rows are sources, columns destinations; each cell is the verdict's colour and symbol; a legend below."""
    ensure_app()
    metrics = QFontMetricsF(font(11))
    longest = max((metrics.horizontalAdvance(n) for n in names), default=40.0)
    label_w = longest + 12
    top = label_w + 36
    n = len(names)
    legend_h = 26.0 * 3 + 16
    legend_col = 28 + max(metrics.horizontalAdvance(v) for v in style.VERDICT_COLORS) + 24
    # sized to what it holds: the title, the column labels leaning right over the last cell, the legend
    width = max(label_w + n * CELL + longest * math.cos(math.radians(60)) + 24,
                QFontMetricsF(font(14, True)).horizontalAdvance(title) + 24, 8 + 2 * legend_col)
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
            x = 8 + (i % 2) * legend_col
            row_y = y + (i // 2) * 26
            box = QRectF(x, row_y, 20, 20)
            p.fillRect(box, QColor(color))
            p.setPen(QColor(style.VERDICT_TEXT_COLORS[verdict]))
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, style.VERDICT_SYMBOLS[verdict])
            p.setPen(QColor(style.TEXT_COLOR))
            p.drawText(QPointF(x + 28, row_y + 15), verdict)

    return picture_bytes(width, height, paint, fmt, scale, title or "verdict matrix")
