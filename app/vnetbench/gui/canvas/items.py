"""What the canvas draws: frames (hosts, switches), nodes, connection handles, links and notes.

Items hold no model state beyond the id they show; the scene tells them what to display. Painting has a
cheap level of detail for overview zoom (a filled shape, no text or icons), and leaf nodes use
DeviceCoordinateCache, so a canvas of thousands of objects repaints and drags smoothly.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ... import resources_dir
from ..colors import canvas_theme
from .geometry import HANDLE, HOST_HEADER, SWITCH_HEADER

#: Below this zoom (level of detail), items draw a plain shape: no text, no icon.
OVERVIEW_LOD = 0.4
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


@cache
def font(size: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(int(size))
    f.setBold(bold)
    return f


def elide(text: str, size: float, bold: bool, width: float) -> str:
    return QFontMetricsF(font(size, bold)).elidedText(text, Qt.TextElideMode.ElideRight, width)


def tint(colour: QColor, amount: float, base: QColor | None = None) -> QColor:
    """``colour`` mixed into ``base`` (white by default): ``amount`` 0 is the base, 1 the colour itself."""
    base = base if base is not None else QColor("white")
    return QColor.fromRgbF(*(b + (c - b) * amount for c, b in ((colour.redF(), base.redF()),
                                                               (colour.greenF(), base.greenF()),
                                                               (colour.blueF(), base.blueF()))))


def lod(option: QStyleOptionGraphicsItem, painter: QPainter) -> float:
    return option.levelOfDetailFromTransform(painter.worldTransform())


class HandleItem(QGraphicsItem):
    """A connection point of a node: a vNIC, pNIC, switch port, router interface or host NIC."""

    def __init__(self, oid: str, kind: str, label: str, parent: QGraphicsItem, colour: str) -> None:
        super().__init__(parent)
        self.oid, self.kind = oid, kind
        # Switch ports sit close together: show their last part (Gi1/0/7 -> 7), the tooltip has it all.
        self.label = label.rsplit("/", 1)[-1] if kind == "port" and len(label) > 5 else label
        self.full_label = label
        self.colour = QColor(colour)
        self.connected = False
        self.label_below = True
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setToolTip(f"{label}: drag to connect, click to edit")
        self.setZValue(1)

    BOUNDS = QRectF(-HANDLE, -HANDLE, 2 * HANDLE, 2 * HANDLE + 12)

    def boundingRect(self) -> QRectF:
        return self.BOUNDS

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(QRectF(-HANDLE * 0.75, -HANDLE * 0.75, HANDLE * 1.5, HANDLE * 1.5))
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if lod(option, painter) < OVERVIEW_LOD:
            return  # smaller than a pixel or two: the node's outline says enough
        half = HANDLE / 2
        rect = QRectF(-half, -half, HANDLE, HANDLE)
        selected = self.isSelected()
        painter.setPen(QPen(SELECTED if selected else self.colour.darker(130), 2 if selected else 1.2))
        painter.setBrush(self.colour if self.connected else QColor(canvas_theme().handle_fill))
        if self.kind in ("vnic", "host_nic"):
            painter.drawEllipse(rect)
        else:
            painter.drawRoundedRect(rect, 2, 2)
        painter.setPen(QColor(canvas_theme().handle_text))
        painter.setFont(font(9))
        y = half + 10 if self.label_below else -half - 3
        painter.drawText(QRectF(-40, y - 10, 80, 12), Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                         elide(self.label, 9, False, 60))


class NodeItem(QGraphicsItem):
    """A node or a frame for one model object (``oid``)."""

    def __init__(self, oid: str, kind: str, frame: bool = False) -> None:
        super().__init__()
        self.oid, self.kind, self.frame = oid, kind, frame
        self.title = ""
        self.subtitle = ""
        self.icon = ""
        self.family = "vm"
        self.size = QRectF(0, 0, 100, 50)
        self.bounds = self.size.adjusted(-3, -3, 3, 3)
        self.handles: dict[str, HandleItem] = {}
        self.signature: tuple = ()
        self.badge: tuple[str, str] | None = None  # deploy state: (symbol, colour)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        if not frame:
            self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

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
        return HOST_HEADER if self.kind == "host" else SWITCH_HEADER

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        fill, border, accent = family_colours(self.family)
        selected = self.isSelected()
        rect = self.size
        if lod(option, painter) < OVERVIEW_LOD:
            painter.fillRect(rect, fill if self.frame else accent.lighter(150))
            if self.frame or selected:
                painter.setPen(QPen(SELECTED if selected else border, 0))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(rect)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(SELECTED if selected else border, 2.5 if selected else 1.4)
        if self.frame:
            self._paint_frame(painter, rect, fill, border, accent, pen)
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

    def _paint_frame(self, painter: QPainter, rect: QRectF, fill: QColor, border: QColor, accent: QColor,
                     pen: QPen) -> None:
        header = self.header_height()
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 8, 8)
        band = QPainterPath()
        band.addRoundedRect(QRectF(rect.left(), rect.top(), rect.width(), header), 8, 8)
        band.addRect(QRectF(rect.left(), rect.top() + header / 2, rect.width(), header / 2))
        painter.fillPath(band.simplified(), QBrush(tint(accent, 0.22 if self.kind == "host" else 0.16, fill)))
        painter.setPen(QPen(border.lighter(130), 1))
        painter.drawLine(QPointF(rect.left() + 1, rect.top() + header), QPointF(rect.right() - 1, rect.top() + header))
        icon = header - 10
        painter.drawPixmap(QRectF(rect.left() + 8, rect.top() + 5, icon, icon), icon_pixmap(self.icon, 48),
                           QRectF(0, 0, 48, 48))
        x = rect.left() + icon + 16
        painter.setPen(QColor(canvas_theme().text))
        size = 14 if self.kind == "host" else 12.5
        painter.setFont(font(size, True))
        width = QFontMetricsF(font(size, True)).horizontalAdvance(self.title)
        painter.drawText(QRectF(x, rect.top(), rect.width() - x - 8, header), Qt.AlignmentFlag.AlignVCenter,
                         elide(self.title, size, True, rect.width() - icon - 30))
        grip = QPen(border.lighter(120), 1.3)
        painter.setPen(grip)
        for d in (4.0, 8.0, 12.0):
            painter.drawLine(QPointF(rect.right() - d, rect.bottom() - 2), QPointF(rect.right() - 2, rect.bottom() - d))
        painter.setPen(QColor(canvas_theme().subtext))
        painter.setFont(font(11))
        sub_x = x + width + 10
        if sub_x < rect.right() - 40:
            painter.drawText(QRectF(sub_x, rect.top(), rect.right() - sub_x - 8, header),
                             Qt.AlignmentFlag.AlignVCenter, elide(self.subtitle, 11, False, rect.right() - sub_x - 10))

    def _paint_node(self, painter: QPainter, rect: QRectF, fill: QColor, accent: QColor, pen: QPen) -> None:
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 7, 7)
        outline = QPainterPath()
        outline.addRoundedRect(rect, 7, 7)
        painter.save()
        painter.setClipPath(outline)
        painter.fillRect(QRectF(rect.left(), rect.top(), 6, rect.height()), accent)
        painter.restore()
        icon = min(30.0, rect.height() - 16)
        painter.drawPixmap(QRectF(rect.left() + 16, rect.top() + (rect.height() - icon) / 2, icon, icon),
                           icon_pixmap(self.icon, 48), QRectF(0, 0, 48, 48))
        x = rect.left() + icon + 24
        width = rect.width() - (x - rect.left()) - 6
        painter.setPen(QColor(canvas_theme().text))
        painter.setFont(font(13, True))
        top = rect.top() + rect.height() / 2
        painter.drawText(QRectF(x, top - 18, width, 17), Qt.AlignmentFlag.AlignBottom,
                         elide(self.title, 13, True, width))
        painter.setPen(QColor(canvas_theme().subtext))
        painter.setFont(font(11))
        painter.drawText(QRectF(x, top + 1, width, 16), Qt.AlignmentFlag.AlignTop,
                         elide(self.subtitle, 11, False, width))


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
    "uplink": ("#1b8a8f", 2.0, True),   # vSwitch to the pNIC it uses
    "cable": ("#3c4655", 2.4, False),   # a model Link: pNIC/interface/NIC to a switch port, port to port
    "dlr": ("#4b3fa8", 1.8, True),      # DLR interface to its segment
    "l3": ("#5a6473", 3.0, True),       # an L3 switch's routing engine to the switch its SVIs sit on
}


def link_pen(style: str, selected: bool, detailed: bool) -> QPen:
    return _link_pen(style, selected, detailed, canvas_theme().dark)


@cache
def _link_pen(style: str, selected: bool, detailed: bool, dark: bool) -> QPen:
    colour, width, dashed = LINK_STYLES[style]
    colour = canvas_theme().links.get(style, colour)
    pen = QPen(SELECTED if selected else QColor(colour), width + (1.5 if selected else 0) if detailed else 0)
    if dashed and detailed:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


#: A partial repaint looks at a link in this many pieces, each with its own bounding box, and strokes a piece
#: in the area as this many straight lines.
LINK_PIECES = 4
PIECE_LINES = 6


class LinkItem(QGraphicsItem):
    """A connection drawn between two anchors; ``key`` is a link id or ``net:``/``up:``/``dlr:`` + ids.

    A long curve has a large bounding box, so Qt asks hundreds of links to paint when a small area changes
    (every frame of a drag) though few of them pass through it; and a stroke costs along its whole length even
    where the clip hides it. So a partial repaint looks at the link piece by piece (each piece of the curve lies
    in the box of its own control points) and strokes straight lines only through the pieces in the area."""

    def __init__(self, key: str, style: str, a: str, b: str) -> None:
        super().__init__()
        self.key, self.style, self.a, self.b = key, style, a, b
        self.oid = key
        self.path = QPainterPath()
        self.line = QLineF()
        self.bounds = QRectF()
        self.ends: tuple = ()
        self._pieces: list[list] = []  # [left, top, right, bottom, t0, t1, lines or None] per piece
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # for the exposed rect
        self.setZValue(2)

    def set_ends(self, p1: QPointF, p2: QPointF) -> None:
        ends = (p1.x(), p1.y(), p2.x(), p2.y())
        if ends == self.ends:
            return
        self.ends = ends
        self.prepareGeometryChange()
        path = QPainterPath(p1)
        dy = (p2.y() - p1.y()) * 0.5
        if abs(dy) < 20:
            path.lineTo(p2)
        else:
            path.cubicTo(QPointF(p1.x(), p1.y() + dy), QPointF(p2.x(), p2.y() - dy), p2)
        self.path = path
        self.line = QLineF(p1, p2)
        self.bounds = path.controlPointRect().adjusted(-4, -4, 4, 4)
        self._pieces = []  # worked out only when a partial repaint needs them

    def _controls(self) -> tuple:
        x1, y1, x2, y2 = self.ends
        dy = (y2 - y1) * 0.5
        if abs(dy) < 20:
            return (x1, y1), (x1, y1), (x2, y2), (x2, y2)  # the straight line, as a cubic
        return (x1, y1), (x1, y1 + dy), (x2, y2 - dy), (x2, y2)

    def pieces(self) -> list[list]:
        """The curve cut at equal steps of its parameter, each piece boxed by its own control points (plus the
        pen's reach): a piece of a Bezier curve lies inside the hull of its control points."""
        if not self._pieces:
            controls = self._controls()
            n = LINK_PIECES
            ends = [bezier(controls, i / n) for i in range(n + 1)]
            k = 1 / (3 * n)  # a piece's inner control points sit along the tangents at its ends
            for i, ((ax, ay, adx, ady), (bx, by, bdx, bdy)) in enumerate(zip(ends, ends[1:])):
                xs, ys = (ax, ax + adx * k, bx - bdx * k, bx), (ay, ay + ady * k, by - bdy * k, by)
                self._pieces.append([min(xs) - 5, min(ys) - 5, max(xs) + 5, max(ys) + 5, i / n, (i + 1) / n, None])
        return self._pieces

    def _lines(self, piece: list) -> list[QLineF]:
        if piece[6] is None:
            controls, t0, t1 = self._controls(), piece[4], piece[5]
            points = [bezier(controls, t0 + (t1 - t0) * j / PIECE_LINES) for j in range(PIECE_LINES + 1)]
            piece[6] = [QLineF(p[0], p[1], q[0], q[1]) for p, q in zip(points, points[1:])]
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
        if option.levelOfDetailFromTransform(painter.worldTransform()) < OVERVIEW_LOD:
            painter.setPen(link_pen(self.style, self.isSelected(), False))
            painter.drawLine(self.line)  # overview: a straight hairline is all the eye can tell apart
        elif exposed.contains(self.bounds):
            painter.setPen(link_pen(self.style, self.isSelected(), True))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self.path)
        else:
            left, top, right, bottom = exposed.getCoords()
            lines = [line for piece in self.pieces() if piece[2] >= left and piece[0] <= right
                     and piece[3] >= top and piece[1] <= bottom for line in self._lines(piece)]
            if lines:
                painter.setPen(link_pen(self.style, self.isSelected(), True))
                painter.drawLines(lines)


def bezier(controls: tuple, t: float) -> tuple[float, float, float, float]:
    """Point and derivative (x, y, dx/dt, dy/dt) at ``t`` of the cubic Bezier curve with these control points."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = controls
    u = 1 - t
    a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
    e, f, g = 3 * u * u, 6 * u * t, 3 * t * t
    return (a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3,
            e * (x1 - x0) + f * (x2 - x1) + g * (x3 - x2), e * (y1 - y0) + f * (y2 - y1) + g * (y3 - y2))
