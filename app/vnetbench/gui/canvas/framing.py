"""Fitting frames: a host or switch frame sized to hold what it holds, and the connection chips along it."""

from __future__ import annotations

from PySide6.QtCore import QRectF

from ...layout import content as layout_content
from ...layout.parts import BAR_PAD
from ...layout.parts import PAD as LAYOUT_PAD
from .geometry import HOST_MIN, PAD, SWITCH_MIN
from .items import NodeItem
from .slicing import Slices

#: Room between connection chips placed by the canvas (not by the automatic layout).
CHIP_GAP = 6.0


def same_box(rect: QRectF, box) -> bool:
    """Whether an item's scene rect is the layout's box (to half a pixel)."""
    return (abs(rect.x() - box.x) < 0.5 and abs(rect.y() - box.y) < 0.5 and abs(rect.width() - box.w) < 0.5
            and abs(rect.height() - box.h) < 0.5)


class Framing:
    """The framing part of ``DesignScene`` (see ``scene``)."""

    def ancestors_drawn(self, key: str) -> list[str]:
        """The frames around a drawn item, innermost first."""
        out = []
        while key in self.parent_of:
            key = self.parent_of[key]
            out.append(key)
        return out

    def _place_handles(self, item: NodeItem) -> None:
        """Handles where the automatic layout put their boxes while the item is where it put it (drawn as chips
        with their details), else evenly along the item's edge."""
        rect = item.mapRectToScene(item.size)
        box = self.arranged.get(item.oid)
        boxes = [self.arranged.get(hid) for hid in item.handles]
        if box is not None and all(boxes) and same_box(rect, box):
            for handle, b in zip(item.handles.values(), boxes):
                handle.setPos(b.x + b.w / 2 - box.x, b.y + b.h / 2 - box.y)
                handle.set_chip(QRectF(-b.w / 2, -b.h / 2, b.w, b.h), handle.lines)
            return
        n = len(item.handles)
        local = item.size
        bottom = getattr(item, "handle_edge", "bottom") == "bottom"
        y = local.bottom() if bottom else local.top()
        chips = self.chips_of(item)
        left = local.left() + (CHIP_GAP if bottom else max(item.label_w, 40.0))
        if chips and sum(c.w for c in chips) + CHIP_GAP * n <= local.right() - left:
            # chips in a row inside the box: along a frame's bottom, right of a box's title (as the layout draws)
            x = left
            for handle, chip in zip(item.handles.values(), chips):
                centre_y = local.bottom() - CHIP_GAP - chip.h / 2 if bottom else local.center().y()
                handle.setPos(x + chip.w / 2, centre_y)
                handle.set_chip(QRectF(-chip.w / 2, -chip.h / 2, chip.w, chip.h), handle.lines)
                x += chip.w + CHIP_GAP
            return
        for i, handle in enumerate(item.handles.values()):
            handle.set_chip(None, handle.lines)  # no room for chips: a marker, its details in the tooltip
            handle.setPos(local.left() + local.width() * (i + 1) / (n + 1), y)

    @staticmethod
    def chips_of(item: NodeItem) -> list:
        """The layout room's boxes for an item's connection chips (its pNICs, ports, interfaces; none for a
        VM's vNICs, which are dots on its edge)."""
        return [layout_content.leaf("", "", handle.kind, handle.full_label, handle.lines)
                for handle in item.handles.values() if handle.kind != "vnic"]

    def children_of(self, oid: str) -> list[str]:
        """What a frame holds: a host its switches (and proxies), VMs and DLR instances, a switch its portgroups."""
        return [key for key in self.held.get(oid, []) if key in self.nodes]

    def descendants(self, oid: str) -> list[str]:
        out, todo = [], self.children_of(oid)
        while todo:
            child = todo.pop()
            out.append(child)
            todo += self.children_of(child)
        return out

    def _fit_frames(self) -> None:
        """Size each frame to hold its children (switches first, then hosts), then put their handles on."""
        for _ in self._fit_frames_steps():
            pass

    def _fit_frames_steps(self, clock: Slices | None = None):
        """``_fit_frames``, yielding (done, total) whenever ``clock``'s slice is used up (see ``sync_gradually``)."""
        clock = clock or Slices()
        places = self.topology.layout.places
        held = self.held
        switches = [oid for oid, item in self.nodes.items() if item.kind == "switch"]
        total = len(switches) + len(self.topology.hosts)
        for done, oid in enumerate(switches):
            self._fit(oid, held.get(oid, []), SWITCH_MIN, places)
            if clock.due():
                yield done, total
                clock.restart()
        for done, host in enumerate(self.topology.hosts, len(switches)):
            chips = self.chips_of(self.nodes[host.id])  # a row of pNIC chips along the bottom, under what it holds
            room = max((c.h for c in chips), default=0.0) + 2 * CHIP_GAP if chips else 22.0
            self._fit(host.id, held.get(host.id, []), HOST_MIN, places, extra_bottom=room)
            self._place_handles(self.nodes[host.id])
            if clock.due():
                yield done, total
                clock.restart()

    def _fit(self, oid: str, children: list[str], minimum: tuple[float, float], places, extra_bottom: float = 0) -> None:
        """A frame's size: the one its place asks for, grown to hold its children. A frame the automatic layout
        sized holds them exactly (its pNICs inside); one drawn by hand keeps a margin and its kind's minimum."""
        item = self.nodes[oid]
        place = places.get(oid)
        arranged = oid in self.arranged
        pad = BAR_PAD if arranged and item.kind == "switch" else LAYOUT_PAD if arranged else PAD
        extra = 0.0 if arranged else extra_bottom
        w = max(0.0 if arranged else minimum[0], place.w or 0 if place else 0)
        h = max(0.0 if arranged else minimum[1], place.h or 0 if place else 0)
        origin = item.pos()
        for cid in children:
            child = self.nodes.get(cid)
            if child is not None:
                r = child.mapRectToScene(child.size) if arranged else child.sceneBoundingRect()
                w = max(w, r.right() - origin.x() + pad)
                h = max(h, r.bottom() - origin.y() + pad + extra)
        item.set_size(w, h)
