"""Draw a design (a ``Scene``) with QPainter onto any paint device: SVG, PNG, PDF, or the GUI's printer.

Headless: needs only a QGuiApplication on the offscreen platform. Fonts are sized in pixels so a PDF
(QPdfWriter at its own resolution) shows the same proportions as the PNG. Icons come from
``resources/icons`` and are drawn through QSvgRenderer, so they end up inside the SVG as vector paths.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QMarginsF, QPointF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import (QColor, QFontMetricsF, QImage, QPageLayout, QPageSize, QPainter, QPainterPath,
                           QPdfWriter, QPen)
from PySide6.QtSvg import QSvgGenerator, QSvgRenderer

from .. import resources_dir
from ..layout import content, text
from . import style
from .qt import ensure_app, font, image_bytes, open_buffer, svg_in_pixels
from .scene import Box, Scene

#: PNG exports larger than this many pixels are drawn at a smaller scale (a 5,000-object design at 2x
#: would need gigabytes); the caller learns the scale actually used.
MAX_PIXELS = 40_000_000
#: PDF pages cannot exceed 200 inches; at 96 px per inch that is this many scene pixels.
MAX_PDF_PX = 19_000
TITLE_SPACE = 44.0


@dataclass
class Highlight:
    """A path to emphasise: the boxes and lines it passes, in the verdict's colour, and a caption."""

    boxes: set[str] = field(default_factory=set)
    lines: set[str] = field(default_factory=set)
    color: str = style.VERDICT_COLORS["in-host"]
    caption: str = ""


#: Box kinds whose icon file is named differently (resources/icons/<name>[-<variant>].svg).
_ICON_NAMES = {"dlr": "nsx-dlr"}


@cache
def _icon_data(kind: str, variant: str) -> bytes | None:
    """The SVG bytes of a box's icon (the file read once per process; renderers are made per export,
    because a QSvgRenderer is a QObject tied to the thread that made it)."""
    try:
        folder = resources_dir() / "icons"
    except FileNotFoundError:
        return None
    name = _ICON_NAMES.get(kind, kind.replace("_", "-"))
    for candidate in (f"{name}-{variant}", name):
        path = Path(folder, f"{candidate}.svg")
        if path.is_file():
            return path.read_bytes()
    return None


def tint(colour: str, amount: float) -> QColor:
    """``colour`` mixed into white: ``amount`` 0 is white, 1 the colour itself."""
    c = QColor(colour)
    return QColor.fromRgbF(1 - (1 - c.redF()) * amount, 1 - (1 - c.greenF()) * amount, 1 - (1 - c.blueF()) * amount)


def _rect(box: Box) -> QRectF:
    return QRectF(box.x, box.y, box.w, box.h)


