"""The canvas's side of the layout room: places from the automatic layout, and the layout remembered.

``fill_layout`` gives every object a design file does not place the place the automatic layout
(``vnetbench.layout.arrange``, the one every export draws) gives it; a design with no places at all opens exactly
as it exports. Arrange > Auto Layout (``auto_layout``) replaces every place with the automatic layout's, as one
undo step. Both remember the layout they used, so the scene draws its routes (and the pNIC and port chips where
it put them) for every box still where it put it.
"""

from __future__ import annotations

import weakref

from ...layout import Diagram, arrange
from ...model import Place, Topology

#: Boxes the canvas draws as connection handles on their owner, not as placed items.
HANDLE_KINDS = frozenset({"pnic", "port", "router_interface", "host_nic", "note"})

_remembered: dict[int, tuple[weakref.ref, Diagram]] = {}


def remember(topology: Topology, diagram: Diagram) -> None:
    _remembered.clear()  # one design per window: the last layout is the one that matters
    _remembered[id(topology)] = (weakref.ref(topology), diagram)


def remembered(topology: Topology) -> Diagram | None:
    """The automatic layout last used for ``topology`` (by ``fill_layout`` or ``auto_layout``), if any."""
    found = _remembered.get(id(topology))
    if found is None or found[0]() is not topology:
        return None
    return found[1]


def auto_places(diagram: Diagram, old: dict[str, Place] | None = None) -> dict[str, Place]:
    """A place (corner and size) for every box the canvas places, keeping the colours ``old`` places had."""
    old = old or {}
    out = {}
    for box in diagram.boxes:
        if box.kind in HANDLE_KINDS:
            continue
        colour = old[box.id].color if box.id in old else None
        out[box.id] = Place(round(box.x, 2), round(box.y, 2), round(box.w, 2), round(box.h, 2), colour)
    return out


def fill_layout(topology: Topology) -> int:
    """Give every unplaced object a place (in ``topology.layout.places``); returns how many were added.

    An unplaced object inside a placed frame keeps its spot relative to that frame; unplaced top-level objects
    go below what is placed."""
    diagram = remembered(topology)
    if diagram is None:  # (a design opened in the background was laid out by the worker already)
        diagram = arrange(topology)
        remember(topology, diagram)
    places = topology.layout.places
    if all(box.id in places for box in diagram.boxes if box.kind not in HANDLE_KINDS):
        return 0  # (the common case when the worker filled it already: no Place built for nothing)
    auto = auto_places(diagram)
    missing = [key for key in auto if key not in places]
    if not missing:
        return 0
    placed = [key for key in auto if key in places]
    boxes = diagram.by_id()
    if placed:
        bottom = max(places[k].y + (places[k].h or boxes[k].h) for k in placed if boxes[k].parent is None) \
            if any(boxes[k].parent is None for k in placed) else 0.0
        top = min((auto[k].y for k in missing if boxes[k].parent is None), default=0.0)
        below = bottom + 80 - top

        def shift(key: str) -> tuple[float, float]:
            box = boxes[key]
            if key in places and key not in missing:
                return places[key].x - auto[key].x, places[key].y - auto[key].y
            if box.parent is not None:
                return shift(box.parent)
            return 0.0, below

        for key in missing:
            dx, dy = shift(key)
            p = auto[key]
            auto[key] = Place(p.x + dx, p.y + dy, p.w, p.h)
    for key in missing:
        places[key] = auto[key]
    return len(missing)


def auto_layout(workbench) -> bool:
    """Arrange > Auto Layout: every place from the automatic layout, one undo step; False if nothing moved."""
    from ..commands import AutoLayout

    topology = workbench.topology
    diagram = arrange(topology)
    places = auto_places(diagram, topology.layout.places)
    if places == topology.layout.places:
        return False
    remember(topology, diagram)
    workbench.undo_stack.push(AutoLayout(workbench.document, topology.layout, places))
    return True


def remember_as_saved(workbench, drawn):
    """After a save: remember the automatic layout of the design as saved (worked out off the GUI thread), the
    one a reopened design is drawn with, and call ``drawn()`` to redraw with it; so the pNIC and port chips
    and cable routes look the same before and after the design is reopened. Dropped if an edit came first."""
    from shiboken6 import isValid

    from ..worker import Task

    topology, stack = workbench.topology, workbench.undo_stack
    snapshot, index = workbench.snapshot(), stack.index()
    task = Task(lambda progress, cancel: arrange(snapshot()))

    def done(diagram: Diagram) -> None:
        # a window closed while the layout was worked out has deleted its stack
        if workbench.topology is topology and isValid(stack) and stack.index() == index:
            remember(topology, diagram)
            drawn()

    task.succeeded.connect(done)
    task.start()
    return task
