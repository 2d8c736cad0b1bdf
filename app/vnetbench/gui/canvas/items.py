"""What the canvas draws: frames (hosts, switches), nodes, connection handles, links and notes.

Items hold no model state beyond the id they show; the scene tells them what to display. Text is drawn as the
layout room measured it (``vnetbench.layout.content``): a bold name and one line per detail, so a box the
automatic layout sized holds its text in full; a box made smaller by hand cuts a line with an ellipsis, shows
it all in its tooltip, and shows more of it the closer one zooms (the text gets smaller against the box).
Zoomed far out (level of detail), a host is a labelled box with its counts, readable at that zoom, and what it
holds is hidden; leaf nodes use DeviceCoordinateCache, so a canvas of thousands of objects repaints and drags
smoothly.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ... import resources_dir
from ...layout import content
from ...layout.text import DETAIL_LINE, DETAIL_PX, FONT_FAMILY, LABEL_LINE, LABEL_PX
from ...model.text import one_line
from ..colors import SEVERITY_COLORS, canvas_theme
from ..plain import tip as plain_tip
from .geometry import HANDLE, HOST_HEADER, SWITCH_HEADER

#: Below this zoom (level of detail), items draw a plain shape: no text, no icon.
OVERVIEW_LOD = 0.4
#: A tile less tall than this on screen (pixels) is drawn as a plain block: no outline, no words (its name would
#: be under 8 pixels, hardly readable; ``NodeItem._paint_overview`` leaves out those under 6).
BLOCK_PX = 10.0
SELECTED = QColor("#1e6fff")

@cache
def icon_pixmap(name: str, size: int) -> QPixmap:
    """An icon from resources/icons rendered once per size (painting a pixmap is far cheaper than SVG)."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    renderer = QSvgRenderer(str(resources_dir() / "icons" / f"{name}.svg"))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return pixmap


def family_colours(family: str) -> tuple[QColor, QColor, QColor]:
    """(fill, border, accent) of an item family in the canvas theme (light, or dark on a dark desktop)."""
    return _family_colours(family, canvas_theme().dark)


@cache
def _family_colours(family: str, dark: bool) -> tuple[QColor, QColor, QColor]:
    return tuple(QColor(c) for c in canvas_theme().families[family])


def font(size: float, bold: bool = False) -> QFont:
    return _font(max(1, round(size)), bold)


@cache
def _font(px: int, bold: bool) -> QFont:
    f = QFont(FONT_FAMILY)
    f.setPixelSize(px)
    f.setBold(bold)
    return f


@cache
def _metrics(px: int, bold: bool) -> QFontMetricsF:
    return QFontMetricsF(_font(px, bold))


def elide(text: str, size: float, bold: bool, width: float) -> str:
    """``text`` cut in the middle to ``width`` ("VLAN…0-A", "VLAN…0-B": what tells objects apart is kept at
    both ends; the item's tooltip has it whole)."""
    return _metrics(max(1, round(size)), bold).elidedText(text, Qt.TextElideMode.ElideMiddle, width)


def text_scale(painter: QPainter) -> float:
    """How much smaller than the layout's size text is drawn at this zoom: 1 up to 100%, then as much smaller as
    the zoom is larger (the same size on screen), down to 0.35, so a cut label shows in full as one zooms in."""
    zoom = painter.worldTransform().m11()
    return min(1.0, max(0.35, 1.0 / zoom)) if zoom > 0 else 1.0


