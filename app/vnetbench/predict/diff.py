"""What-if: compare two designs pair by pair and say which pairs' verdict, path or estimate changed, and why.

Endpoints are grouped by (class in the old design, class in the new design): members of such a joint class
answer alike in both designs, so one representative pair stands for all its members' pairs. Verdicts are
compared for every joint class pair at once from the two matrices; paths and estimates by walking the
representatives, which large designs limit to the pairs whose verdict changed (``WALK_BUDGET``).
"""

from __future__ import annotations

import numpy as np

from ..model.objects import Topology
from .engine import Engine
from .result import VERDICTS, PairChange, Prediction

#: Walk every joint class pair for path and estimate changes up to this many pairs.
WALK_BUDGET = 40_000


def _path(p: Prediction) -> tuple:
    return tuple(h.object_id for h in p.forward.hops[1:-1]), tuple(h.object_id for h in p.reverse.hops[1:-1])


def _why(before: Prediction, after: Prediction) -> tuple[str, ...]:
    what = []
    if before.verdict != after.verdict:
        what.append(f"verdict {before.verdict} -> {after.verdict}: {'; '.join(after.reasons)}")
    if _path(before) != _path(after):
        middle = [h.name for h in after.forward.hops if h.kind not in ("vnic", "host_nic")]
        what.append(f"path changed: now {' > '.join(middle) or 'no path'}")
    eb, ea = before.forward.estimate, after.forward.estimate
    if (eb.throughput_mbps, eb.latency_us) != (ea.throughput_mbps, ea.latency_us):
        what.append(f"estimate changed: {eb.throughput_mbps} -> {ea.throughput_mbps} Mbit/s "
                    f"(bottleneck {ea.bottleneck or 'none'}), {eb.latency_us} -> {ea.latency_us} us")
    return tuple(what)


def diff(old_topology: Topology, new_topology: Topology) -> list[PairChange]:
    """Every ordered pair of distinct endpoints whose verdict, path or estimate differs between the designs."""
    old, new = Engine(old_topology), Engine(new_topology)
    mo, mn = old.matrix(), new.matrix()
    pos_o = {e: i for i, e in enumerate(mo.endpoints)}
    pos_n = {e: i for i, e in enumerate(mn.endpoints)}
    both = [e for e in mn.endpoints if e in pos_o]
    joint: dict[tuple[int, int], list[str]] = {}
    for e in both:
        joint.setdefault((int(mo.classes[pos_o[e]]), int(mn.classes[pos_n[e]])), []).append(e)
    keys = list(joint)
    members = list(joint.values())
    o = np.array([k[0] for k in keys], dtype=np.int64)
    n = np.array([k[1] for k in keys], dtype=np.int64)
    before = mo.table[np.ix_(o, o)] if len(keys) else np.zeros((0, 0), np.int8)
    after = mn.table[np.ix_(n, n)] if len(keys) else np.zeros((0, 0), np.int8)
    walk_all = len(keys) ** 2 <= WALK_BUDGET
    changes: list[PairChange] = []
    for a in range(len(keys)):
        for b in np.flatnonzero(np.ones(len(keys), bool) if walk_all else before[a] != after[a]):
            if a == b and len(members[a]) < 2:
                continue
            src, dst = members[a][0], members[b][1 if a == b else 0]
            what = _why(old.walker.flow(src, dst), new.walker.flow(src, dst))
            if not what:
                continue
            was, now = VERDICTS[before[a, b]], VERDICTS[after[a, b]]
            changes += [PairChange(x, y, was, now, what) for x in members[a] for y in members[b] if x != y]
    changes += _one_sided(mn, [e for e in mn.endpoints if e not in pos_o], new=True)
    changes += _one_sided(mo, [e for e in mo.endpoints if e not in pos_n], new=False)
    return changes


def _one_sided(matrix, alone: list[str], new: bool) -> list[PairChange]:
    """Pairs with an endpoint that exists in only one of the designs."""
    alone_set = set(alone)
    why = (f"the pair exists only in the {'new' if new else 'old'} design",)
    out = []
    for e in alone:
        for other in matrix.endpoints:
            if other == e:
                continue
            pairs = [(e, other)] if other in alone_set else [(e, other), (other, e)]
            for x, y in pairs:
                v = matrix.verdict(x, y)
                out.append(PairChange(x, y, None, v, why) if new else PairChange(x, y, v, None, why))
    return out
