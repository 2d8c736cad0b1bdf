"""Mouse dispatch: a press starts the gesture it is on (``interactions``), moves and the release go to it;
a refused gesture says why where the mouse is."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QGraphicsSceneMouseEvent

from .interactions import DrawLink, MoveSelection, ResizeFrame
from .items import LinkItem, HandleItem, NodeItem, NoteItem


class Gestures:
    """The gestures part of ``DesignScene`` (see ``scene``)."""

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        if self.interaction is not None:  # its release never came (a lost mouse grab): drop it
            self.interaction.cancel()
            self.interaction = None
        pos = event.scenePos()
        item = self._item_at(pos)
        ctrl = bool(event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))
        if isinstance(item, HandleItem) and not ctrl:
            self.interaction = DrawLink(self, pos, item)
        elif isinstance(item, NodeItem) and item.frame and not ctrl and self.in_grip(item, pos):
            self.interaction = ResizeFrame(self, pos, item)
        elif isinstance(item, (NodeItem, NoteItem, LinkItem)):
            if ctrl:
                item.setSelected(not item.isSelected())
            elif not item.isSelected():
                self.clearSelection()
                item.setSelected(True)
            if not isinstance(item, LinkItem) and item.isSelected():
                self.interaction = MoveSelection(self, pos, item, ctrl)
        else:
            super().mousePressEvent(event)
            return
        event.accept()

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.interaction is not None:
            self.interaction.move(event.scenePos())
            event.accept()
            return
        if event.buttons() == Qt.MouseButton.NoButton:
            self._hover_cursor(event)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.interaction is not None:
            interaction, self.interaction = self.interaction, None
            interaction.release(event.scenePos())
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _hover_cursor(self, event: QGraphicsSceneMouseEvent) -> None:
        """A cross over a connection handle (drag to connect), a diagonal arrow over a frame's resize grip."""
        view = event.widget().parentWidget() if event.widget() is not None else None
        if view is None:
            return
        item = self._item_at(event.scenePos())
        if isinstance(item, HandleItem):
            view.viewport().setCursor(Qt.CursorShape.CrossCursor)
        elif isinstance(item, NodeItem) and item.frame and self.in_grip(item, event.scenePos()):
            view.viewport().setCursor(Qt.CursorShape.SizeFDiagCursor)
        elif not getattr(view, "panning", False):
            view.viewport().unsetCursor()

    def refuse(self, message: str, pos: QPointF) -> None:
        """A gesture that cannot be done: say why, in the status bar and where the mouse is."""
        self.workbench.status.emit(message)
        self.refused.emit(message, pos)

    def target_for(self, source: HandleItem, target) -> str:
        """Dropping a cable end on a physical switch's body plugs it into the nearest free port."""
        if isinstance(target, NodeItem) and target.kind == "physical_switch" and source.kind != "vnic":
            free = [h for h in target.handles.values() if not h.connected]
            if free:
                return min(free, key=lambda h: (h.scenePos() - source.scenePos()).manhattanLength()).oid
        return target.oid

    def nudge(self, dx: float, dy: float) -> bool:
        """Move the selection (and what it holds) by (dx, dy): the arrow keys. A run of presses is one undo step."""
        grabbed = [oid for oid in self.selected_ids() if oid in self.nodes]
        moving: dict[str, tuple[float, float]] = {}
        for oid in grabbed:
            for moved in [oid, *self.descendants(oid)]:
                item = self.nodes[moved]
                moving.setdefault(moved, (item.pos().x() + dx, item.pos().y() + dy))
        return bool(moving) and self.editor.nudge(moving, grabbed)
