"""A laid-out design: boxes (nested) and edges (orthogonal polylines), in scene pixels.

This is what the canvas and every export draw. A box stands for one model object (``ref``); an object that spans
hosts (a vDS, an NSX segment and its portgroups, a DLR) has one box per member host, each with its own ``id``
(``<ref>@<host id>``) and the same ``ref``. Coordinates are absolute (scene coordinates of the top-left corner).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Kinds drawn as frames: they hold other boxes and are painted beneath the edges.
FRAME_KINDS = frozenset({"host", "switch", "physical_switch", "physical_router", "physical_host"})
#: Kinds with an icon in resources/icons.
ICON_KINDS = frozenset({"host", "switch", "portgroup", "vm", "dlr", "physical_switch", "physical_router",
                        "physical_host"})


@dataclass
class Box:
    """One drawn object. ``lines`` are its details, already wrapped to fit; ``aliases`` are ids of parts it
    stands for (a VM's vNICs); ``header`` is the height of a frame's title (children sit below it or, for a
    bar, ``label_w`` to the right of it)."""

    id: str
    ref: str
    kind: str
    label: str
    lines: list[str] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    parent: str | None = None
    style: str = ""
    color: str | None = None
    aliases: tuple[str, ...] = ()
    header: float = 0.0
    label_w: float = 0.0
    host: str | None = None  # the host this instance belongs to (proxies, portgroups, DLR instances)

    @property
    def frame(self) -> bool:
        return self.kind in FRAME_KINDS

    def center(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    def rect(self) -> tuple[float, float, float, float]:
        return self.x, self.y, self.w, self.h


@dataclass
class Edge:
    """A link between two boxes (ids), drawn through ``points`` (first on ``a``'s border, last on ``b``'s).
    ``refs`` are the model ids it stands for (a vNIC, a cable, an uplink's switch and pNIC)."""

    id: str
    a: str
    b: str
    kind: str
    label: str = ""
    points: list[tuple[float, float]] = field(default_factory=list)
    refs: tuple[str, ...] = ()


@dataclass
class Diagram:
    title: str
    boxes: list[Box] = field(default_factory=list)  # parents before their children
    edges: list[Edge] = field(default_factory=list)
    seconds: float = 0.0  # how long the layout took
    engine: str = ""  # what ordered the top level ("graphviz dot 2.43.0", or "model order")

    def by_id(self) -> dict[str, Box]:
        return {box.id: box for box in self.boxes}

    def children(self) -> dict[str | None, list[Box]]:
        out: dict[str | None, list[Box]] = {}
        for box in self.boxes:
            out.setdefault(box.parent, []).append(box)
        return out

    def instances(self) -> dict[str, list[Box]]:
        """Model id -> the boxes drawn for it (one, or one per member host)."""
        out: dict[str, list[Box]] = {}
        for box in self.boxes:
            out.setdefault(box.ref, []).append(box)
        return out

    def bounds(self, margin: float = 20.0) -> tuple[float, float, float, float]:
        """``(x, y, w, h)`` around every box and edge, with a margin."""
        xs = [b.x for b in self.boxes] + [p[0] for e in self.edges for p in e.points]
        ys = [b.y for b in self.boxes] + [p[1] for e in self.edges for p in e.points]
        xe = [b.x + b.w for b in self.boxes] + [p[0] for e in self.edges for p in e.points]
        ye = [b.y + b.h for b in self.boxes] + [p[1] for e in self.edges for p in e.points]
        if not xs:
            return 0.0, 0.0, 200.0, 100.0
        x0, y0 = min(xs) - margin, min(ys) - margin
        return x0, y0, max(xe) + margin - x0, max(ye) + margin - y0