def draw_lines(painter: QPainter, rect: QRectF, title: str, lines: list[str], left: float, scale: float) -> bool:
    """The bold title and the detail lines from ``left`` (relative to ``rect``), as the layout places them,
    scaled by ``scale``; lines that do not fit are cut with an ellipsis. Returns whether anything was cut."""
    cut = False
    width = rect.width() - left - 4
    y = rect.top() + content.TEXT_TOP * scale
    theme = canvas_theme()
    painter.setPen(QColor(theme.text))
    size = LABEL_PX * scale
    painter.setFont(font(size, True))
    shown = elide(title, size, True, width)
    cut |= shown != title
    painter.drawText(QRectF(rect.left() + left, y, width, LABEL_LINE * scale + 2),
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, shown)
    y += LABEL_LINE * scale
    painter.setPen(QColor(theme.subtext))
    size = DETAIL_PX * scale
    painter.setFont(font(size))
    for line in lines:
        if y + DETAIL_LINE * scale > rect.bottom() + 2:
            return True
        shown = elide(line, size, False, width)
        cut |= shown != line
        painter.drawText(QRectF(rect.left() + left, y, width, DETAIL_LINE * scale + 2),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, shown)
        y += DETAIL_LINE * scale
    return cut


def tint(colour: QColor, amount: float, base: QColor | None = None) -> QColor:
    """``colour`` mixed into ``base`` (white by default): ``amount`` 0 is the base, 1 the colour itself."""
    base = base if base is not None else QColor("white")
    return QColor.fromRgbF(*(b + (c - b) * amount for c, b in ((colour.redF(), base.redF()),
                                                               (colour.greenF(), base.greenF()),
                                                               (colour.blueF(), base.blueF()))))


def lod(option: QStyleOptionGraphicsItem, painter: QPainter) -> float:
    return option.levelOfDetailFromTransform(painter.worldTransform())


class HandleItem(QGraphicsItem):
    """A connection point of a node: a vNIC, pNIC, switch port, router interface or host NIC.

    A vNIC is a small marker on its VM's edge. The others are drawn as the layout draws them, a chip with the
    name and details (speed, trunk VLANs, address) when the scene gives them a ``chip`` (their box, centred on
    the handle's position), else as a marker with the name beside it."""

    def __init__(self, oid: str, kind: str, label: str, parent: QGraphicsItem, colour: str,
                 tip: str = "drag to connect") -> None:
        super().__init__(parent)
        self.oid, self.kind = oid, kind
        # Switch ports sit close together: show their last part (Gi1/0/7 -> 7), the tooltip has it all.
        self.label = label.rsplit("/", 1)[-1] if kind == "port" and len(label) > 5 else label
        self.full_label = label
        self.lines: list[str] = []
        self.colour = QColor(colour)
        self.connected = False
        self.label_below = True
        self.chip: QRectF | None = None
        self.tip = tip  # what dragging from it does
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setToolTip(plain_tip(f"{label}: {tip}; click to edit"))
        self.setZValue(1)

    BOUNDS = QRectF(-HANDLE, -HANDLE, 2 * HANDLE, 2 * HANDLE + 12)

    def set_chip(self, chip: QRectF | None, lines: list[str]) -> None:
        """Draw as a box of this size (relative to the position), with these detail lines."""
        if chip != self.chip or lines != self.lines:
            self.prepareGeometryChange()
            self.chip, self.lines = chip, list(lines)
            self.setToolTip(plain_tip(" \u00b7 ".join([self.full_label, *lines]) + f": {self.tip}; click to edit"))

    def boundingRect(self) -> QRectF:
        return self.chip.adjusted(-2, -2, 2, 2) if self.chip is not None else self.BOUNDS

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        if self.chip is not None:
            path.addRect(self.chip)
        else:
            path.addRect(QRectF(-HANDLE * 0.75, -HANDLE * 0.75, HANDLE * 1.5, HANDLE * 1.5))
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if lod(option, painter) < OVERVIEW_LOD:
            return  # smaller than a pixel or two: the node's outline says enough
        selected = self.isSelected()
        pen = QPen(SELECTED if selected else self.colour.darker(130), 2 if selected else 1.2)
        theme = canvas_theme()
        blank = QColor(theme.handle_fill)
        if self.chip is not None:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(pen)
            painter.setBrush(tint(self.colour, 0.12, blank) if self.connected else blank)
            painter.drawRoundedRect(self.chip, 3, 3)
            draw_lines(painter, self.chip, one_line(self.full_label), self.lines, content.TEXT_LEFT,
                       text_scale(painter))
            return
        half = HANDLE / 2
        rect = QRectF(-half, -half, HANDLE, HANDLE)
        painter.setPen(pen)
        painter.setBrush(self.colour if self.connected else blank)
        if self.kind in ("vnic", "host_nic"):
            painter.drawEllipse(rect)
        else:
            painter.drawRoundedRect(rect, 2, 2)
        if self.kind == "vnic":
            return  # the VM's box lists its vNICs; the tooltip names this one
        painter.setPen(QColor(theme.handle_text))
        painter.setFont(font(9))
        y = half + 10 if self.label_below else -half - 3
        painter.drawText(QRectF(-40, y - 10, 80, 12), Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                         elide(one_line(self.label), 9, False, 60))


