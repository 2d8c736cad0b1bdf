"""Drop placement: where a palette entry dropped on the canvas goes (where there is room, inside the frame
under the pointer), and the room made for it and for pasted objects (``room``)."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt

from ...layout.parts import BAR_PAD, PG_GAP
from ..catalog import KINDS, Namer, make
from ..commands import Group
from ..editing import EditError
from .geometry import (
    GRID,
    HOST_MIN,
    NOTE_SIZE,
    PAD,
    PHYSICAL_HOST_SIZE,
    ROUTER_MIN_SIZE,
    SWITCH_MIN,
    physical_switch_size,
    snap,
)
from .drawn import Drawn, words
from .items import NodeItem, NoteItem
from .room import command_that_made, make_room, place_pasted
from .following import leaf_size

#: Room left between a dropped object and its neighbours.
GAP = 10.0
#: How far from the drop point the scene looks for room (in grid steps each way).
SEARCH_STEPS = 40


class Dropping:
    """The dropping part of ``DesignScene`` (see ``scene``)."""

    def drop(self, key: str, pos: QPointF) -> str | None:
        """Add a palette entry at scene point ``pos``, where there is room (the drop's code path, also used by
        double-click in the palette); a refused drop says why at ``pos``."""
        kind = KINDS.get(key)
        if kind is None:
            return None
        container = self.container_at(kind.container, pos) if kind.container else None
        if key == "portgroup" and container:
            top_left = self.next_slot(container)
        else:
            top_left = self.room_for(key, pos, container)
        try:
            oid = self.editor.add(key, top_left.x(), top_left.y(), container)
        except EditError as exc:
            self.refuse(str(exc), pos)
            return None
        self.make_room_for([oid])
        self.workbench.select([oid])
        return oid

    def make_room_for(self, oids: list[str], command: Group | None = None) -> None:
        """After a drop, resize or paste of ``oids``: push what they (or their grown frames) now overlap aside,
        as part of the gesture's undo step (``command``, else the one that inserted them)."""
        command = command or command_that_made(self.workbench.undo_stack, oids)
        if command is not None:
            make_room(self, command, oids)

    def place_pasted(self, oids: list[str]) -> None:
        """Pasted or duplicated ``oids``: moved clear of everything, and room made where they went into a frame."""
        command = command_that_made(self.workbench.undo_stack, oids)
        if command is not None:
            place_pasted(self, command, oids, GRID if self.snap_to_grid else 1.0)

    def room_for(self, key: str, pos: QPointF, container: str | None) -> QPointF:
        """Where a dropped ``key`` goes: centred on ``pos`` if there is room, else at the nearest free spot;
        inside a container, below its header (the container grows to hold it)."""
        w, h = self.drop_size(key, container)
        x, y = pos.x() - w / 2, pos.y() - h / 2
        step = GRID if self.snap_to_grid else 1.0
        left = top = -math.inf
        if container is not None and container in self.nodes:
            frame = self.node_rect(container)
            left, top = frame.left() + PAD, frame.top() + self.nodes[container].header_height() + PAD
            left, top = math.ceil(left / step) * step, math.ceil(top / step) * step
        x, y = max(snap(x, step), left), max(snap(y, step), top)
        ignore = {container, *self.ancestors(container)} if container else set()
        candidates = sorted(((dx, dy) for dx in range(-SEARCH_STEPS, SEARCH_STEPS + 1)
                             for dy in range(-SEARCH_STEPS, SEARCH_STEPS + 1)),
                            key=lambda d: (abs(d[0]) + abs(d[1]), abs(d[1]), d))
        for dx, dy in candidates:
            spot = QRectF(x + dx * step, y + dy * step, w, h)
            if spot.left() < left or spot.top() < top:
                continue
            if not self._occupied(spot.adjusted(-GAP, -GAP, GAP, GAP), ignore):
                return spot.topLeft()
        return QPointF(x, y)

    def _occupied(self, rect: QRectF, ignore: set[str]) -> bool:
        return any(isinstance(item, (NodeItem, NoteItem)) and item.oid not in ignore
                   for item in self.items(rect, Qt.ItemSelectionMode.IntersectsItemBoundingRect))

    def next_slot(self, switch_id: str) -> QPointF:
        """Where the next portgroup dropped into a switch goes: right of the last one, in the row beside the
        switch's title (as the layout room fills a bar)."""
        item = self.nodes.get(switch_id) or next(iter(self.instances_of(switch_id)), None)
        rect = item.mapRectToScene(item.size)
        right = rect.left() + max(PAD, item.label_w)
        for pg in self.workbench.document.index.get(switch_id).portgroups:
            pg_rect = self.node_rect(pg.id)
            if pg_rect is not None:
                right = max(right, pg_rect.right() + PG_GAP)
        return QPointF(right, rect.top() + BAR_PAD)

    def drop_size(self, key: str, container: str | None = None) -> tuple[float, float]:
        """The size a palette entry dropped into ``container`` will have, so a drop finds room for all of it: a
        VM, portgroup or DLR is sized by the layout room from the words the new object will show."""
        if key.startswith("host-"):
            return HOST_MIN
        if key.startswith("switch-"):
            return SWITCH_MIN
        if key in ("portgroup", "nsx-dlr") or key.startswith("vm"):
            index = self.workbench.document.index
            host_kind = index.get(container).kind if index.kind(container) == "host" else None
            _, obj = make(key, Namer(self.topology), container=container, host_kind=host_kind)
            kind = "portgroup" if key == "portgroup" else "dlr" if key == "nsx-dlr" else "vm"
            return leaf_size(kind, obj, words(Drawn(obj.id, kind, obj, None, obj.id), self.topology, {}, {}))
        return {"physical-switch": physical_switch_size(8), "physical-router": ROUTER_MIN_SIZE,
                "physical-host": PHYSICAL_HOST_SIZE, "note": NOTE_SIZE}[key]
