"""The all-pairs verdict matrix, computed on equivalence classes.

Two endpoints are in one class when every input the walk reads about them is equal: their segment, subnet,
gateway, which networks their address falls in (subnets, routes, rule CIDRs) and which rule names they answer
to. Members of a class answer alike, so the matrix stores one byte per class pair plus the endpoint -> class
map (10,000 VMs never become 100 million Python objects).

Class pairs are answered in one of two ways, both derived from the same walk:
- classes with one interface (and, interface by interface, those with several) by the vectorised tables of
  ``vector``, when no bridged firewall sits in their L2 domain and no NAT serves them;
- every other pair by walking one representative pair.
The property tests check both against ``Engine.predict`` on random designs.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..model.objects import VmRole
from .network import Network, Point
from .result import VERDICTS, Prediction, Verdict
from .vector import BLOCKED, UNREACH, Vector, combine
from .walk import Walker


@dataclass(frozen=True)
class Matrix:
    """Verdicts for every ordered endpoint pair: ``classes[i]`` is endpoint i's class, ``table`` class x class."""

    endpoints: tuple[str, ...]
    classes: np.ndarray = field(repr=False, compare=False)
    table: np.ndarray = field(repr=False, compare=False)
    self_table: np.ndarray = field(repr=False, compare=False)
    engine_walker: Walker = field(repr=False, compare=False)

    def _pos(self, endpoint_id: str) -> int:
        try:
            return self._positions[endpoint_id]
        except KeyError:
            raise LookupError(f"{endpoint_id!r} is not an endpoint of this matrix") from None

    @property
    def _positions(self) -> dict[str, int]:
        cached = self.__dict__.get("_pos_cache")
        if cached is None:
            cached = {e: i for i, e in enumerate(self.endpoints)}
            object.__setattr__(self, "_pos_cache", cached)
        return cached

    def verdict(self, src_id: str, dst_id: str) -> Verdict:
        i, j = self._pos(src_id), self._pos(dst_id)
        ci, cj = self.classes[i], self.classes[j]
        return VERDICTS[self.self_table[ci] if i == j else self.table[ci, cj]]

    def prediction(self, src_id: str, dst_id: str) -> Prediction:
        self._pos(src_id), self._pos(dst_id)
        return self.engine_walker.flow(src_id, dst_id, explain=True)

    def rows(self) -> Iterator[tuple[str, str, Verdict]]:
        for i, src in enumerate(self.endpoints):
            row = self.table[self.classes[i]][self.classes]
            for j, dst in enumerate(self.endpoints):
                code = self.self_table[self.classes[i]] if i == j else row[j]
                yield src, dst, VERDICTS[code]

    def counts(self) -> dict[Verdict, int]:
        """How many ordered pairs (self pairs excluded) get each verdict, without expanding the matrix."""
        sizes = np.bincount(self.classes, minlength=len(self.self_table)).astype(np.int64)
        out = {v: 0 for v in VERDICTS}
        for code in range(len(VERDICTS)):
            mask = self.table == code
            total = int(sizes @ mask.astype(np.int64) @ sizes)
            total -= int(sizes[np.diag(mask)].sum())
            out[VERDICTS[code]] = total
        return out