class Painter:
    """Paints one scene; ``paint`` works in scene coordinates (the caller sets the transform).

    Text goes exactly where the layout measured it (``vnetbench.layout.content``): the bold name on the first
    line after the icon, each detail on a line of its own below it, so every box holds its text in full."""

    def __init__(self, scene: Scene, highlight: Highlight | None = None) -> None:
        self.scene = scene
        self.highlight = highlight or Highlight()
        self.boxes = scene.by_id()
        self.f_title = font(style.TITLE_PX, True)
        self.f_label = font(text.LABEL_PX, True)
        self.f_detail = font(text.DETAIL_PX)
        self.m_label = QFontMetricsF(self.f_label)
        self.m_detail = QFontMetricsF(self.f_detail)
        self.icons: dict[tuple[str, str], QSvgRenderer | None] = {}
        x, y, w, h = scene.bounds()
        heading = QFontMetricsF(self.f_title).horizontalAdvance(scene.title) + 60
        if self.highlight.caption:
            heading += self.m_label.horizontalAdvance(self.highlight.caption) + 20
        self.bounds = QRectF(x, y - TITLE_SPACE, max(w, heading), h + TITLE_SPACE)

    def paint(self, p: QPainter) -> None:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.fillRect(self.bounds, QColor("#ffffff"))
        self._title(p)
        frames = [b for b in self.scene.boxes if b.frame or b.kind == "note"]
        leaves = [b for b in self.scene.boxes if not (b.frame or b.kind == "note")]
        for box in frames:
            self._box(p, box)
        lit = self.highlight.lines
        edges = sorted(self.scene.edges, key=lambda e: (e.id in lit, e.kind != "bus"))
        for edge in edges:
            self._line(p, edge, edge.id in lit)
        for box in leaves:
            self._box(p, box)
        for edge in edges:
            if edge.label:
                self._line_label(p, edge, edge.id in lit)

    def _icon(self, kind: str, variant: str) -> QSvgRenderer | None:
        key = (kind, variant)
        if key not in self.icons:
            data = _icon_data(kind, variant)
            renderer = QSvgRenderer(QByteArray(data)) if data else None
            self.icons[key] = renderer if renderer is not None and renderer.isValid() else None
        return self.icons[key]

    def _title(self, p: QPainter) -> None:
        top = self.bounds.top() + 10
        p.setFont(self.f_title)
        p.setPen(QColor(style.TEXT_COLOR))
        p.drawText(QPointF(self.bounds.left() + 20, top + style.TITLE_PX), self.scene.title)
        if self.highlight.caption:
            p.setFont(self.f_label)
            p.setPen(QColor(self.highlight.color))
            x = self.bounds.left() + 40 + QFontMetricsF(self.f_title).horizontalAdvance(self.scene.title)
            p.drawText(QPointF(x, top + style.TITLE_PX), self.highlight.caption)

    def _box(self, p: QPainter, box: Box) -> None:
        fill, border = style.box_colors(box.kind, box.style)
        rect = _rect(box)
        lit = box.id in self.highlight.boxes
        pen = QPen(QColor(self.highlight.color if lit else border), style.HIGHLIGHT_WIDTH if lit else 1.2)
        if box.kind in ("host", "physical_switch", "physical_router", "physical_host"):
            pen.setWidthF(pen.widthF() + (0 if lit else 0.8))
        p.setPen(pen)
        p.setBrush(QColor(box.color or fill))
        radius = 3.0 if box.kind in ("portgroup", "port", "pnic", "router_interface", "host_nic") else 7.0
        p.drawRoundedRect(rect, radius, radius)
        if box.kind == "note":
            p.setFont(self.f_detail)
            p.setPen(QColor(style.TEXT_COLOR))
            p.drawText(rect.adjusted(6, 6, -6, -6), Qt.TextFlag.TextWordWrap, box.label)
            return
        if box.frame:  # the title block: a band across a host, the left end of a bar
            bare = box.w <= box.label_w + 10  # a bar with nothing in it is all title
            band = QRectF(rect.left(), rect.top(), rect.width(), box.header) if box.kind == "host" else \
                QRectF(rect.left(), rect.top(), rect.width() if bare else box.label_w, rect.height())
            path = QPainterPath()
            path.addRoundedRect(rect, radius, radius)
            p.save()
            p.setClipPath(path)
            p.fillRect(band, tint(border, 0.16) if not box.color else QColor(box.color).darker(106))
            p.restore()
        icon = self._icon(box.kind, box.style)
        if icon is not None:
            size = content.FRAME_ICON if box.frame else content.ICON
            icon.render(p, QRectF(rect.left() + content.TEXT_LEFT, rect.top() + content.TEXT_TOP, size, size))
        left = rect.left() + content.text_x(box.kind)
        p.setPen(QColor(style.TEXT_COLOR))
        p.setFont(self.f_label)
        y = rect.top() + content.TEXT_TOP
        p.drawText(QPointF(left, y + self.m_label.ascent() + 1), box.label)
        p.setFont(self.f_detail)
        p.setPen(QColor(style.MUTED_TEXT))
        y += text.LABEL_LINE
        for line in box.lines:
            p.drawText(QPointF(left, y + self.m_detail.ascent()), line)
            y += text.DETAIL_LINE

    def _pen(self, edge, lit: bool) -> QPen:
        color, dashed = style.LINE_STYLES.get(edge.kind, ("#616161", False))
        if edge.kind == "bus":
            c = QColor(self.highlight.color if lit else color)
            c.setAlpha(200 if lit else 110)
            pen = QPen(c, 6.0)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            return pen
        pen = QPen(QColor(self.highlight.color if lit else color), style.HIGHLIGHT_WIDTH if lit else 1.4)
        if dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        return pen

    def _line(self, p: QPainter, edge, lit: bool) -> None:
        if len(edge.points) < 2:
            return
        path = QPainterPath(QPointF(*edge.points[0]))
        for x, y in edge.points[1:]:
            path.lineTo(x, y)
        p.setPen(self._pen(edge, lit))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(path)

    def _line_label(self, p: QPainter, edge, lit: bool) -> None:
        """A line's label on its longest segment, on a white ground so the line under it does not strike it."""
        if len(edge.points) < 2:
            return
        (x0, y0), (x1, y1) = max(zip(edge.points, edge.points[1:]),
                                 key=lambda s: abs(s[1][0] - s[0][0]) + abs(s[1][1] - s[0][1]))
        at = QPointF((x0 + x1) / 2, (y0 + y1) / 2)
        width = self.m_detail.horizontalAdvance(edge.label)
        label_rect = QRectF(at.x() - width / 2 - 3, at.y() - self.m_detail.height() / 2, width + 6,
                            self.m_detail.height())
        path = QPainterPath()
        path.addRoundedRect(label_rect, 3, 3)
        p.fillPath(path, QColor(255, 255, 255, 235))
        p.setFont(self.f_detail)
        color = style.LINE_STYLES.get(edge.kind, ("#616161", False))[0] if edge.kind == "bus" else style.MUTED_TEXT
        p.setPen(QColor(self.highlight.color if lit else color))
        p.drawText(label_rect, Qt.AlignmentFlag.AlignCenter, edge.label)