class NodeItem(QGraphicsItem):
    """A node or a frame for one model object (``oid``; for a proxy of a vDS in a host, ``<switch>@<host>``,
    whose model object is ``ref``).

    A host is a frame with a title band across its top; a switch, physical switch, router or physical host is
    a bar with its title block on the left (``label_w`` wide) and its portgroups or ports to the right."""

    def __init__(self, oid: str, kind: str, frame: bool = False, ref: str | None = None) -> None:
        super().__init__()
        self.oid, self.kind, self.frame = oid, kind, frame
        self.ref = ref or oid
        self.title = ""
        self.lines: list[str] = []
        self.icon = ""
        self.family = "vm"
        self.label_w = 0.0
        self.header = HOST_HEADER
        self.counts = ""  # a host's contents, shown when zoomed far out
        self.verdict: str | None = None  # a host's worst problem ("error", "warning", "info"): its tile's colour
        self.size = QRectF(0, 0, 100, 50)
        self.bounds = self.size.adjusted(-3, -3, 3, 3)
        self.handles: dict[str, HandleItem] = {}
        self.signature: tuple = ()
        self.badge: tuple[str, str] | None = None  # deploy state: (symbol, colour)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        if not frame:
            self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_text(self, title: str, lines: list[str]) -> None:
        self.title, self.lines = one_line(title), [one_line(line) for line in lines]
        self.setToolTip(plain_tip("\n".join([title, *lines])))

    def set_size(self, w: float, h: float) -> None:
        if (w, h) != (self.size.width(), self.size.height()):
            self.prepareGeometryChange()
            self.size = QRectF(0, 0, w, h)
            self.bounds = self.size.adjusted(-3, -3, 3, 3)

    def boundingRect(self) -> QRectF:
        return self.bounds

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.size)
        return path

    def centre(self) -> QPointF:
        return self.mapToScene(self.size.center())

    def header_height(self) -> float:
        return self.header if self.kind == "host" else SWITCH_HEADER

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        fill, border, accent = family_colours(self.family)
        selected = self.isSelected()
        rect = self.size
        detail = lod(option, painter)
        if detail < OVERVIEW_LOD:
            self._paint_overview(painter, rect, fill, border, selected, detail)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(SELECTED if selected else border, 2.5 if selected else 1.4)
        if self.kind == "host":
            self._paint_host(painter, rect, fill, border, accent, pen)
        elif self.label_w or self.frame:
            self._paint_bar(painter, rect, fill, accent, pen)
        else:
            self._paint_node(painter, rect, fill, accent, pen)
        if self.badge:
            symbol, colour = self.badge
            painter.setPen(QPen(QColor("white"), 1.5))
            painter.setBrush(QColor(colour))
            painter.drawEllipse(QPointF(rect.right() - 3, rect.top() + 3), 8, 8)
            painter.setPen(QColor("white"))
            painter.setFont(font(10, True))
            painter.drawText(QRectF(rect.right() - 11, rect.top() - 5, 16, 16), Qt.AlignmentFlag.AlignCenter, symbol)

    def _paint_overview(self, painter: QPainter, rect: QRectF, fill: QColor, border: QColor, selected: bool,
                        detail: float) -> None:
        """Far out: a tile, in its worst problem's colour for a host, with its name (and a host's counts) at a
        readable size. A name is drawn whole or not at all (never over a neighbour): it shrinks to fit its
        tile, and below 6 screen pixels it is left to the tooltip."""
        if detail * rect.height() < BLOCK_PX:
            self._paint_block(painter, rect, fill, border, selected, detail)
            return
        if self.verdict in SEVERITY_COLORS:
            fill = tint(QColor(SEVERITY_COLORS[self.verdict]), 0.35, fill)
        painter.fillRect(rect, fill if self.frame or self.label_w else border.lighter(150))
        painter.setPen(QPen(SELECTED if selected else border, 0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
        if not self.parentItem() and detail > 0 and (self.kind == "host" or self.label_w):
            px = min(13.0 / detail, rect.height() * 0.8)  # 13 screen pixels, or as much as a thin bar holds
            wide = _metrics(100, True).horizontalAdvance(self.title) / 100  # the name's width at 1 px
            px = min(px, rect.width() * 0.9 / (wide + 0.8)) if wide else px  # the name and its margins
            if px * detail < 6:
                return
            theme = canvas_theme()
            painter.setPen(QColor(theme.text))
            painter.setFont(font(px, True))
            inner = rect.adjusted(px * 0.4, px * 0.3, -px * 0.4, 0)
            painter.drawText(inner, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, self.title)
            if self.counts and rect.height() > 3 * px:
                painter.setFont(font(px * 0.85))
                painter.setPen(QColor(theme.subtext))
                inner.setTop(inner.top() + px * 1.4)
                painter.drawText(inner, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                                 self.counts)

    def _paint_block(self, painter: QPainter, rect: QRectF, fill: QColor, border: QColor, selected: bool,
                     detail: float) -> None:
        """A tile a few pixels tall: a plain block in a middle tone of its colour (its worst problem's, for a
        host), a pixel clear of its neighbours all round, with no outline and no words (its tooltip has them),
        so rows of thousands of hosts read as rows and never run together."""
        colour = tint(border, 0.55, fill)
        if self.verdict in SEVERITY_COLORS:
            colour = tint(QColor(SEVERITY_COLORS[self.verdict]), 0.75, fill)
        gap = 1.0 / detail if detail > 0 else 0.0  # one screen pixel
        if rect.width() > 3 * gap and rect.height() > 3 * gap:
            rect = rect.adjusted(gap, gap, -gap, -gap)
        painter.fillRect(rect, SELECTED if selected else colour)

    def _icon(self, painter: QPainter, rect: QRectF, size: float) -> None:
        painter.drawPixmap(QRectF(rect.left() + content.TEXT_LEFT, rect.top() + content.TEXT_TOP, size, size),
                           icon_pixmap(self.icon, 48), QRectF(0, 0, 48, 48))

    def _paint_host(self, painter: QPainter, rect: QRectF, fill: QColor, border: QColor, accent: QColor,
                    pen: QPen) -> None:
        header = self.header
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 8, 8)
        band = QPainterPath()
        band.addRoundedRect(QRectF(rect.left(), rect.top(), rect.width(), header), 8, 8)
        band.addRect(QRectF(rect.left(), rect.top() + header / 2, rect.width(), header / 2))
        painter.fillPath(band.simplified(), QBrush(tint(accent, 0.22, fill)))
        painter.setPen(QPen(border.lighter(130), 1))
        painter.drawLine(QPointF(rect.left() + 1, rect.top() + header), QPointF(rect.right() - 1, rect.top() + header))
        self._icon(painter, rect, content.FRAME_ICON)
        draw_lines(painter, QRectF(rect.left(), rect.top(), rect.width(), header), self.title, self.lines,
                   content.text_x("host"), text_scale(painter))
        grip = QPen(border.lighter(120), 1.3)
        painter.setPen(grip)
        for d in (4.0, 8.0, 12.0):
            painter.drawLine(QPointF(rect.right() - d, rect.bottom() - 2), QPointF(rect.right() - 2, rect.bottom() - d))

    def _paint_bar(self, painter: QPainter, rect: QRectF, fill: QColor, accent: QColor, pen: QPen) -> None:
        """A switch (or physical box) as a bar: the title block on the left, what it holds to the right."""
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 7, 7)
        title_w = self.label_w if self.label_w and self.label_w < rect.width() - 10 else rect.width()
        outline = QPainterPath()
        outline.addRoundedRect(rect, 7, 7)
        painter.save()
        painter.setClipPath(outline)
        painter.fillRect(QRectF(rect.left(), rect.top(), title_w, rect.height()), tint(accent, 0.16, fill))
        painter.restore()
        self._icon(painter, rect, content.FRAME_ICON)
        draw_lines(painter, QRectF(rect.left(), rect.top(), title_w, rect.height()), self.title, self.lines,
                   content.text_x("switch"), text_scale(painter))
        if self.frame:
            painter.setPen(QPen(accent.lighter(120), 1.3))
            for d in (4.0, 8.0, 12.0):
                painter.drawLine(QPointF(rect.right() - d, rect.bottom() - 2),
                                 QPointF(rect.right() - 2, rect.bottom() - d))

    def _paint_node(self, painter: QPainter, rect: QRectF, fill: QColor, accent: QColor, pen: QPen) -> None:
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 6, 6)
        outline = QPainterPath()
        outline.addRoundedRect(rect, 6, 6)
        painter.save()
        painter.setClipPath(outline)
        painter.fillRect(QRectF(rect.left(), rect.top(), 4, rect.height()), accent)
        painter.restore()
        self._icon(painter, rect, content.ICON)
        draw_lines(painter, rect, self.title, self.lines, content.text_x(self.kind), text_scale(painter))