class _Keys:
    """Per-interface identity: which design networks hold its address, which rule names it answers to."""

    def __init__(self, net: Network) -> None:
        topo = net.topology
        nets: set[ipaddress.IPv4Network] = set()
        names: set[str] = set()
        rule_lists = [d.rules for d in net.devices] + [b.vm.forwarding.rules for b in net.bridges] + [topo.nsx.dfw.rules]
        for rules in rule_lists:
            for rule in rules:
                for spec in (rule.src, rule.dst):
                    spec = (spec or "any").strip()
                    try:
                        nets.add(ipaddress.ip_network(spec, strict=False))
                    except ValueError:
                        names.add(spec)
                names.update(getattr(rule, "applied_to", ()))
        for d in net.devices:
            nets.update(p for p, _ in d.routes)
            nets.update(p.iface.network for p in d.points if p.iface is not None)
        for points in net.points.values():
            nets.update(p.iface.network for p in points if p.iface is not None)
        self.names = frozenset(names)
        self.device_ips = frozenset(net.by_address)
        self.nets = sorted((int(n.network_address), int(n.netmask)) for n in nets if n.version == 4)

        self.addr = np.array([a for a, _ in self.nets], dtype=np.int64)
        self.mask = np.array([m for _, m in self.nets], dtype=np.int64)
        self._sig: dict[int, bytes] = {}
        self.prime([p for pts in net.points.values() for p in pts])

    def prime(self, points: list[Point]) -> None:
        """Compute the address signatures of many points in one vectorised pass."""
        ips = sorted({int(p.ip) for p in points if p.ip is not None} - self._sig.keys())
        if not ips or not len(self.addr):
            self._sig.update({ip: b"" for ip in ips})
            return
        values = np.array(ips, dtype=np.int64)[:, None]
        member = np.packbits((values & self.mask[None, :]) == self.addr[None, :], axis=1)
        self._sig.update(zip(ips, (row.tobytes() for row in member)))

    def known(self, ip: ipaddress.IPv4Address) -> bool:
        """Whether the address was in the design when the keys were made (its signature is comparable)."""
        return int(ip) in self._sig

    def ip_sig(self, ip: ipaddress.IPv4Address | None) -> bytes:
        """Which of the design's networks hold this address (as a bit string)."""
        if ip is None:
            return b""
        value = int(ip)
        sig = self._sig.get(value)
        if sig is None:
            sig = self._sig[value] = np.packbits((value & self.mask) == self.addr).tobytes() if len(self.addr) else b""
        return sig

    def point_key(self, net: Network, p: Point) -> tuple:
        ids = {p.owner, p.nic, p.portgroup} & self.names
        return (p.segment, p.iface.network if p.iface else None, p.gateway, p.problem, p.nic_type is None,
                self.ip_sig(p.ip), frozenset(ids), self.device_address(p))

    def device_address(self, p: Point) -> object:
        """A gateway's own address answers differently from its neighbours' (it is received, not routed)."""
        return p.ip if p.ip in self.device_ips else None


SINGLE, COMPOUND, SCALAR, DEAD = range(4)


