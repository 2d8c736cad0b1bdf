"""Hit-testing and containment: what is under a point, which frame can hold what, and where things are."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF

from ...model.objects import MULTI_HOST_SWITCHES
from ..editing import describe
from .items import LinkItem, HandleItem, NodeItem, NoteItem

GRIP = 14.0


class Containment:
    """The containment part of ``DesignScene`` (see ``scene``)."""

    def container_at(self, what: str, pos: QPointF, exclude: set[str] = frozenset()) -> str | None:
        """The innermost frame at ``pos`` that can hold ``what`` ("host" or "switch" container kinds)."""
        for item in self.items(pos):
            if not isinstance(item, NodeItem) or item.oid in exclude:
                continue
            if what == "host" and item.kind == "host":
                return item.oid
            if what == "switch" and item.kind == "switch":
                return item.ref  # a proxy stands for its distributed switch
        return None

    def container_kind(self, oid: str) -> str:
        """What a dragged object may be dropped into."""
        index = self.workbench.document.index
        kind, obj = index.kind(oid), index.get(oid)
        if kind == "portgroup":
            return "switch"
        if kind == "vm" or (kind == "switch" and obj.kind not in MULTI_HOST_SWITCHES):
            return "host"
        return ""

    def _item_at(self, pos: QPointF):
        """The item a press at ``pos`` grabs: a connection handle wins over whatever is drawn above it."""
        items = self.items(pos)
        for item in items:
            if isinstance(item, HandleItem) and item.isVisible():
                return item
        for item in items:
            if isinstance(item, (HandleItem, NodeItem, NoteItem, LinkItem)) and item.isVisible():
                return item
        return None

    @staticmethod
    def in_grip(item: NodeItem, pos: QPointF) -> bool:
        """Whether ``pos`` is on a frame's resize grip (its bottom-right corner)."""
        corner = item.mapToScene(item.size.bottomRight())
        return 0 <= corner.x() - pos.x() <= GRIP and 0 <= corner.y() - pos.y() <= GRIP

    def ancestors(self, oid: str) -> list[str]:
        """The frames around ``oid``: a portgroup's switch and that switch's host, a VM's host."""
        index = self.workbench.document.index
        out: list[str] = []
        while True:
            kind, obj = index.kind(oid), index.get(oid)
            parent = index.parent(oid).id if kind == "portgroup" else getattr(obj, "host", None) if kind in (
                "switch", "vm") else None
            if not parent:
                return out
            out.append(parent)
            oid = parent

    def label(self, oid: str) -> str:
        """How an object on the canvas is named in messages and the history."""
        return describe(self.workbench.document.index, oid) if oid in self.workbench.document.index else "note"

    def visible_rect(self) -> QRectF:
        """The part of the scene the first view shows (everything when there is no view)."""
        views = self.views()
        if not views:
            return self.itemsBoundingRect()
        view = views[0]
        return view.mapToScene(view.viewport().rect()).boundingRect()

    def node_rect(self, oid: str) -> QRectF | None:
        item = self.nodes.get(oid)
        return item.mapRectToScene(item.size) if item is not None else None

    def design_rect(self) -> QRectF:
        """The bounding box of every object drawn (empty for an empty design)."""
        self.flush()
        inner = self.inner  # (inside their frames, which hold them: 10,000 VMs need not be asked)
        rects = [item.sceneBoundingRect() for key, item in self.nodes.items() if key not in inner]
        if not rects:
            return QRectF()
        left, top = min(r.left() for r in rects), min(r.top() for r in rects)
        right, bottom = max(r.right() for r in rects), max(r.bottom() for r in rects)
        return QRectF(left, top, right - left, bottom - top)