class NoteItem(QGraphicsItem):
    """A text note on the canvas (``layout.notes``)."""

    def __init__(self, oid: str) -> None:
        super().__init__()
        self.oid, self.kind, self.frame = oid, "note", False
        self.text = ""
        self.size = QRectF(0, 0, 180, 80)
        self.handles: dict[str, HandleItem] = {}
        self.signature: tuple = ()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(8)

    def set_size(self, w: float, h: float) -> None:
        if (w, h) != (self.size.width(), self.size.height()):
            self.prepareGeometryChange()
            self.size = QRectF(0, 0, w, h)

    def boundingRect(self) -> QRectF:
        return self.size.adjusted(-3, -3, 3, 3)

    def centre(self) -> QPointF:
        return self.mapToScene(self.size.center())

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        fill, border, ink = family_colours("note")
        selected = self.isSelected()
        painter.setPen(QPen(SELECTED if selected else border, 2 if selected else 1))
        painter.setBrush(fill)
        painter.drawRect(self.size)
        if lod(option, painter) < OVERVIEW_LOD:
            return
        painter.setPen(ink)
        painter.setFont(font(12))
        painter.drawText(self.size.adjusted(8, 6, -8, -6), Qt.TextFlag.TextWordWrap, self.text)


#: Link styles: (colour in the light theme, width, dash); ``colors.CanvasTheme.links`` has each theme's colour.
LINK_STYLES = {
    "net": ("#2e8b57", 1.8, False),     # vNIC to its portgroup or switch
    "uplink": ("#37474f", 1.8, False),  # vSwitch to the pNIC it uses
    "cable": ("#3c4655", 2.4, False),   # a model Link: pNIC/interface/NIC to a switch port, port to port
    "dlr": ("#4b3fa8", 1.8, True),      # DLR interface to its segment
    "l3": ("#5a6473", 3.0, True),       # an L3 switch's routing engine to the switch its SVIs sit on
    "bus": ("#7e6bc4", 6.0, False),     # the band tying the proxies of a vDS / NSX segment in hosts side by side
}


