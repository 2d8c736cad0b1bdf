"""What-if: which pairs' answers differ between two states of a design, and why, in an admin's words.

Two ways in:
- ``diff(old, new)`` compares two designs (``vnetbench diff OLD NEW``): verdict, path and estimate changes.
- ``compare(before, after, walker, edits)`` compares two matrices of one design being edited (the what-if
  dock, on the engine kept current after each edit), saying for each pair whose verdict changed which edit
  touched it and what happens now: "app01 moved from VLAN 300 to 301: now routed via core-sw1-l3".

Endpoints are grouped by (class before, class after): members of such a joint class answer alike in both
states, so verdicts are compared for every joint class pair at once from the two class tables, and one
representative pair is walked for the wording. Nothing reads "None": an estimate is mentioned only when both
states have one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..model.document import Change
from ..model.objects import VM, DfwRule, Portgroup, Rule, Topology, VNic
from ..model.vlan import Vlan, VlanMode
from .result import VERDICTS, PairChange, Prediction, Verdict

if TYPE_CHECKING:
    import numpy as np

#: Walk every joint class pair for path and estimate changes up to this many pairs (``diff``).
WALK_BUDGET = 40_000
#: ``compare`` words at most this many joint class pairs (each takes one walk); the rest say only the edit.
WORD_BUDGET = 2_000


@dataclass(frozen=True)
class Edit:
    """One edit as an admin would say it. ``moved`` names the endpoints it moved (id -> name) and ``what``
    says how ("moved from VLAN 300 to 301"); an edit that moved nobody (a firewall rule) is all ``what``."""

    what: str
    moved: tuple[tuple[str, str], ...] = ()

    @property
    def endpoints(self) -> frozenset[str]:
        """The ids of the endpoints the edit moved."""
        return frozenset(i for i, _ in self.moved)

    def about(self, *endpoints: str) -> str:
        """The edit told about the given endpoints: "app01 moved from VLAN 300 to 301"."""
        names = [name for i, name in self.moved if i in endpoints] or [name for _, name in self.moved[:3]]
        if not self.moved:
            return self.what
        more = len(self.moved) - len(names) if not set(endpoints) & self.endpoints else 0
        return f"{' and '.join(names)}{f' and {more} more' if more > 0 else ''} {self.what}"


# --- the edits, in words ------------------------------------------------------------------------------------


def describe(change: Change, topology: Topology) -> Edit | None:
    """An edit in words ("app01 moved from VLAN 300 to 301", "DFW rule 'web-in' added"), from a document
    change just made (its old value is in the change)."""
    obj, field = change.obj, change.field or ""   # (only a reset names no field)
    if change.op == "reset":
        return Edit("a new design was opened")
    if isinstance(obj, Portgroup) and field in ("vlan", "native_vlan"):
        vms = tuple((vm.id, vm.name) for vm in topology.vms if any(nic.network == obj.id for nic in vm.vnics))
        what = f"moved from {_vlan(change.old)} to {_vlan(change.new, after=change.old)}"
        return Edit(what if vms else f"portgroup {obj.name} {what}", vms)
    if isinstance(obj, VNic):
        vm = next((vm for vm in topology.vms if any(n is obj for n in vm.vnics)), None)
        who = ((vm.id, vm.name),) if vm is not None else ()
        if field == "network":
            return Edit(f"moved from {_network(topology, change.old)} to {_network(topology, change.new)}", who)
        if field == "connected":
            return Edit(f"had {obj.name} {'connected' if change.new else 'disconnected'}", who)
        return Edit(f"had {obj.name}'s {field.replace('_', ' ')} set to {change.new}", who)
    if isinstance(obj, VM) and field == "host":
        return Edit(f"moved from host {_name(topology, change.old)} to {_name(topology, change.new)}",
                    ((obj.id, obj.name),))
    if isinstance(obj, (Rule, DfwRule)):
        where = "DFW rule" if isinstance(obj, DfwRule) else f"{_firewall(topology, obj)} rule"
        label = f"{where} '{obj.name}'" if obj.name else f"{where} ({obj.action} {obj.src} -> {obj.dst})"
        if change.op in ("insert", "remove"):
            return Edit(f"{label} {'added' if change.op == 'insert' else 'removed'}")
        return Edit(f"{label} changed its {field} from {change.old} to {change.new}")
    kind = type(obj).__name__.lower()
    name = getattr(obj, "name", None) or getattr(obj, "id", None) or kind
    if change.op in ("insert", "remove"):
        return Edit(f"{kind} {name} {'added' if change.op == 'insert' else 'removed'}")
    return Edit(f"{kind} {name} had its {field} set to {change.new}")


def _vlan(value: Any, after: Any = None) -> str:
    """"VLAN 300"; the second of a pair of access VLANs bare ("from VLAN 300 to 301"). Decided from the
    values (an access VLAN: an int, or a ``Vlan`` in access mode), never from their words."""
    if after is not None and _access(value) is not None and _access(after) is not None:
        return str(_access(value))
    return f"VLAN {value}" if isinstance(value, int) else str(value)


def _access(value: Any) -> int | None:
    """The tag of an access VLAN value, else None."""
    if isinstance(value, int):
        return value
    return value.tag if isinstance(value, Vlan) and value.mode is VlanMode.ACCESS else None


def _name(topology: Topology, obj_id: str | None) -> str:
    for group in (topology.hosts, topology.vms, topology.switches):
        for obj in group:
            if obj.id == obj_id:
                return obj.name
    return str(obj_id)


def _network(topology: Topology, obj_id: str | None) -> str:
    for sw in topology.switches:
        if sw.id == obj_id:
            return sw.name
        for pg in sw.portgroups:
            if pg.id == obj_id:
                return f"{pg.name} ({_vlan(pg.vlan)})"
    return str(obj_id)


def _firewall(topology: Topology, rule: Any) -> str:
    return next((vm.name for vm in topology.vms if any(r is rule for r in vm.forwarding.rules)), "a firewall's")


# --- what a pair does now, in words ---------------------------------------------------------------------------


def now(p: Prediction) -> str:
    """What happens to the pair in this prediction, as a short clause: "now routed via core-sw1-l3"."""
    verdict = p.verdict
    if verdict in (Verdict.BLOCKED, Verdict.UNREACHABLE):
        reason = next((r for r in p.reasons if r), "")
        return f"now {verdict}" + (f": {reason.rstrip('.')}" if reason else "")
    routers = list(dict.fromkeys(p.forward.routed_by))
    if routers:
        where = " inside the host" if verdict is Verdict.IN_HOST_ROUTED else ", leaving the host"
        return f"now routed via {', '.join(routers)}{where}"
    if verdict is Verdict.VIA_PHYSICAL:
        return "now switched through the physical network"
    return "now delivered inside the host"


def _rate(mbps: float) -> str:
    return f"{mbps / 1000:.3g} Gbit/s" if mbps >= 1000 else f"{mbps:.3g} Mbit/s"


def estimate_change(before: Prediction, after: Prediction) -> str | None:
    """The estimate's change in words, when both states have an estimate and it differs."""
    eb, ea = before.forward.estimate, after.forward.estimate
    parts = []
    if eb.throughput_mbps is not None and ea.throughput_mbps is not None and eb.throughput_mbps != ea.throughput_mbps:
        parts.append(f"throughput estimate {_rate(eb.throughput_mbps)} -> {_rate(ea.throughput_mbps)}"
                     + (f" (bottleneck {ea.bottleneck})" if ea.bottleneck else ""))
    if eb.latency_us is not None and ea.latency_us is not None and eb.latency_us != ea.latency_us:
        parts.append(f"added latency {eb.latency_us:g} -> {ea.latency_us:g} µs")
    return "; ".join(parts) or None


