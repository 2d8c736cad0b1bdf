"""The predicted path drawn over the canvas: a thick line in the verdict's colour through the objects it
passes, those objects outlined, the pNICs it crosses labelled, and the verdict in a badge.

The line runs along the links drawn between hops; where none is drawn (a portgroup to its switch's pNIC, a
port to an SVI of the next switch) it leaves the object straight down or up to the edge of the frame that
holds it, runs along that edge to the link between the frames, and comes in the same way, so it never cuts
diagonally through labels. It stops at an object's outline and starts again on its far side. The badge is
drawn by the view (``badge_rect``, ``paint_badge``), kept inside it however the canvas is scrolled or zoomed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from ..colors import VERDICT_TEXT_COLORS, verdict_color, verdict_text
from .items import HandleItem, font

if TYPE_CHECKING:
    from .scene import DesignScene


def verdict_colour(verdict: Any) -> QColor:
    return QColor(verdict_color(str(verdict)))


def _throughput(mbps: float | None) -> str:
    if mbps is None:
        return ""
    return f"{mbps / 1000:.1f} Gbit/s" if mbps >= 1000 else f"{mbps:.0f} Mbit/s"


#: The least room between the badge and the view's edge, in pixels.
BADGE_MARGIN = 8
#: How far below (or above) two boxes side by side the line runs between them.
ELBOW = 10


class PathOverlay(QGraphicsObject):
    #: The path was drawn again (shown, cleared or moved): views redraw its badge.
    moved = Signal()

    def __init__(self, scene: DesignScene) -> None:
        super().__init__()
        self._scene = scene
        self.prediction: Any = None
        self.points: list[QPointF] = []  # every point the line passes, in order
        self.lines: list[list[QPointF]] = []  # the line's pieces: it stops at an outlined object's edge
        self.rects: list[QRectF] = []
        self.pnics: list[tuple[QPointF, str]] = []  # where each pNIC's label starts, and its name
        self.rings: list[QPointF] = []  # pNICs drawn as a dot (no box to outline): ringed
        self.badge_at = QPointF()
        self.label = ""
        self.colour = QColor("#6f7782")
        self.text_colour = QColor("white")
        self._bounds = QRectF()
        self.setZValue(10)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)

    @property
    def highlighted_ids(self) -> list[str]:
        """The object ids the drawn path passes (what a test or a dock can check)."""
        if self.prediction is None:
            return []
        return [hop.object_id for hop in self.prediction.forward.hops if hop.object_id]

    def show_prediction(self, prediction: Any) -> None:
        self.prediction = prediction
        self.refresh()

    def refresh(self) -> None:
        self.prepareGeometryChange()
        was_shown = bool(self.points)
        self.points, self.lines, self.rects, self.pnics, self.rings = [], [], [], [], []
        self.label = ""
        prediction = self.prediction
        if prediction is None:
            self._bounds = QRectF()
            self.update()
            if was_shown:
                self.moved.emit()
            return
        scene = self._scene
        trace = prediction.forward
        self.colour = verdict_colour(prediction.verdict)
        index = scene.workbench.document.index
        seen_nodes: set[str] = set()
        pnics = set(trace.pnics)
        previous: str | None = None
        host: str | None = None  # where the path is: an object drawn once per host is drawn there
        for hop in trace.hops:
            oid = hop.object_id
            if not oid:
                continue
            item_id = self._drawn(oid, host)
            if item_id is None:  # a sub-object the canvas does not draw: use its parent
                parent = index.parent(oid)
                item_id = self._drawn(parent.id, host) if parent is not None else None
            if item_id is None:
                continue
            node = scene.node_of(item_id)
            host = self._host_of(node) or host
            if scene.nodes[node].frame and item_id == node:
                continue  # a host or switch frame: the line runs from its portgroup to its pNIC
            point = scene.anchor(item_id)
            if previous is None:
                self._extend([point] if point is not None else [])
            elif previous != item_id:
                self._extend(self._route(previous, item_id) or self._around(previous, item_id))
            previous = item_id
            rect = scene.node_rect(node)
            if rect is not None and node not in seen_nodes and not scene.nodes[node].frame:
                seen_nodes.add(node)
                self.rects.append(rect.adjusted(-5, -5, 5, 5))
            chip = self._chip(item_id)
            if chip is not None and item_id not in seen_nodes:  # a port, pNIC or interface drawn as a box
                seen_nodes.add(item_id)
                self.rects.append(chip.adjusted(-3, -3, 3, 3))
            if oid in pnics and point is not None:
                name = getattr(index.get(oid), "name", "pNIC")
                box = chip if chip is not None else rect if item_id == node else None
                if box is not None:  # outlined: its label beside it, over nothing it names
                    self.pnics.append((QPointF(box.right() + 9, box.center().y()), name))
                else:
                    self.rings.append(point)
                    self.pnics.append((QPointF(point.x() + 16, point.y()), name))
        for end in (trace.src, trace.dst):  # no path at all: still mark both ends and say so
            rect = scene.node_rect(end)
            if not self.points and rect is not None:
                self.rects.append(rect.adjusted(-5, -5, 5, 5))
        if not self.points and self.rects:
            self._extend([self.rects[0].center()])
        estimate = getattr(trace, "estimate", None)
        speed = _throughput(getattr(estimate, "throughput_mbps", None))
        verdict = str(prediction.verdict)
        self.text_colour = QColor(VERDICT_TEXT_COLORS.get(verdict, "#ffffff"))
        self.label = f"{verdict_text(verdict)}  ·  {speed}" if speed else verdict_text(verdict)
        first = self.rects[0] if self.rects else QRectF(self.points[0] if self.points else QPointF(), QPointF())
        top = min([r.top() for r in self.rects] + [p.y() for p in self.points] + [first.top()])
        for item in scene.items(first.center()):  # above the host frame, not over its title
            if getattr(item, "kind", None) == "host":
                top = min(top, item.mapRectToScene(item.size).top())
        self.badge_at = QPointF(first.left(), top - 34)
        bounds = QRectF()
        for p in self.points:
            bounds = bounds.united(QRectF(p, p).adjusted(-40, -40, 40, 40))
        for r in self.rects:
            bounds = bounds.united(r.adjusted(-6, -6, 6, 6))
        for at, name in self.pnics:
            width = QFontMetricsF(font(11, True)).horizontalAdvance(f"pNIC {name}") + 14
            bounds = bounds.united(QRectF(at.x(), at.y() - 10, width, 20))
        self._bounds = bounds
        self.update()
        self.moved.emit()

    def _drawn(self, oid: str, host: str | None) -> str | None:
        """The item drawn for ``oid``: itself, or its instance in ``host`` (a vDS proxy or its portgroup)."""
        scene = self._scene
        if scene.anchor_item(oid) is not None:
            return oid
        instances = scene.instances_of(oid)
        chosen = next((i for i in instances if self._host_of(i.oid) == host), instances[0] if instances else None)
        return chosen.oid if chosen is not None else None

    def _host_of(self, key: str) -> str | None:
        scene = self._scene
        while key in scene.parent_of:
            key = scene.parent_of[key]
        return key if scene.nodes.get(key) is not None and scene.nodes[key].kind == "host" else None

    def _extend(self, route: list[QPointF]) -> None:
        """Add ``route`` to the line: continued where it starts at the line's end, else a new piece (the line
        stopped at one side of an outlined object and goes on from another)."""
        if not route:
            return
        if not self.lines or (self.lines[-1][-1] - route[0]).manhattanLength() > 1:
            self.lines.append([route[0]])
        line = self.lines[-1]
        for p in route:
            if (line[-1] - p).manhattanLength() > 1:
                line.append(p)
            if not self.points or (self.points[-1] - p).manhattanLength() > 1:
                self.points.append(p)

    def _holders(self, key: str) -> list[str]:
        """``key``, the node it is a handle of, and the frames around that node, innermost first."""
        scene = self._scene
        chain = [key]
        node = scene.node_of(key)
        while node not in chain:
            chain.append(node)
            node = scene.parent_of.get(node, node)
        return chain

    def _around(self, a: str, b: str) -> list[QPointF]:
        """No link drawn between hops ``a`` and ``b``: through the nearest link between what holds them,
        leaving and entering each frame by its edge; else a right-angled elbow, never a diagonal."""
        scene = self._scene
        ups_a, ups_b = self._holders(a), self._holders(b)
        pairs = sorted(((i, j) for i in range(len(ups_a)) for j in range(len(ups_b))), key=sum)
        for i, j in pairs:
            link = self._route(ups_a[i], ups_b[j]) if ups_a[i] != ups_b[j] else None
            if link:
                return self._to_edge(a, link[0]) + link + self._to_edge(b, link[-1])[::-1]
        start, end = scene.anchor(a), scene.anchor(b)
        if start is None or end is None:
            return []
        start, end = self._edge(a, end) or start, self._edge(b, start) or end
        if abs(start.y() - end.y()) < 1:  # side by side: under (or over) both, not along their edges
            below = start.y() >= (self._chip(a) or QRectF(start, start)).center().y()
            middle = start.y() + (ELBOW if below else -ELBOW)
        else:
            middle = (start.y() + end.y()) / 2
        return [start, QPointF(start.x(), middle), QPointF(end.x(), middle), end]

    def _chip(self, key: str) -> QRectF | None:
        """The box a handle is drawn as (a port, a pNIC, an interface), in the scene; None for a dot or a node."""
        item = self._scene.anchor_item(key)
        if isinstance(item, HandleItem) and item.chip is not None:
            return item.mapRectToScene(item.chip)
        return None

    def _edge(self, key: str, toward: QPointF) -> QPointF | None:
        """Where a line toward ``toward`` leaves ``key``: the middle of the top or bottom edge of its box."""
        chip = self._chip(key)
        if chip is not None:
            return QPointF(chip.center().x(), chip.top() if toward.y() < chip.center().y() else chip.bottom())
        return self._scene.anchor(key, toward)

    def _to_edge(self, key: str, joint: QPointF) -> list[QPointF]:
        """From ``key``'s edge facing ``joint`` (a link's end on the edge of a frame around it) straight across
        to that edge's line; the link goes on from ``joint``."""
        start = self._edge(key, joint)
        if start is None or (start - joint).manhattanLength() <= 1:
            return []
        return [start, QPointF(start.x(), joint.y())]

    def badge_rect(self, viewport: QRectF, to_view: Callable[[QPointF], QPointF]) -> QRectF | None:
        """Where the verdict's badge goes in the view (``to_view`` maps a scene point into it): above the
        path's first object, moved inside ``viewport`` when that is out of sight."""
        if self.prediction is None or not self.points:
            return None
        width = QFontMetricsF(font(13, True)).horizontalAdvance(self.label) + 24
        at = to_view(self.badge_at)
        box = QRectF(at.x(), at.y(), width, 26)
        inside = viewport.adjusted(BADGE_MARGIN, BADGE_MARGIN, -BADGE_MARGIN, -BADGE_MARGIN)
        box.moveLeft(max(inside.left(), min(box.left(), inside.right() - box.width())))
        box.moveTop(max(inside.top(), min(box.top(), inside.bottom() - box.height())))
        return box

    def paint_badge(self, painter: QPainter, box: QRectF) -> None:
        """The verdict (and the estimated throughput) in a pill of the verdict's colour."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(font(13, True))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.colour)
        painter.drawRoundedRect(box, 13, 13)
        painter.setPen(self.text_colour)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.label)

    def _route(self, a: str, b: str) -> list[QPointF] | None:
        """The points of the link drawn between two hops, from ``a``'s end to ``b``'s."""
        scene = self._scene
        for key in scene.touching.get(scene.node_of(a), ()):
            link = scene.links.get(key)
            if link is None or not link.points or {link.a, link.b} != {a, b}:
                continue
            points = [QPointF(x, y) for x, y in link.points]
            return points if link.a == a else points[::-1]
        return None

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if self.prediction is None or not self.points:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        glow = QColor(self.colour)
        glow.setAlpha(60)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for rect in self.rects:
            painter.setPen(QPen(glow, 8))
            painter.drawRoundedRect(rect, 9, 9)
            painter.setPen(QPen(self.colour, 2.5))
            painter.drawRoundedRect(rect, 9, 9)
        path = QPainterPath()
        for line in self.lines:
            path.moveTo(line[0])
            for p in line[1:]:
                path.lineTo(p)
        colour = QColor(self.colour)
        colour.setAlpha(200)
        painter.setPen(QPen(colour, 6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
        painter.drawPath(path)
        painter.setPen(QPen(QColor("white"), 1.5))
        painter.setBrush(self.colour)
        for line in self.lines:  # a dot where the line meets an object
            painter.drawEllipse(line[0], 5, 5)
            painter.drawEllipse(line[-1], 5, 5)
        painter.setPen(QPen(self.colour, 3))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for p in self.rings:
            painter.drawEllipse(p, 13, 13)
        painter.setFont(font(11, True))
        for at, name in self.pnics:
            text = f"pNIC {name}"
            box = QRectF(at.x(), at.y() - 9, QFontMetricsF(font(11, True)).horizontalAdvance(text) + 12, 18)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self.colour)
            painter.drawRoundedRect(box, 9, 9)
            painter.setPen(self.text_colour)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
