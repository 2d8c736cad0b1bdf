"""A design as boxes and lines for the diagram writers: the layout room's ``Diagram``, and what a path lights.

The painter (SVG/PNG/PDF), draw.io, DOT and Mermaid all draw ``build_scene``'s result, which is
``vnetbench.layout.arrange``: the same layout the canvas uses, sizes from the text so no fact is cut.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..layout import FRAME_KINDS, Box, Diagram, Edge, arrange
from ..layout.content import vlan_text
from ..model import Topology

Scene = Diagram
Line = Edge

__all__ = ["FRAME_KINDS", "Box", "Line", "Scene", "build_scene", "highlighted", "vlan_text"]


def build_scene(topology: Topology, select: Iterable[str] | None = None) -> Scene:
    """The whole design, or only the selected objects (with what they contain and the frames around them)."""
    return arrange(topology, None if select is None else list(select))


def highlighted(scene: Scene, object_ids: Iterable[str | None]) -> tuple[set[str], set[str]]:
    """Box ids and line ids that a path through ``object_ids`` (a prediction's hops, in order) passes.

    An object drawn once per host (a vDS proxy, its portgroups, a DLR) lights in the host the path is in at that
    hop: the host of the last VM or pNIC passed. A line lights when both its ends do (a band between two proxies
    too), or when it is the hop itself (a vNIC, a cable) and one end does."""
    instances = scene.instances()
    for box in scene.boxes:
        for alias in box.aliases:
            instances.setdefault(alias, []).append(box)
    ids: set[str] = set()
    boxes: set[str] = set()
    host: str | None = None
    for oid in object_ids:
        if not oid:
            continue
        ids.add(oid)
        drawn = instances.get(oid, [])
        if len(drawn) == 1:
            box = drawn[0]
            boxes.add(box.id)
            if box.kind in ("vm", "pnic") and box.host:
                host = box.host
        else:
            boxes.update(b.id for b in drawn if b.host == host)
    lines = set()
    for edge in scene.edges:
        own = edge.refs[0] in ids if edge.refs else False
        if edge.a in boxes and edge.b in boxes and (edge.kind != "member" or own):
            lines.add(edge.id)
        elif own and edge.kind not in ("bus", "member") and (edge.a in boxes or edge.b in boxes):
            lines.add(edge.id)
    return boxes, lines
