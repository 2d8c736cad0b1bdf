"""The all-pairs verdict matrix, on equivalence classes, kept current after edits.

Two endpoints are in one class when every input the walk reads about them is equal: their segment, subnet,
gateway, the innermost of the design's networks holding their address (subnets, routes, rule addresses: these
nest, so the innermost says which of them all hold it) and the object names rules give them. Members of a
class answer alike, so the matrix stores one byte per class pair plus the endpoint -> class map. A rule per VM
makes every VM its own class; the cost then lies in computing the class table, which ``vector`` does block by
block without walking pairs.

Class pairs are answered three ways, all derived from the same walk:
- classes whose endpoint has one interface, by ``Vector.flows`` in square tiles (each tile's two directions
  computed once and combined both ways);
- endpoints with several interfaces, interface by interface from the same flows (choosing the interface the
  walk chooses);
- classes behind a bridged firewall or a hosted NAT, and pairs of multi-interface endpoints, by walking one
  representative pair.

After an edit (``update``) only the rows and columns of the classes whose inputs changed are computed; the
others keep their cells. The property tests check every path against ``Engine.predict`` on random designs,
and the incrementally kept matrix against a fresh one after random edits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..model.objects import VmRole
from .network import Point
from .result import VERDICTS, Prediction, Verdict
from .routes import BLOCKED, UNREACH, Prefixes, network_key, routed_networks
from .rules import parse_spec
from .vector import Vector, compact, combine
from .walk import Walker

SINGLE, COMPOUND, SCALAR, DEAD = range(4)
#: Square tiles of single classes computed at a time (bounds the temporaries to a few tens of MB).
TILE = 1024


@dataclass(frozen=True)
class Matrix:
    """Verdicts for every ordered endpoint pair: ``classes[i]`` is endpoint i's class, ``table`` class x class.

    A matrix never changes once handed out; ``prediction`` walks one pair with its full explanation."""

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
    """What makes endpoints answer alike: per point, its place and the innermost design network holding its
    address; the names rules call it by. After a rule edit the networks and names only grow (a finer key is
    still sound), so an edit naming nothing new changes no key."""

    def __init__(self, walker: Walker, vec: Vector) -> None:
        net = walker.net
        self.networks = routed_networks(net.devices)
        self.networks.update(network_key(p.iface.network) for p in vec.points if p.iface is not None)
        self.names: set[str] = set()
        for rules in _rule_lists(net):
            self.extend(rules)
        self.innermost = Prefixes(self.networks).longest(vec.ip)

    def extend(self, rules: list) -> bool:
        """Take in what these rules name; whether that was anything new (then ``refresh``)."""
        before = (len(self.networks), len(self.names))
        for rule in rules:
            for spec in (rule.src, rule.dst):
                parsed = parse_spec(spec)
                if parsed.lo is not None:
                    self.networks.add((parsed.lo, 32 - (parsed.hi - parsed.lo).bit_length()))
                elif not parsed.everything:
                    self.names.add(parsed.name)
            self.names.update(getattr(rule, "applied_to", ()))
        return before != (len(self.networks), len(self.names))

    def refresh(self, vec: Vector) -> None:
        self.innermost = Prefixes(self.networks).longest(vec.ip)

    def point(self, vec: Vector, i: int) -> tuple:
        p = vec.points[i]
        return (p.segment, p.iface.network if p.iface else None, p.gateway, p.problem, p.nic_type is None,
                int(self.innermost[i]), frozenset({p.owner, p.nic, p.portgroup} & self.names))


def _rule_lists(net) -> list[list]:  # noqa: ANN001 - a Network
    return [d.rules for d in net.devices] + [b.vm.forwarding.rules for b in net.bridges] + [net.topology.nsx.dfw.rules]


class MatrixBuilder:
    """Builds the matrix and keeps what it was made from, so that after an edit only the classes whose
    inputs changed get new rows and columns (``update``)."""

    def __init__(self, walker: Walker, check: Callable[[], object] | None = None) -> None:
        self.walker = walker
        self.net = walker.net
        self.check = check or (lambda: None)

    # --- full build ------------------------------------------------------------------------------

    def build(self) -> Matrix:
        net = self.net
        self.endpoints = [vm.id for vm in net.topology.vms] + [ph.id for ph in net.topology.physical_hosts]
        self.position = {e: i for i, e in enumerate(self.endpoints)}
        self.forwarding = {vm.id for vm in net.topology.vms if vm.role is not VmRole.VM}
        points: list[Point] = []
        self.points_of: dict[str, list[int]] = {}
        self.owner_of_point: list[str] = []
        for eid in self.endpoints:
            own = net.points.get(eid, [])
            self.points_of[eid] = list(range(len(points), len(points) + len(own)))
            self.owner_of_point += [eid] * len(own)
            points += own
        self.vec = Vector(self.walker, points)
        self.keys = _Keys(self.walker, self.vec)
        keys = [self._key(e) for e in self.endpoints]
        first: dict[tuple, int] = {}
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        reps = list(first.values())
        kinds = [self._kind(self.endpoints[i]) for i in reps]
        # number the classes single first (by start and subnet, so tiles share routed ways), then compound,
        # scalar, dead
        order = sorted(range(len(reps)), key=lambda c: (kinds[c], self._rank(self.endpoints[reps[c]])))
        self.k = k = len(reps)
        self.reps = [self.endpoints[reps[c]] for c in order]
        self.kinds = [kinds[c] for c in order]
        self.class_keys = [keys[reps[c]] for c in order]
        self.class_of = {key: c for c, key in enumerate(self.class_keys)}
        self.members = np.array([self.class_of[key] for key in keys], dtype=np.int32)
        self.count = np.bincount(self.members, minlength=k).astype(np.int64)
        cap = k + _spare(k)
        self.table = np.full((cap, cap), UNREACH, dtype=np.int8)
        self.self_table = np.full(cap, UNREACH, dtype=np.int8)
        singles = self.kinds.count(SINGLE)
        self._tiles(singles)
        self._fill_others(list(range(k)), list(range(k)), fresh=set(range(k)))
        return self._matrix()

    def _tiles(self, singles: int) -> None:
        """The single classes against each other, tile by tile: each tile's flows are computed once, the
        reply direction laid out like the forward one."""
        vec = self.vec
        pts = self._points(range(singles))
        differ = vec.replies_differ
        for a in range(0, singles, TILE):
            ia = slice(a, min(a + TILE, singles))
            for b in range(a, singles, TILE):
                ib = slice(b, min(b + TILE, singles))
                self.check()
                pa, pb = pts[ia], pts[ib]
                f_ab, s_ab = vec.flows(pa, pb, False)
                if differ:
                    self.table[ia, ib] = combine(f_ab, s_ab, *vec.flows(pb, pa, True, by_dst=True))
                    if b != a:
                        f_ba, s_ba = vec.flows(pb, pa, False)
                        self.table[ib, ia] = combine(f_ba, s_ba, *vec.flows(pa, pb, True, by_dst=True))
                    continue
                f_ba, s_ba = vec.flows(pb, pa, False, by_dst=True)     # laid out [a, b]
                self.table[ia, ib] = combine(f_ab, s_ab, f_ba, s_ba)
                if b != a:
                    self.table[ib, ia] = combine(f_ba, s_ba, f_ab, s_ab).T
        self.self_table[:singles] = np.diagonal(self.table)[:singles]

    def _matrix(self) -> Matrix:
        k = self.k
        return Matrix(tuple(self.endpoints), self.members.copy(), self.table[:k, :k], self.self_table[:k].copy(),
                      self.walker)

    def _key(self, eid: str) -> tuple:
        key = tuple(self.keys.point(self.vec, i) for i in self.points_of[eid])
        return key + ((eid,) if eid in self.forwarding else ())

    def _point(self, c: int) -> int:
        """The point of a single class (its representative's one interface)."""
        return self.points_of[self.reps[c]][0]

    def _points(self, classes) -> np.ndarray:  # noqa: ANN001 - an iterable of class numbers
        return np.array([self.points_of[self.reps[c]][0] for c in classes], dtype=np.int64)

    def _rank(self, eid: str) -> tuple:
        pts = self.points_of[eid]
        if not pts:
            return (0, 0, 0)
        i = pts[0]
        vec = self.vec
        return (int(vec.start[i]), int(vec.net_of[i]), int(vec.seg[i]))

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

    # --- rows and columns of some classes -------------------------------------------------------------

    def _fill_singles(self, new: list[int], live: list[int]) -> None:
        """Rows and columns of the ``new`` single classes against the ``live`` single classes."""
        if not new or not live:
            return
        vec = self.vec
        pn, pl = self._points(new), self._points(live)
        differ = vec.replies_differ
        cols = np.array(live)
        forward = combine(*vec.flows(pn, pl, False), *vec.flows(pl, pn, differ, True))
        backward = combine(*vec.flows(pl, pn, False), *vec.flows(pn, pl, differ, True))
        rows = compact(np.array(new))
        if isinstance(rows, slice):   # new classes are numbered in a run: rows and columns, not cell by cell
            self.table[rows, cols] = forward
            self.table[cols, rows] = backward
            self.self_table[rows] = self.table[rows, rows].diagonal()
        else:
            self.table[rows[:, None], cols[None, :]] = forward
            self.table[cols[:, None], rows[None, :]] = backward
            self.self_table[rows] = self.table[rows, rows]

    def _fill_others(self, new: list[int], live: list[int], fresh: set[int]) -> None:
        """Cells between the ``new`` classes and the ``live`` ones that involve a multi-interface, walked or
        dead class (single x single cells come from ``_tiles`` / ``_fill_singles``). ``fresh``: classes
        whose self cells are still to compute."""
        code = {v: i for i, v in enumerate(VERDICTS)}
        walker, reps, kinds = self.walker, self.reps, self.kinds
        new_set = set(new)
        live_singles = [c for c in live if kinds[c] == SINGLE]
        new_singles = [c for c in new if kinds[c] == SINGLE]
        special_new = [c for c in new if kinds[c] != SINGLE]
        special_live = [c for c in live if kinds[c] != SINGLE and c not in new_set]
        for c in special_new + special_live:
            targets = live_singles if c in new_set else new_singles
            if kinds[c] == COMPOUND and targets:
                self._compound(c, np.array(targets, dtype=np.int64))
        walked: set[tuple[int, int]] = set()
        for c in special_new + special_live:
            others = live if c in new_set else new
            if kinds[c] == COMPOUND:   # with single classes: interface by interface above
                others = [d for d in others if kinds[d] != SINGLE]
            for d in others:
                if c != d and self._walked(c, d):
                    walked.update(((c, d), (d, c)))
        for done, (a, b) in enumerate(walked):
            if not done % 256:
                self.check()
            self.table[a, b] = code[walker.flow(reps[a], reps[b]).verdict]
        for c in fresh:
            if kinds[c] == DEAD:
                self.self_table[c] = UNREACH
            elif kinds[c] != SINGLE:
                self.self_table[c] = code[walker.flow(reps[c], reps[c]).verdict]
                other = self._second(c)
                self.table[c, c] = code[walker.flow(reps[c], other).verdict] if other else self.self_table[c]

    def _walked(self, c: int, d: int) -> bool:
        """Whether the cells between classes c and d come from walking their representatives."""
        kinds = {self.kinds[c], self.kinds[d]}
        return DEAD not in kinds and (SCALAR in kinds or kinds == {COMPOUND})

    def _second(self, c: int) -> str | None:
        """Another member of class c, if it has one."""
        members = np.flatnonzero(self.members == c)
        others = [self.endpoints[i] for i in members[:2] if self.endpoints[i] != self.reps[c]]
        return others[0] if others else None

    def _compound(self, c: int, singles: np.ndarray) -> None:
        """A multi-interface class against single classes, choosing interfaces as ``Walker.direction`` does."""
        vec = self.vec
        idx = [i if vec.usable[i] else -1 for i in self.points_of[self.reps[c]]]
        usable = [x for x in idx if x >= 0]
        pts = self._points(singles)
        n = len(pts)
        # as source: the interface in the destination's subnet, else the first with a gateway
        fallback = next((x for x in usable if self.vec.points[x].gateway is not None), usable[0])
        ch = np.full(n, fallback, dtype=np.int64)
        for x in reversed(usable):
            ch = np.where(vec.inside[vec.net_of[x], pts], x, ch)
        out_f, out_s = np.empty(n, np.int8), np.zeros(n, np.int64)
        back_f, back_s = np.empty(n, np.int8), np.zeros(n, np.int64)   # the replies of flows towards c
        for x in usable:
            sel = np.flatnonzero(ch == x)
            if len(sel):
                (f, s), (r, rs) = vec.flows(np.array([x]), pts[sel], False), vec.flows(pts[sel], np.array([x]), True)
                out_f[sel], back_f[sel] = f[0], r[:, 0]
                if s is not None:
                    out_s[sel], back_s[sel] = s[0], rs[:, 0]
        # c as destination: the sender tries c's interfaces in a subnet it shares first, the first that delivers
        cand = np.full((len(idx), n), UNREACH, dtype=np.int8)
        cand_s = np.zeros((len(idx), n), dtype=np.int64)
        same = np.zeros((len(idx), n), dtype=bool)
        for j, x in enumerate(idx):
            if x >= 0:
                f, s = vec.flows(pts, np.array([x]), False)
                cand[j], same[j] = f[:, 0], vec.inside[vec.net_of[pts], x]
                if s is not None:
                    cand_s[j] = s[:, 0]
        delivered = cand < BLOCKED
        near, far = delivered & same, delivered & ~same
        sel = np.where(near.any(axis=0), near.argmax(axis=0),
                       np.where(far.any(axis=0), far.argmax(axis=0),
                                np.where(same.any(axis=0), same.argmax(axis=0), 0)))
        cols = np.arange(n)
        # the reply from c goes out of the interface c chooses for that source
        reply_f, reply_s = np.empty(n, np.int8), np.zeros(n, np.int64)
        for x in usable:
            pick = np.flatnonzero(ch == x)
            if len(pick):
                r, rs = vec.flows(np.array([x]), pts[pick], True)
                reply_f[pick] = r[0]
                if rs is not None:
                    reply_s[pick] = rs[0]
        stateful = vec.stateful
        self.table[c, singles] = combine(out_f, out_s if stateful else None, back_f, back_s if stateful else None)
        self.table[singles, c] = combine(cand[sel, cols], cand_s[sel, cols] if stateful else None, reply_f,
                                         reply_s if stateful else None)

    # --- incremental ---------------------------------------------------------------------------------

    def update(self, walker: Walker, moved: set[str], affected: set[str], rules: dict[str, list]) -> Matrix | None:
        """The matrix after edits where only pairs with an ``affected`` endpoint can answer differently:
        ``moved`` endpoints' interfaces changed place, and ``rules`` maps each firewall whose rules changed
        (its id; "dfw" for the DFW) to the rules edited. None when the edit needs a full build."""
        if any(e not in self.position or e in self.forwarding for e in moved):
            return None
        if any(len(walker.net.points.get(e, ())) != len(self.points_of[e]) for e in moved):
            return None
        self._use(walker)
        if moved:
            self.vec.move({i: p for e in moved for i, p in zip(self.points_of[e], self.net.points[e])}, self.keys.names)
        self.vec.forget_rules(set(rules))
        rekey = self.keys.extend([r for edited in rules.values() for r in edited])
        if rekey:
            self.keys.refresh(self.vec)
        return self._reclass(affected, rekey)

    def named(self, rules: list, dfw: bool) -> set[str]:
        """The endpoints whose pairs a change of these rules can affect: the smaller of a rule's two sides
        (its cells lie in side x other side, both ways round), or for a DFW rule the vNICs it is applied at
        among both sides."""
        sets = self.vec.sets
        points: set[int] = set()
        for rule in rules:
            src, dst = sets.match(rule.src), sets.match(rule.dst)
            sides = [src, dst]
            if dfw:
                at = sets.applied(rule.applied_to)
                sides.append(np.union1d(np.intersect1d(src, at), np.intersect1d(dst, at)))
            points.update(min(sides, key=len).tolist())
        return {self.owner_of_point[i] for i in points}

    def _use(self, walker: Walker) -> None:
        self.walker, self.net = walker, walker.net
        self.vec.walker, self.vec.net = walker, walker.net

    def _reclass(self, affected: set[str], rekey: bool) -> Matrix:
        """Give the ``affected`` endpoints classes by their new keys (a class with untouched members and that
        key, else a new one), split classes whose untouched members no longer share a key (the rules name
        something new), and compute the new classes' rows and columns."""
        touched = {self.position[e] for e in affected if e in self.position}
        splits = self._split_plan(touched) if rekey else {}
        needed = self.k + len(touched) + sum(len(parts) - 1 for parts in splits.values())
        if needed > len(self.self_table):
            self._grow(needed)
            splits = self._split_plan(touched) if rekey else {}
        for c, parts in splits.items():
            self._split(c, parts)
        fresh: list[int] = []
        groups: dict[tuple, list[int]] = {}
        for i in touched:
            groups.setdefault(self._key(self.endpoints[i]), []).append(i)
        untouched = self.count.copy()
        np.subtract.at(untouched, self.members[list(touched)], 1)
        for key, idx in groups.items():
            c = self.class_of.get(key)
            if c is not None and untouched[c] > 0:   # its cells hold for every endpoint with that key
                self._assign(idx, c)
                continue
            c = self._new_class(key, self.endpoints[idx[0]], self._kind(self.endpoints[idx[0]]))
            self._assign(idx, c)
            fresh.append(c)
        reps = np.array([self.position[r] for r in self.reps], dtype=np.int64)
        for c in np.flatnonzero((self.count[:self.k] > 0) & (self.members[reps] != np.arange(self.k))):
            self.reps[c] = self.endpoints[int(np.flatnonzero(self.members == c)[0])]   # the representative left
        live = np.flatnonzero(self.count[:self.k] > 0).tolist()
        fresh = [c for c in fresh if self.count[c]]
        self._fill_singles([c for c in fresh if self.kinds[c] == SINGLE], [c for c in live if self.kinds[c] == SINGLE])
        self._fill_others(fresh, live, set(fresh))
        return self._matrix()

    def _split_plan(self, touched: set[int]) -> dict[int, list[tuple[tuple, list[int]]]]:
        """The classes whose untouched members now have different keys, each with its parts (key, members)."""
        order = np.argsort(self.members, kind="stable")
        bounds = np.searchsorted(self.members[order], np.arange(self.k + 1))
        plan = {}
        for c in np.flatnonzero(self.count[:self.k] > 1):
            members = [i for i in order[bounds[c]:bounds[c + 1]].tolist() if i not in touched]
            parts: dict[tuple, list[int]] = {}
            for i in members:
                parts.setdefault(self._key(self.endpoints[i]), []).append(i)
            if len(parts) > 1:
                plan[int(c)] = list(parts.items())
        return plan

    def _split(self, c: int, parts: list[tuple[tuple, list[int]]]) -> None:
        """Split class c; every part keeps its cells (they hold for the untouched pairs)."""
        (key, idx), *rest = parts
        if self.class_of.get(self.class_keys[c]) == c:
            del self.class_of[self.class_keys[c]]
        self.class_keys[c] = key
        self.class_of.setdefault(key, c)
        if self.reps[c] not in {self.endpoints[i] for i in idx}:
            self.reps[c] = self.endpoints[idx[0]]
        for key, idx in rest:
            d = self._new_class(key, self.endpoints[idx[0]], self.kinds[c])
            self.table[d, :self.k] = self.table[c, :self.k]
            self.table[:self.k, d] = self.table[:self.k, c]
            self.table[d, d], self.self_table[d] = self.table[c, c], self.self_table[c]
            self._assign(idx, d)

    def _assign(self, idx: list[int], c: int) -> None:
        old = self.members[idx]
        np.subtract.at(self.count, old, 1)
        for d in np.unique(old):
            if self.count[d] == 0 and self.class_of.get(self.class_keys[d]) == d:
                del self.class_of[self.class_keys[d]]
        self.members[idx] = c
        self.count[c] += len(idx)

    def _new_class(self, key: tuple, rep: str, kind: int) -> int:
        """A class for a new key, always a new number: cells of the classes a handed-out matrix shows are never
        written again, so matrices share the table instead of copying it."""
        c = self.k
        assert c < len(self.self_table), "room is made before classes are added (_reclass)"
        self.k += 1
        self.reps.append(rep)
        self.kinds.append(kind)
        self.class_keys.append(key)
        self.count = np.append(self.count, 0)
        self.class_of.setdefault(key, c)
        return c

    def _grow(self, needed: int) -> None:
        """A bigger table for the classes with members (renumbered), leaving the old one to the matrices
        handed out."""
        live = np.flatnonzero(self.count[:self.k] > 0)
        if len(live) + (needed - self.k) > len(self.self_table) * 3 // 4:
            cap = len(live) + (needed - self.k) + _spare(needed)
        else:
            cap = len(self.self_table)
        table = np.full((cap, cap), UNREACH, dtype=np.int8)
        table[:len(live), :len(live)] = np.take(np.take(self.table, live, axis=0), live, axis=1)
        self_table = np.full(cap, UNREACH, dtype=np.int8)
        self_table[:len(live)] = self.self_table[live]
        renumber = np.full(self.k, -1, dtype=np.int32)
        renumber[live] = np.arange(len(live), dtype=np.int32)
        self.table, self.self_table = table, self_table
        self.members = renumber[self.members]
        self.reps = [self.reps[c] for c in live]
        self.kinds = [self.kinds[c] for c in live]
        self.class_keys = [self.class_keys[c] for c in live]
        self.count = self.count[live]
        self.k = len(live)
        self.class_of = {}
        for c, key in enumerate(self.class_keys):
            self.class_of.setdefault(key, c)


def _spare(k: int) -> int:
    """Room for new classes after edits (they always take new numbers), so that growing the table, which
    copies it, is rare: an eighth more."""
    return max(64, k // 8)