class MatrixBuilder:
    """Builds the matrix and keeps what it was made from, so an edit that only moved some VMs' interfaces
    recomputes just their classes' rows and columns (``update``)."""

    def __init__(self, walker: Walker) -> None:
        self.walker = walker
        self.net = walker.net

    # --- full build ------------------------------------------------------------------------------

    def build(self) -> Matrix:
        net = self.net
        self.keys = keys = _Keys(net)
        self.endpoints = [vm.id for vm in net.topology.vms] + [ph.id for ph in net.topology.physical_hosts]
        self.position = {e: i for i, e in enumerate(self.endpoints)}
        self.forwarding = {vm.id for vm in net.topology.vms if vm.role is not VmRole.VM}
        class_of: dict[tuple, int] = {}
        reps: list[str] = []
        seconds: list[str | None] = []
        members = np.empty(len(self.endpoints), dtype=np.int32)
        for i, eid in enumerate(self.endpoints):
            key = self._key(eid)
            c = class_of.get(key)
            if c is None:
                c = class_of[key] = len(reps)
                reps.append(eid)
                seconds.append(None)
            elif seconds[c] is None:
                seconds[c] = eid
            members[i] = c
        # number the classes single first, then compound, scalar, dead; one subnet's classes side by side
        kinds = [self._kind(eid) for eid in reps]
        order = sorted(range(len(reps)), key=lambda c: (kinds[c], self._network_rank(reps[c])))
        renumber = np.empty(len(reps), dtype=np.int32)
        renumber[order] = np.arange(len(reps), dtype=np.int32)
        self.members = renumber[members] if len(members) else members
        self.reps = [reps[c] for c in order]
        self.seconds = [seconds[c] for c in order]
        self.kinds = [kinds[c] for c in order]
        self.class_of = {key: int(renumber[c]) for key, c in class_of.items()}
        self.key_of = {c: key for key, c in self.class_of.items()}
        self.k = k = len(self.reps)
        self.count = np.bincount(self.members, minlength=k).astype(np.int64)
        cap = k + _spare(k)
        self.table = np.full((cap, cap), UNREACH, dtype=np.int8)
        self.self_table = np.full(cap, UNREACH, dtype=np.int8)
        singles = self.kinds.count(SINGLE)
        self.pt_of = np.full(cap, -1, dtype=np.int64)
        self.pt_of[:singles] = np.arange(singles)
        points: list[Point] = [net.points[self.reps[c]][0] for c in range(singles)]
        self.compound_points: dict[int, list[int]] = {}
        for c in range(k):
            if self.kinds[c] != COMPOUND:
                continue
            idx = []
            for p in net.points[self.reps[c]]:
                if p.segment is not None and p.iface is not None:
                    idx.append(len(points))
                    points.append(p)
                else:
                    idx.append(-1)
            self.compound_points[c] = idx
        self.vec = Vector(self.walker, points, keys, spare=_spare(k))
        if singles:
            vec = self.vec
            block = slice(0, singles)
            self.table[block, block] = combine(vec.fwd[block, block], vec.state[block, block],
                                                vec.reply[block, block].T, vec.rstate[block, block].T)
            self.self_table[:singles] = np.diagonal(self.table)[:singles]
        self._others(list(range(singles)), full=True)
        return self._matrix()

    def _matrix(self) -> Matrix:
        k = self.k
        return Matrix(tuple(self.endpoints), self.members.copy(), self.table[:k, :k], self.self_table[:k].copy(),
                      self.walker)

    def _key(self, eid: str) -> tuple:
        key = tuple(self.keys.point_key(self.net, p) for p in self.net.points.get(eid, ()))
        return key + ((eid,) if eid in self.forwarding else ())

    def _network_rank(self, eid: str) -> tuple:
        points = self.net.points.get(eid, ())
        itf = points[0].iface if points else None
        return (int(itf.network.network_address), itf.network.prefixlen) if itf else (0, 0)

    def _kind(self, eid: str) -> int:
        net = self.net
        usable = [p for p in net.points.get(eid, ()) if p.segment is not None and p.iface is not None]
        if not usable:
            return DEAD
        nat = {p.segment for d in net.devices if d.kind == "nat" for p in d.points}
        nat_gw = {p.ip for d in net.devices if d.kind == "nat" for p in d.points if p.ip}
        if any(net.segments[p.segment].has_bridge or p.segment in nat or p.gateway in nat_gw for p in usable):
            return SCALAR
        return SINGLE if len(net.points[eid]) == 1 else COMPOUND

    def _others(self, single_classes: list[int], full: bool) -> None:
        """Cells between the given single classes and every compound, scalar and dead class."""
        vec, walker, reps = self.vec, self.walker, self.reps
        code = {v: i for i, v in enumerate(VERDICTS)}
        cols = np.array(single_classes, dtype=np.int64)
        pts = self.pt_of[cols]
        for c, idx in self.compound_points.items():
            if not len(cols):
                break
            usable = [x for x in idx if x >= 0]
            ch = vec.choose(usable, pts)
            self.table[c, cols] = combine(vec.fwd[ch, pts], vec.state[ch, pts], vec.reply[pts, ch],
                                           vec.rstate[pts, ch])
            # as destination: its interfaces in a subnet of the source's first, then the others; the first
            # that delivers (``Walker.direction``)
            cand = np.array([vec.fwd[pts, x] if x >= 0 else np.full(len(pts), UNREACH, np.int8) for x in idx])
            same = np.array([vec.inside[vec.net_of[pts], x] if x >= 0 else np.zeros(len(pts), bool) for x in idx])
            delivered = cand < BLOCKED
            near, far = delivered & same, delivered & ~same
            sel = np.where(near.any(axis=0), near.argmax(axis=0),
                           np.where(far.any(axis=0), far.argmax(axis=0), np.where(same.any(axis=0), same.argmax(axis=0), 0)))
            chosen = np.array(idx, dtype=np.int64)[sel]
            f = cand[sel, np.arange(len(pts))]
            st = np.where(chosen >= 0, vec.state[pts, np.where(chosen >= 0, chosen, 0)], 0)
            self.table[cols, c] = combine(f, st, vec.reply[ch, pts], vec.rstate[ch, pts])
        walked = [c for c in range(self.k) if self.kinds[c] in (COMPOUND, SCALAR)]
        for c in walked:
            targets = range(self.k) if full else single_classes
            for d in targets:
                if d == c or self.kinds[d] == DEAD or (self.kinds[c] == COMPOUND and self.kinds[d] == SINGLE):
                    continue
                self.table[c, d] = code[walker.flow(reps[c], reps[d]).verdict]
                self.table[d, c] = code[walker.flow(reps[d], reps[c]).verdict]
            if full:
                self.self_table[c] = code[walker.flow(reps[c], reps[c]).verdict]
                other = self.seconds[c]
                self.table[c, c] = code[walker.flow(reps[c], other).verdict] if other else self.self_table[c]
        for c in range(self.k):
            if self.kinds[c] == DEAD:
                self.table[c, cols] = UNREACH
                self.table[cols, c] = UNREACH

    # --- incremental ---------------------------------------------------------------------------------

    def update(self, walker: Walker, moved: set[str]) -> Matrix | None:
        """The matrix after ``moved`` endpoints' interfaces changed (and nothing else), or None when the
        edit needs a full build (a new kind of class, an address outside the known networks, no room)."""
        self.walker, self.net = walker, walker.net
        self.vec.walker, self.vec.net = walker, walker.net
        fresh: dict[tuple, list[str]] = {}
        for eid in moved:
            if eid not in self.position or eid in self.forwarding:
                return None
            points = self.net.points.get(eid, ())
            if any(p.ip is not None and not self.keys.known(p.ip) for p in points):
                return None
            key = self._key(eid)
            c = self.class_of.get(key)
            if c is not None and self.kinds[c] != SINGLE and self._kind(eid) == SINGLE:
                return None
            fresh.setdefault(key, []).append(eid)
        self.table = self.table.copy()  # the matrix handed out before keeps its own answers
        touched: list[int] = []
        for key, eids in fresh.items():
            kind = self._kind(eids[0])
            old = self.members[[self.position[e] for e in eids]]
            np.subtract.at(self.count, old, 1)
            c = self.class_of.get(key)
            if c is None:
                if kind != SINGLE:
                    return None
                c = self._new_single(key, eids[0])
                if c is None:
                    return None
                touched.append(c)
            elif self.count[c] == 0 and kind == SINGLE:
                self.reps[c] = eids[0]
            self.members[[self.position[e] for e in eids]] = c
            self.count[c] += len(eids)
        if self.vec.state_overflow:
            return None
        if touched:
            self._refresh_singles(touched)
        return self._matrix()

    def _new_single(self, key: tuple, eid: str) -> int | None:
        """A class for a new key: an emptied single class's slot, else one more row (within the spare room)."""
        free = [c for c in range(self.k) if self.kinds[c] == SINGLE and self.count[c] == 0]
        if free:
            c = free[0]
            del self.class_of[self.key_of[c]]
            p = int(self.pt_of[c])
        else:
            if self.k >= len(self.self_table) or self.vec.n >= self.vec.cap:
                return None
            c = self.k
            self.k += 1
            self.kinds.append(SINGLE)
            self.reps.append(eid)
            self.seconds.append(None)
            self.count = np.append(self.count, 0)
            p = self.vec.n
        self.class_of[key] = c
        self.key_of[c] = key
        self.reps[c] = eid
        self.pt_of[c] = p
        self.vec.set_point(p, self.net.points[eid][0])
        return c

    def _refresh_singles(self, classes: list[int]) -> None:
        vec = self.vec
        singles = np.array([c for c in range(self.k) if self.kinds[c] == SINGLE], dtype=np.int64)
        pd = self.pt_of[singles]
        for c in classes:
            p = int(self.pt_of[c])
            self.table[c, singles] = combine(vec.fwd[p, pd], vec.state[p, pd], vec.reply[pd, p], vec.rstate[pd, p])
            self.table[singles, c] = combine(vec.fwd[pd, p], vec.state[pd, p], vec.reply[p, pd], vec.rstate[p, pd])
            self.self_table[c] = self.table[c, c]
        self._others(classes, full=False)


def _spare(k: int) -> int:
    """Room for new classes after edits, so an edit rarely needs a full rebuild."""
    return max(16, k // 50)
