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
    """Box ids and line ids that a path through ``object_ids`` (a prediction's hops) passes.

    An object drawn once per host (a vDS proxy, its portgroups, a DLR) lights only in the hosts the path
    visits; a band between two proxies lights when both of its ends do."""
    ids = {i for i in object_ids if i}
    hit = [b for b in scene.boxes if b.ref in ids or ids.intersection(b.aliases)]
    hosts = {b.host for b in hit if b.kind in ("vm", "pnic") and b.host} | {b.id for b in hit if b.kind == "host"}
    boxes = {b.id for b in hit if b.host is None or b.kind in ("vm", "pnic") or b.host in hosts}
    lines = set()
    for edge in scene.edges:
        ends = edge.a in boxes and edge.b in boxes
        named = bool(ids.intersection(edge.refs)) and (edge.a in boxes or edge.b in boxes)
        if (ends and (edge.kind != "member" or named)) or (named and edge.kind not in ("bus", "member")):
            lines.add(edge.id)
    return boxes, lines
