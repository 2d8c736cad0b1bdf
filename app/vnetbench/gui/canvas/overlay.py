"""The predicted path drawn over the canvas: a thick line in the verdict's colour through the objects it
passes, those objects outlined, the pNICs it crosses ringed and labelled, and the verdict in a badge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ..colors import VERDICT_TEXT_COLORS, verdict_color, verdict_text
from .items import font

if TYPE_CHECKING:
    from .scene import DesignScene


def verdict_colour(verdict: Any) -> QColor:
    return QColor(verdict_color(str(verdict)))


def _throughput(mbps: float | None) -> str:
    if mbps is None:
        return ""
    return f"{mbps / 1000:.1f} Gbit/s" if mbps >= 1000 else f"{mbps:.0f} Mbit/s"


class PathOverlay(QGraphicsItem):
    def __init__(self, scene: DesignScene) -> None:
        super().__init__()
        self._scene = scene
        self.prediction: Any = None
        self.points: list[QPointF] = []
        self.rects: list[QRectF] = []
        self.pnics: list[tuple[QPointF, str]] = []
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
        self.points, self.rects, self.pnics = [], [], []
        self.label = ""
        prediction = self.prediction
        if prediction is None:
            self._bounds = QRectF()
            self.update()
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
            route = self._route(previous, item_id) if previous is not None else None
            previous = item_id
            for p in route or [point]:  # along the drawn link between two hops when there is one
                if not self.points or (self.points[-1] - p).manhattanLength() > 1:
                    self.points.append(p)
            rect = scene.node_rect(node)
            if rect is not None and node not in seen_nodes and not scene.nodes[node].frame:
                seen_nodes.add(node)
                self.rects.append(rect.adjusted(-5, -5, 5, 5))
            if oid in pnics:
                self.pnics.append((point, getattr(index.get(oid), "name", "pNIC")))
        for end in (trace.src, trace.dst):  # no path at all: still mark both ends and say so
            rect = scene.node_rect(end)
            if not self.points and rect is not None:
                self.rects.append(rect.adjusted(-5, -5, 5, 5))
        if not self.points and self.rects:
            self.points.append(self.rects[0].center())
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
        width = QFontMetricsF(font(13, True)).horizontalAdvance(self.label) + 30
        bounds = bounds.united(QRectF(self.badge_at, self.badge_at + QPointF(width, 30)))
        self._bounds = bounds
        self.update()

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
        path = QPainterPath(self.points[0])
        for p in self.points[1:]:
            path.lineTo(p)
        line = QColor(self.colour)
        line.setAlpha(200)
        pen = QPen(line, 6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.drawPath(path)
        painter.setPen(QPen(QColor("white"), 1.5))
        painter.setBrush(self.colour)
        for p in self.points:
            painter.drawEllipse(p, 5, 5)
        for p, name in self.pnics:
            painter.setPen(QPen(self.colour, 3))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(p, 13, 13)
            text = f"pNIC {name}"
            painter.setFont(font(11, True))
            w = QFontMetricsF(font(11, True)).horizontalAdvance(text) + 12
            box = QRectF(p.x() + 16, p.y() - 9, w, 18)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self.colour)
            painter.drawRoundedRect(box, 9, 9)
            painter.setPen(self.text_colour)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        painter.setFont(font(13, True))
        w = QFontMetricsF(font(13, True)).horizontalAdvance(self.label) + 24
        box = QRectF(self.badge_at, self.badge_at + QPointF(w, 26))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.colour)
        painter.drawRoundedRect(box, 13, 13)
        painter.setPen(self.text_colour)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.label)