# --- two designs -----------------------------------------------------------------------------------------------


def _path(p: Prediction) -> tuple:
    return tuple(h.object_id for h in p.forward.hops[1:-1]), tuple(h.object_id for h in p.reverse.hops[1:-1])


def _why(before: Prediction, after: Prediction) -> tuple[str, ...]:
    what = []
    if before.verdict != after.verdict:
        what.append(f"verdict {before.verdict} -> {after.verdict}: {now(after)}")
    elif _path(before) != _path(after):
        middle = [h.name for h in after.forward.hops if h.kind not in ("vnic", "host_nic")]
        what.append(f"path changed: now {' > '.join(middle) or 'no path'}")
    estimate = estimate_change(before, after) if before.verdict.delivered and after.verdict.delivered else None
    if estimate:
        what.append(estimate)
    return tuple(what)


def _joint(mo: Any, mn: Any) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
    """Endpoints present in both matrices grouped by (class before, class after), and the verdict codes of
    every joint class pair before and after."""
    import numpy as np  # with the matrices: a single prediction never loads it

    pos_o = {e: i for i, e in enumerate(mo.endpoints)}
    pos_n = {e: i for i, e in enumerate(mn.endpoints)}
    joint: dict[tuple[int, int], list[str]] = {}
    for e in mn.endpoints:
        if e in pos_o:
            joint.setdefault((int(mo.classes[pos_o[e]]), int(mn.classes[pos_n[e]])), []).append(e)
    o = np.array([k[0] for k in joint], dtype=np.int64)
    n = np.array([k[1] for k in joint], dtype=np.int64)
    before = np.take(np.take(mo.table, o, axis=0), o, axis=1) if len(joint) else np.zeros((0, 0), np.int8)
    after = np.take(np.take(mn.table, n, axis=0), n, axis=1) if len(joint) else np.zeros((0, 0), np.int8)
    return list(joint.values()), before, after


