"""The pieces both levels of the layout use: a laid-out part, line ends, packing a row, spreading line ends.

A ``Part`` is one top-level box (a host, a physical switch...) laid out with everything inside it, in
coordinates relative to its own corner, so it can be placed anywhere and its inside stays as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .diagram import Box, Edge
from .route import Item, Pin, Route

PAD = 12.0        # inside a frame, around its children
BAR_PAD = 8.0     # inside a switch bar, around its portgroups / ports
GAP = 24.0        # between boxes of a row inside a host
TOP_GAP = 48.0    # between boxes of a top-level row
PG_GAP = 10.0     # between portgroups (ports) in a bar
ROW_GAP = 10.0    # between a bar's two rows of ports
PIN_STEP = 7.0    # least room per line ending on one side of a box
VM_ROW_MIN = 1400.0


@dataclass
class Part:
    """A laid-out top-level box: ``boxes`` (the root first) with coordinates relative to their parent, and the
    lines inside it with points relative to the root's corner."""

    root: Box
    boxes: list[Box]
    edges: list[Edge] = field(default_factory=list)
    bus_channel: float | None = None  # hosts: the y of the first band's track (relative)
    pnic_top: float | None = None     # hosts: the top of the pNIC row
    _by_id: dict[str, Box] | None = None

    def offset(self, box: Box) -> tuple[float, float]:
        """``box``'s corner relative to the root's corner."""
        x = y = 0.0
        while box is not self.root:
            x, y = x + box.x, y + box.y
            box = self.by_id()[box.parent]
        return x, y

    def by_id(self) -> dict[str, Box]:
        if self._by_id is None or len(self._by_id) != len(self.boxes):
            self._by_id = {b.id: b for b in self.boxes}
        return self._by_id

    def insert(self, at: float, dy: float) -> None:
        """Open ``dy`` pixels of room at height ``at`` (relative, strictly inside a channel): what lies below it
        moves down, and lines crossing it stretch."""
        if dy <= 0:
            return
        for box in self.boxes[1:]:
            if box.parent == self.root.id and box.y > at:
                box.y += dy
        for edge in self.edges:
            edge.points = [(x, y + dy if y > at else y) for x, y in edge.points]
        if self.bus_channel is not None and self.bus_channel > at:
            self.bus_channel += dy
        if self.pnic_top is not None and self.pnic_top > at:
            self.pnic_top += dy
        self.root.h += dy


@dataclass
class End:
    """A line's end inside a level: the band item, the box it ends on, and which side it leaves from."""

    band: int
    item: Item
    box: Box
    left: float   # the box's left edge, relative to the item
    top: float    # the box's top edge, relative to the item
    side: int


def fit_bar(bar: Box, rows: list[list[Box]]) -> None:
    """Put a bar's children in rows right of its title and size the bar around them."""
    y = BAR_PAD
    right = bar.label_w
    for row in rows:
        if not row:
            continue
        x = bar.label_w
        for child in row:
            child.x, child.y = x, y
            x += child.w + PG_GAP
        right = max(right, x - PG_GAP)
        y += max(c.h for c in row) + ROW_GAP
    used = y - ROW_GAP + BAR_PAD if any(rows) else 0.0
    bar.w = max(bar.label_w + BAR_PAD, right + BAR_PAD)
    bar.h = max(bar.header, used)



def pack(boxes: list[Box], wanted: list[float | None], gap: float) -> None:
    """Place ``boxes`` left to right, each centred on its wanted x where the ones before it allow, then the row
    as a whole centred on what it wants (so a row of VMs on one portgroup fans out around it)."""
    x = None
    for box, want in zip(boxes, wanted):
        left = want - box.w / 2 if want is not None else (x if x is not None else 0.0)
        if x is not None:
            left = max(left, x)
        box.x = left
        x = left + box.w + gap
    offsets = [want - (box.x + box.w / 2) for box, want in zip(boxes, wanted) if want is not None]
    if offsets:
        shift = sum(offsets) / len(offsets)
        for box in boxes:
            box.x += shift


def routes_for(edges: list[Edge], ends, centre, reserved: dict[str, bool]) -> dict[str, Route]:
    """A ``Route`` per edge, with the points where lines leave the same side of a box spread along it."""
    found: dict[str, dict] = {}
    pins: dict[tuple[str, int], list] = {}
    for e in edges:
        a, b = ends(e)
        found[e.id] = {"a": a, "b": b, "edge": e}
        pins.setdefault((a.box.id, a.side), []).append((e.id, "a"))
        pins.setdefault((b.box.id, b.side), []).append((e.id, "b"))
    for (box_id, side), entries in pins.items():
        def toward(entry):
            info = found[entry[0]]
            other = info["edge"].b if entry[1] == "a" else info["edge"].a
            return centre(other)
        if found[entries[0][0]][entries[0][1]].box.kind != "vm":  # a VM keeps its vNICs in order, as the canvas
            entries.sort(key=lambda en: (toward(en), en[0]))
        extra = 1 if side > 0 and reserved.get(box_id) else 0  # a proxy keeps its corners for the band
        n = len(entries) + 2 * extra
        for k, (key, which) in enumerate(entries, start=extra):
            end = found[key][which]
            dx = end.left + end.box.w * (k + 1) / (n + 1)
            dy = end.top + (end.box.h if end.side > 0 else 0.0)
            found[key][which + "_pin"] = Pin(end.band, end.item, dx, dy, end.side)
    return {key: Route(key, info["a_pin"], info["b_pin"]) for key, info in found.items()}