# --- devices --------------------------------------------------------------------------------------------


def svg_bytes(scene: Scene, highlight: Highlight | None = None, description: str = "") -> bytes:
    ensure_app()
    painter = Painter(scene, highlight)
    r = painter.bounds
    data, buffer = open_buffer()
    gen = QSvgGenerator()
    gen.setOutputDevice(buffer)
    gen.setSize(QSize(math.ceil(r.width()), math.ceil(r.height())))
    gen.setViewBox(QRectF(0, 0, r.width(), r.height()))
    gen.setTitle(scene.title)
    gen.setDescription(description or f"{scene.title}: exported by vnetbench")
    p = QPainter(gen)
    p.translate(-r.left(), -r.top())
    painter.paint(p)
    p.end()
    buffer.close()
    return svg_in_pixels(data.data(), r.width(), r.height())


def png_image(scene: Scene, scale: float = 1.0, highlight: Highlight | None = None) -> tuple[QImage, float]:
    """The picture at ``scale`` (device pixels per scene pixel), shrunk if it would exceed ``MAX_PIXELS``."""
    ensure_app()
    if not scale > 0:
        raise ValueError(f"scale must be above 0, not {scale}")
    painter = Painter(scene, highlight)
    r = painter.bounds
    if r.width() * r.height() * scale * scale > MAX_PIXELS:
        scale = math.sqrt(MAX_PIXELS / (r.width() * r.height()))
    image = QImage(max(1, math.ceil(r.width() * scale)), max(1, math.ceil(r.height() * scale)),
                   QImage.Format.Format_ARGB32_Premultiplied)
    image.setDotsPerMeterX(round(96 * scale / 0.0254))
    image.setDotsPerMeterY(round(96 * scale / 0.0254))
    image.fill(QColor("#ffffff"))
    p = QPainter(image)
    p.scale(scale, scale)
    p.translate(-r.left(), -r.top())
    painter.paint(p)
    p.end()
    return image, scale


def png_bytes(scene: Scene, scale: float = 1.0, highlight: Highlight | None = None) -> tuple[bytes, float]:
    image, used = png_image(scene, scale, highlight)
    return image_bytes(image), used


def page_layout(painter: Painter) -> tuple[QPageLayout, float]:
    """A page the size of the diagram (at 96 px per inch), and the factor that keeps it under PDF's limit."""
    r = painter.bounds
    fit = min(1.0, MAX_PDF_PX / max(r.width(), r.height()))
    size = QPageSize(QSizeF(r.width() * fit * 72 / 96, r.height() * fit * 72 / 96), QPageSize.Unit.Point,
                     painter.scene.title, QPageSize.SizeMatchPolicy.ExactMatch)
    return QPageLayout(size, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)), fit


def paint_page(p: QPainter, painter: Painter, fit: float) -> None:
    """Paint the diagram on a page made by ``page_layout`` (``p`` at 96 px per inch)."""
    p.save()
    p.scale(fit, fit)
    p.translate(-painter.bounds.left(), -painter.bounds.top())
    painter.paint(p)
    p.restore()


def pdf_bytes(scene: Scene, highlight: Highlight | None = None) -> bytes:
    """One vector page the size of the diagram."""
    ensure_app()
    painter = Painter(scene, highlight)
    data, buffer = open_buffer()
    writer = QPdfWriter(buffer)
    writer.setResolution(96)
    writer.setTitle(scene.title)
    writer.setCreator("vnetbench")
    layout, fit = page_layout(painter)
    writer.setPageLayout(layout)
    p = QPainter(writer)
    paint_page(p, painter, fit)
    p.end()
    buffer.close()
    return bytes(data.data())
