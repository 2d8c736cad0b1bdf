"""The canvas gestures, one class each (after orange-canvas-core's ``document/interactions.py``).

A press on the canvas starts an interaction; the scene hands it every mouse move and the release, and it
alone holds the gesture's state. Items move ahead of the model while the button is down; the release turns
the whole gesture into one editor command (one undo step). ``cancel`` ends a gesture without an edit and
puts the items back (a lost release, say, when a second press arrives first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsPathItem, QGraphicsRectItem

from ..editing import EditError, connectable
from .geometry import snap
from .items import HandleItem, NodeItem, NoteItem

if TYPE_CHECKING:
    from .scene import DesignScene

#: How far above everything the gesture's own drawings sit.
Z_DRAG = 11
LINK_PEN = QColor("#1e6fff")


class Interaction:
    """A gesture in progress: created on press, fed moves, ended by ``release`` or ``cancel``."""

    def __init__(self, scene: DesignScene, press: QPointF) -> None:
        self.scene, self.press = scene, press

    def move(self, pos: QPointF) -> None:
        """The mouse moved with the button down."""

    def release(self, pos: QPointF) -> None:
        """The button came up: make the edit."""

    def cancel(self) -> None:
        """End without an edit."""


class MoveSelection(Interaction):
    """Drag the selected nodes (and everything they hold); dropping one into a host or switch reparents it."""

    def __init__(self, scene: DesignScene, press: QPointF, pressed: QGraphicsItem, additive: bool) -> None:
        super().__init__(scene, press)
        self.pressed, self.additive = pressed, additive  # a plain click without a drag selects only ``pressed``
        primary = [i for i in scene.selectedItems() if isinstance(i, (NodeItem, NoteItem))]
        ids = {i.oid for i in primary}
        self.items = list(primary)  # everything that moves: the selection and what it holds
        for item in primary:
            for cid in scene.descendants(item.oid):
                if cid not in ids and cid in scene.nodes:
                    ids.add(cid)
                    self.items.append(scene.nodes[cid])
        # what the person grabbed (may change container): not the ones inside another grabbed frame
        self.primary = [i for i in primary if not any(i.oid in scene.descendants(p.oid) for p in primary if p is not i)]
        self.origins = {i.oid: i.pos() for i in self.items}
        self.started = False

    def move(self, pos: QPointF) -> None:
        delta = pos - self.press
        if not self.started and delta.manhattanLength() < QApplication.startDragDistance():
            return
        self.started = True
        if self.scene.snap_to_grid and self.primary:
            lead = self.origins[self.primary[0].oid]
            delta = QPointF(snap(lead.x() + delta.x()) - lead.x(), snap(lead.y() + delta.y()) - lead.y())
        self.drag_by(delta)

    def drag_by(self, delta: QPointF) -> None:
        """Move the items to their start + ``delta`` and re-route their links (one frame of the drag)."""
        for item in self.items:
            item.setPos(self.origins[item.oid] + delta)
        self.scene.reroute(self.origins)
        self.scene.overlay.refresh()

    def release(self, pos: QPointF) -> None:
        scene = self.scene
        if not self.started:
            if not self.additive and len(scene.selectedItems()) > 1:
                scene.clearSelection()
                self.pressed.setSelected(True)
            return
        positions = {item.oid: (item.pos().x(), item.pos().y()) for item in self.items}
        moving = set(positions)
        containers: dict[str, str | None] = {}
        index = scene.workbench.document.index
        for item in self.primary:
            what = scene.container_kind(item.oid)
            if not what:
                continue
            new = scene.container_at(what, item.mapRectToScene(item.size).center(), moving)
            parent = index.parent(item.oid)
            old = parent.id if parent is not None and what == "switch" else getattr(index.get(item.oid), "host", None)
            if new != old and (new is not None or what == "host"):
                containers[item.oid] = new
        names = [scene.label(getattr(i, "ref", i.oid)) for i in self.primary]  # a proxy is named by its switch
        scene.editor.move(positions, containers, f"Move {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}")
        scene.sync()

    def cancel(self) -> None:
        if self.started:
            self.drag_by(QPointF(0, 0))


class ResizeFrame(Interaction):
    """Drag a host's or switch's bottom-right grip; the frame never gets smaller than what it holds."""

    def __init__(self, scene: DesignScene, press: QPointF, item: NodeItem) -> None:
        super().__init__(scene, press)
        self.item, self.size = item, QRectF(item.size)

    def move(self, pos: QPointF) -> None:
        delta = pos - self.press
        w, h = self.size.width() + delta.x(), self.size.height() + delta.y()
        if self.scene.snap_to_grid:
            origin = self.item.pos()
            w, h = snap(origin.x() + w) - origin.x(), snap(origin.y() + h) - origin.y()
        self._show(max(w, 120.0), max(h, 60.0))

    def _show(self, w: float, h: float) -> None:
        self.item.set_size(w, h)
        if self.item.kind == "host":
            self.scene._place_handles(self.item)
        self.scene.reroute([self.item.oid, *self.scene.children_of(self.item.oid)])

    def release(self, pos: QPointF) -> None:
        item, stack = self.item, self.scene.workbench.undo_stack
        if self.scene.editor.resize(item.oid, item.size.width(), item.size.height(), item.pos().x(), item.pos().y()):
            self.scene.make_room_for([item.oid], stack.command(stack.index() - 1))
        self.scene.sync()

    def cancel(self) -> None:
        self._show(self.size.width(), self.size.height())


class DrawLink(Interaction):
    """Drag from a connection handle (a vNIC, pNIC, port...) to what it should connect to.

    While the button is down a dashed line follows the mouse, and the visible objects the handle can connect
    to are outlined: the gesture shows itself (a pNIC outlines its host's vSwitches and the free switch ports).
    """

    def __init__(self, scene: DesignScene, press: QPointF, source: HandleItem) -> None:
        super().__init__(scene, press)
        self.source = source
        self.line = QGraphicsPathItem()
        self.line.setPen(QPen(LINK_PEN, 2, Qt.PenStyle.DashLine))
        self.line.setZValue(Z_DRAG)
        scene.addItem(self.line)
        self.hints: list[QGraphicsRectItem] = []
        self.started = False

    def move(self, pos: QPointF) -> None:
        if not self.started:
            if (pos - self.press).manhattanLength() < QApplication.startDragDistance():
                return
            self.started = True
            self._outline_targets()
        path = QPainterPath(self.source.scenePos())
        path.lineTo(pos)
        self.line.setPath(path)

    def _outline_targets(self) -> None:
        """Outline what the link may end on, among the objects in view (a big design has too many to look at)."""
        scene = self.scene
        index = scene.workbench.document.index
        area = scene.visible_rect()
        pen = QPen(LINK_PEN, 1.5, Qt.PenStyle.DotLine)
        for item in scene.items(area):
            if item is self.source or not isinstance(item, (HandleItem, NodeItem)) or not item.isVisible():
                continue
            if connectable(index, self.source.oid, item.oid):
                rect = item.mapRectToScene(item.size if isinstance(item, NodeItem) else item.shape().boundingRect())
                hint = QGraphicsRectItem(rect.adjusted(-4, -4, 4, 4))
                hint.setPen(pen)
                hint.setZValue(Z_DRAG)
                hint.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
                scene.addItem(hint)
                self.hints.append(hint)

    def _clean_up(self) -> None:
        for item in [self.line, *self.hints]:
            self.scene.removeItem(item)
        self.hints = []

    def release(self, pos: QPointF) -> None:
        self._clean_up()
        scene = self.scene
        if (pos - self.press).manhattanLength() < QApplication.startDragDistance():
            scene.clearSelection()  # a click, not a drag: select the vNIC, pNIC or port
            self.source.setSelected(True)
            return
        target = next((i for i in scene.items(pos) if isinstance(i, (HandleItem, NodeItem)) and i is not self.source),
                      None)
        if target is None:
            scene.refuse("drop the link on a portgroup, a switch, a pNIC or a port", pos)
            return
        try:
            text = scene.editor.connect(self.source.oid, scene.target_for(self.source, target))
        except EditError as exc:
            scene.refuse(str(exc), pos)
            return
        scene.workbench.status.emit(text)

    def cancel(self) -> None:
        self._clean_up()