def diff(old_topology: Topology, new_topology: Topology) -> list[PairChange]:
    """Every ordered pair of distinct endpoints whose verdict, path or estimate differs between the designs."""
    from .engine import Engine

    import numpy as np

    old, new = Engine(old_topology), Engine(new_topology)
    mo, mn = old.matrix(), new.matrix()
    members, before, after = _joint(mo, mn)
    walk_all = len(members) ** 2 <= WALK_BUDGET
    changes: list[PairChange] = []
    for a in range(len(members)):
        for b in np.flatnonzero(np.ones(len(members), bool) if walk_all else before[a] != after[a]):
            if a == b and len(members[a]) < 2:
                continue
            src, dst = members[a][0], members[b][1 if a == b else 0]
            what = _why(old.walker.flow(src, dst), new.walker.flow(src, dst))
            if not what:
                continue
            was, now_ = VERDICTS[before[a, b]], VERDICTS[after[a, b]]
            changes += [PairChange(x, y, was, now_, what) for x in members[a] for y in members[b] if x != y]
    changes += _one_sided(mn, [e for e in mn.endpoints if e not in set(mo.endpoints)], new=True)
    changes += _one_sided(mo, [e for e in mo.endpoints if e not in set(mn.endpoints)], new=False)
    return changes


# --- one design, before and after edits ------------------------------------------------------------------------


def compare(before: Any, after: Any, walker: Any, edits: Sequence[Edit],
            limit: int | None = None) -> tuple[list[PairChange], int]:
    """The pairs whose verdict differs between two matrices of one design, each saying which edit touched it
    and what happens now, and how many there are in all. ``walker`` is the engine's walker for ``after``,
    ``edits`` the edits between; at most ``limit`` pairs are listed (an edit can change millions)."""
    members, was, is_ = _joint(before, after)
    rows, cols = (was != is_).nonzero()
    sizes = [len(m) for m in members]
    total = sum(sizes[a] * sizes[b] - (sizes[a] if a == b else 0) for a, b in zip(rows.tolist(), cols.tolist()))
    changes: list[PairChange] = []
    for worded, (a, b) in enumerate(zip(rows.tolist(), cols.tolist())):
        if a == b and len(members[a]) < 2:
            continue
        if limit is not None and len(changes) >= limit:
            break
        src, dst = members[a][0], members[b][1 if a == b else 0]
        clause = f": {now(walker.flow(src, dst))}" if worded < WORD_BUDGET else ""
        changes += [PairChange(x, y, VERDICTS[was[a, b]], VERDICTS[is_[a, b]],
                               (_edit_for(edits, x, y).about(x, y) + clause,))
                    for x in members[a] for y in members[b] if x != y][:None if limit is None else limit - len(changes)]
    one_sided = _one_sided(after, [e for e in after.endpoints if e not in set(before.endpoints)], new=True) + \
        _one_sided(before, [e for e in before.endpoints if e not in set(after.endpoints)], new=False)
    changes += one_sided[:None if limit is None else max(0, limit - len(changes))]
    return changes, total + len(one_sided)


def _edit_for(edits: Sequence[Edit], src: str, dst: str) -> Edit:
    """The latest edit that moved one of the pair's endpoints, else the latest edit of the whole design."""
    for edit in reversed(edits):
        if src in edit.endpoints or dst in edit.endpoints:
            return edit
    for edit in reversed(edits):
        if not edit.endpoints:
            return edit
    return edits[-1] if edits else Edit("the design changed")


def _one_sided(matrix: Any, alone: list[str], new: bool) -> list[PairChange]:
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