def link_pen(style: str, selected: bool, detailed: bool) -> QPen:
    return _link_pen(style, selected, detailed, canvas_theme().dark)


@cache
def _link_pen(style: str, selected: bool, detailed: bool, dark: bool) -> QPen:
    colour, width, dashed = LINK_STYLES[style]
    colour = QColor(canvas_theme().links.get(style, colour))
    if style == "bus":
        colour.setAlpha(120)
    pen = QPen(SELECTED if selected else colour, width + (1.5 if selected else 0) if detailed else 0)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap if style == "bus" else Qt.PenCapStyle.SquareCap)
    if dashed and detailed:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


class LinkItem(QGraphicsItem):
    """A connection drawn as an orthogonal polyline; ``key`` is a link id or ``net:``/``up:``/``dlr:``/``bus:`` +
    ids. ``set_points`` takes a route from the layout; ``set_ends`` draws the plain route between two anchors
    (down, across at half height, down) used while something is dragged or after a hand edit.

    A long route has a large bounding box, so Qt asks many links to paint when a small area changes (every frame
    of a drag) though few of them pass through it: a partial repaint strokes only the segments in the area."""

    def __init__(self, key: str, style: str, a: str, b: str) -> None:
        super().__init__()
        self.key, self.style, self.a, self.b = key, style, a, b
        self.oid = key
        self.path = QPainterPath()
        self.line = QLineF()
        self.bounds = QRectF()
        self.ends: tuple = ()
        self.points: list[tuple[float, float]] = []
        self._pieces: list[list] = []  # [left, top, right, bottom, t0, t1, lines] per segment
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # for the exposed rect
        self.setZValue(1.5 if style == "bus" else 2)

    def set_ends(self, p1: QPointF, p2: QPointF) -> None:
        x1, y1, x2, y2 = p1.x(), p1.y(), p2.x(), p2.y()
        if abs(y2 - y1) < 20 or abs(x2 - x1) < 0.5:
            self.set_points([(x1, y1), (x2, y2)] if abs(x2 - x1) < 0.5 or abs(y2 - y1) < 0.5 else
                            [(x1, y1), (x1, min(y1, y2) - 20), (x2, min(y1, y2) - 20), (x2, y2)])
        else:
            mid = (y1 + y2) / 2
            self.set_points([(x1, y1), (x1, mid), (x2, mid), (x2, y2)])

    def set_points(self, points: list[tuple[float, float]]) -> None:
        ends = tuple(c for p in points for c in p)
        if ends == self.ends or len(points) < 2:
            return
        self.ends = ends
        self.prepareGeometryChange()
        self.points = list(points)
        path = QPainterPath(QPointF(*points[0]))
        for x, y in points[1:]:
            path.lineTo(x, y)
        self.path = path
        self.line = QLineF(QPointF(*points[0]), QPointF(*points[-1]))
        self.bounds = path.controlPointRect().adjusted(-5, -5, 5, 5)
        self._pieces = []

    def pieces(self) -> list[list]:
        """One piece per segment, boxed with the pen's reach."""
        if not self._pieces:
            n = len(self.points) - 1
            for i, ((ax, ay), (bx, by)) in enumerate(zip(self.points, self.points[1:])):
                self._pieces.append([min(ax, bx) - 5, min(ay, by) - 5, max(ax, bx) + 5, max(ay, by) + 5, i / n,
                                     (i + 1) / n, [QLineF(ax, ay, bx, by)]])
        return self._pieces

    def _lines(self, piece: list) -> list[QLineF]:
        return piece[6]

    def boundingRect(self) -> QRectF:
        return self.bounds

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(8)
        return stroker.createStroke(self.path)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if not self.ends:
            return  # not routed yet
        exposed = option.exposedRect
        detailed = option.levelOfDetailFromTransform(painter.worldTransform()) >= OVERVIEW_LOD
        painter.setPen(link_pen(self.style, self.isSelected(), detailed))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if exposed.contains(self.bounds) or not detailed:
            painter.drawPath(self.path)
        else:
            left, top, right, bottom = exposed.getCoords()
            lines = [line for piece in self.pieces() if piece[2] >= left and piece[0] <= right
                     and piece[3] >= top and piece[1] <= bottom for line in piece[6]]
            if lines:
                painter.drawLines(lines)
