"""Which cells of a matrix depend on the uplink chosen at run time (forwarding-rules.md "Teaming").

Where teaming lets the platform put a vNIC on one of several uplinks, the matrix shows the worst outcome
(``decide.across_uplinks``); a pair whose outcomes differ per uplink is marked, so a reader knows the answer
holds for some uplinks only (the path dock lists the outcome per uplink). The mark is the explained
prediction's own ``Prediction.depends_on_uplink``, asked once per pair of groups: endpoints of one matrix class
whose points have the same possible uplinks answer alike, so one representative pair stands for its group pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The mark, and the line a legend gives it.
MARK = "⇅"
LEGEND = f"{MARK} depends on the uplink chosen at run time (teaming): shown as the worst of its uplinks"
#: At most this many representative pairs are walked; a larger design's marks are left out (``complete``).
BUDGET = 4000


@dataclass(frozen=True)
class UplinkMarks:
    """The marked pairs, by group: ``group`` maps an endpoint to its group, ``marked`` holds the (source group,
    destination group) pairs that depend on the uplink. ``complete`` is False when the design has more
    representative pairs than ``BUDGET`` (then nothing is marked, and a legend says so)."""

    group: dict[str, int] = field(default_factory=dict)
    marked: frozenset[tuple[int, int]] = frozenset()
    complete: bool = True

    def depends(self, src: str, dst: str) -> bool:
        """Whether the pair's answer depends on the uplink chosen at run time."""
        return src != dst and (self.group.get(src, -1), self.group.get(dst, -1)) in self.marked

    def block(self, endpoints: tuple[str, ...], start: int, stop: int) -> Any:
        """Which cells of the source rows ``start:stop`` against every destination (``endpoints`` in the
        matrix's order) are marked, as a bool array (the diagonal never is)."""
        import numpy as np

        groups = np.array([self.group.get(e, -1) for e in endpoints], dtype=np.int64)
        size = max(self.group.values(), default=-1) + 2          # the last row and column: no group
        marked = np.zeros((size, size), dtype=bool)
        for a, b in self.marked:
            marked[a, b] = True
        out = marked[groups[start:stop]][:, groups]
        rows = np.arange(stop - start)
        out[rows, rows + start] = False
        return out

    def __bool__(self) -> bool:
        """Whether any pair is marked."""
        return bool(self.marked)

    @property
    def legend(self) -> str:
        """The legend line: what the mark means, or that the marks were left out."""
        if self.complete:
            return LEGEND
        return (f"{MARK} not computed: this design has too many teamed endpoint classes to walk each pair per "
                f"uplink; ask a pair in the path dock for its outcome per uplink")


NONE = UplinkMarks()


def uplink_marks(matrix: Any, budget: int = BUDGET) -> UplinkMarks:
    """The pairs of ``matrix`` (a ``predict.Matrix``) whose answer depends on the uplink chosen at run time.
    Only endpoints whose possible uplinks reach some segment differently (``sensitive``) can have such pairs;
    their groups' pairs are walked."""
    net = matrix.net
    differ = sensitive(net)
    teamed = {eid for eid, points in net.points.items() if any(p.variants in differ for p in points)}
    if not teamed.intersection(matrix.endpoints):
        return NONE
    keys: dict[tuple, int] = {}
    group: dict[str, int] = {}
    members: list[list[str]] = []
    for i, eid in enumerate(matrix.endpoints):
        key = (int(matrix.classes[i]), tuple(p.variants for p in net.points.get(eid, ())))
        g = keys.setdefault(key, len(keys))
        if g == len(members):
            members.append([])
        members[g].append(eid)
        group[eid] = g
    sides = [g for g, m in enumerate(members) if m[0] in teamed]
    if 2 * len(sides) * len(members) > budget:
        return UplinkMarks(complete=False)
    pairs = {(a, b) for g in sides for other in range(len(members)) for a, b in ((g, other), (other, g))}
    marked = set()
    for a, b in pairs:
        src = members[a][0]
        dst = next((e for e in members[b] if e != src), None)
        if dst is not None and matrix.prediction(src, dst).depends_on_uplink:
            marked.add((a, b))
    return UplinkMarks(group, frozenset(marked))


def sensitive(net: Any) -> set[tuple[int, ...]]:
    """The vNICs' possible-uplink segment sets (``Point.variants``) whose members reach some segment of the
    design differently (the decision core's L2 code, ``decide.Labels``); the others answer every pair alike
    whichever uplink the platform picks."""
    import numpy as np

    from .decide import Labels

    found = {p.variants for points in net.points.values() for p in points if p.variants}
    if not found:
        return set()
    labels = Labels(net.segments)
    every = np.arange(len(net.segments))
    out = set()
    for variants in found:
        codes = [labels.code(np.full(len(every), v), every) for v in variants]
        if any((c != codes[0]).any() for c in codes[1:]):
            out.add(variants)
    return out
