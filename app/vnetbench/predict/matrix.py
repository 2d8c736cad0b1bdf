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
- classes behind a bridged firewall or a hosted NAT, routers that send by their own static routes, and pairs
  of multi-interface endpoints, by walking one representative pair.

After an edit (``update``) only the rows and columns of the classes whose inputs changed are computed; the
others keep their cells. The property tests check every path against ``Engine.predict`` on random designs,
and the incrementally kept matrix against a fresh one after random edits.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..model.hostos import endpoint_hosts
from ..model.objects import VmRole
from . import dnat, snat
from .kinds import DeviceKind
from .network import Network, Point
from .result import VERDICTS, Prediction, Verdict
from .decide import BLOCKED, UNREACH, Prefixes
from .routes import network_key
from .routetables import routes_itself
from .rules import parse_spec
from .decide import combine, destination_rank, judges, source_rank
from .vector import Vector
from .walk import Walker

SINGLE, COMPOUND, SCALAR, DEAD = range(4)
#: Square tiles of single classes computed at a time (bounds the temporaries to a few tens of MB).
TILE = 1024
#: Emptied class numbers are reused for a large edit only in runs at least this long (``_reusable``).
RUN = 16
#: Class-table cells counted at a time (``Matrix.counts``: a float weight per cell, 32 MB).
COUNT_CELLS = 1 << 22


@dataclass(frozen=True)
class Matrix:
    """Verdicts for every ordered endpoint pair: ``classes[i]`` is endpoint i's class, ``table`` class x class.

    A matrix never changes once handed out; ``prediction`` walks one pair with its full explanation."""

    endpoints: tuple[str, ...]
    classes: np.ndarray = field(repr=False, compare=False)
    table: np.ndarray = field(repr=False, compare=False)
    self_table: np.ndarray = field(repr=False, compare=False)
    engine_walker: Walker = field(repr=False, compare=False)
    #: The network the matrix was computed on: the design's own, or an IPv6 design's relabelled copy (the same
    #: segments, points and teaming; other addresses).
    net: Network = field(repr=False, compare=False)
    #: Brings ``engine_walker``'s network up to date before a story (``Engine``: an IPv6 view refreshed lazily).
    catch_up: Callable[[], object] | None = field(default=None, repr=False, compare=False)

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
        """The verdict from one endpoint to another (the classes' cell)."""
        i, j = self._pos(src_id), self._pos(dst_id)
        ci, cj = self.classes[i], self.classes[j]
        return VERDICTS[self.self_table[ci] if i == j else self.table[ci, cj]]

    def prediction(self, src_id: str, dst_id: str) -> Prediction:
        """One pair's full prediction with its story, walked on demand."""
        self._pos(src_id), self._pos(dst_id)
        if self.catch_up is not None:
            self.catch_up()
        return self.engine_walker.flow(src_id, dst_id, explain=True)

    def rows(self) -> Iterator[tuple[str, str, Verdict]]:
        """Every ordered pair with its verdict, row by row."""
        for i, src in enumerate(self.endpoints):
            row = self.table[self.classes[i]][self.classes]
            for j, dst in enumerate(self.endpoints):
                code = self.self_table[self.classes[i]] if i == j else row[j]
                yield src, dst, VERDICTS[code]

    def sizes(self) -> np.ndarray:
        """How many endpoints each class holds (its multiplicity)."""
        return np.bincount(self.classes, minlength=len(self.self_table)).astype(np.int64)

    def counts(self) -> dict[Verdict, int]:
        """How many ordered pairs (self pairs excluded) get each verdict, from the class table and the class
        sizes: a block of class rows at a time, each cell weighted by its two classes' sizes (never the
        endpoint x endpoint grid, never a copy of the class table)."""
        sizes = self.sizes()
        k = len(sizes)
        totals = np.zeros(len(VERDICTS), dtype=np.int64)
        if k:
            step = max(1, COUNT_CELLS // k)
            ones = bool((sizes == 1).all())    # every endpoint its own class: plain counts
            for lo in range(0, k, step):
                block = self.table[lo:lo + step].ravel()
                if ones:      # a comparison per verdict: three times faster than bincount's widening copy
                    totals += [np.count_nonzero(block == code) for code in range(len(VERDICTS))]
                else:
                    weights = np.multiply.outer(sizes[lo:lo + step], sizes).ravel()
                    totals += np.bincount(block, weights, len(VERDICTS)).round().astype(np.int64)
            # a class against itself counts its members' pairs, not each member with itself
            totals -= np.bincount(np.diagonal(self.table), sizes, len(VERDICTS)).round().astype(np.int64)
        return {v: int(totals[code]) for code, v in enumerate(VERDICTS)}


class _Keys:
    """What makes endpoints answer alike: per point, its place and the innermost design network holding its
    address; the names rules call it by. After a rule edit the networks and names only grow (a finer key is
    still sound), so an edit naming nothing new changes no key."""

    def __init__(self, walker: Walker, vec: Vector) -> None:
        net = walker.net
        self.networks = set(vec.routes.prefixes.networks)   # the networks devices route by (``routed_networks``)
        self.networks.update(network_key(p.iface.network) for p in vec.points if p.iface is not None)
        self.names: set[str] = set()
        for rules in _rule_lists(net):
            self.extend(rules)
        self.innermost, self._bounds = self._innermost(vec)

    def extend(self, rules: list) -> tuple[bool, set[str]]:
        """Take in what these rules name: whether a network was new (then ``refresh``), and the new names."""
        networks = len(self.networks)
        named: set[str] = set()
        for rule in rules:
            for spec in (rule.src, rule.dst):
                parsed = parse_spec(spec)
                if parsed.lo is not None and parsed.hi is not None and parsed.version == 4:
                    self.networks.add((parsed.lo, 32 - (parsed.hi - parsed.lo).bit_length()))
                elif not parsed.everything:
                    named.add(parsed.name)
            named.update(getattr(rule, "applied_to", ()))
        named -= self.names
        self.names |= named
        return len(self.networks) != networks, named

    def _innermost(self, vec: Vector) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Per point, the index of the innermost network holding its address (-1: none), and per index the
        network's first address and length (the last entry, for -1: none)."""
        prefixes = Prefixes(self.networks)
        first = np.array([a for a, _ in prefixes.networks] + [-1], dtype=np.int64)
        length = np.array([n for _, n in prefixes.networks] + [-1], dtype=np.int64)
        return prefixes.longest(vec.ip), (first, length)

    def refresh(self, vec: Vector) -> np.ndarray:
        """The innermost networks again, after ``extend`` took in new ones; the points whose innermost network
        is another one now (every other point's index may shift, but alike for all points in one network)."""
        (old_first, old_length), old = self._bounds, self.innermost
        self.innermost, self._bounds = self._innermost(vec)
        first, length = self._bounds
        return np.flatnonzero((old_first[old] != first[self.innermost]) | (old_length[old] != length[self.innermost]))

    def point(self, vec: Vector, i: int) -> tuple:
        """Point i's part of its endpoint's key. Its subnet and gateway go in as numbers: keys are hashed
        several times after every edit, and an address object hashes in Python (a thousand VMs moved: 12 ms)."""
        p = vec.points[i]
        iface, gateway = p.iface, p.gateway
        return (p.segment, None if iface is None else iface.subnet_key,
                None if gateway is None else (gateway.version, int(gateway)), p.problem, p.nic_type is None,
                int(self.innermost[i]), frozenset({p.owner, p.nic, p.portgroup} & self.names))


def _unreach_unless(blocked: np.ndarray) -> np.ndarray:
    """BLOCKED where ``blocked``, else UNREACH, as int8 (by arithmetic: ``np.where`` with two scalars costs
    three times as much on a block of millions of cells)."""
    out = blocked.view(np.int8) * np.int8(BLOCKED - UNREACH)
    out += np.int8(UNREACH)
    return out


def _rule_lists(net) -> list[list]:  # noqa: ANN001 - a Network
    return [d.rules for d in net.devices] + [b.vm.forwarding.rules for b in net.bridges] + [net.topology.nsx.dfw.rules]


class MatrixBuilder:
    """Builds the matrix and keeps what it was made from, so that after an edit only the classes whose
    inputs changed get new rows and columns (``update``)."""

    def __init__(self, walker: Walker, check: Callable[[], object] | None = None) -> None:
        self.walker = walker
        self.net = walker.net
        self.check = check or (lambda: None)
        # Class numbers are reused once no matrix that showed the class with members is held any more: the
        # class maps of the matrices handed out (with the generation each was handed out in), the generation
        # each class was made in, the classes left without members (with the generation they emptied in),
        # and those free to take now.
        self._shown: list[tuple[weakref.ref, int]] = []
        self._generation = 0
        self._born: list[int] = []
        self._emptied: dict[int, int] = {}
        self._free: list[int] = []
        self._nat: tuple[set, set] | None = None

    # --- full build ------------------------------------------------------------------------------

    def build(self) -> Matrix:
        """The whole matrix from scratch: endpoints, their classes and every cell."""
        net = self.net
        self.endpoints = [vm.id for vm in net.topology.vms] + [ph.id for ph in net.topology.physical_hosts] + \
            [h.id for h in endpoint_hosts(net.topology)]   # a hosted hypervisor's host OS
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
        self.first_point = np.array([next(iter(self.points_of[e]), -1) for e in self.endpoints], dtype=np.int64)
        self.kinds = [kinds[c] for c in order]
        self._born = [self._generation] * k
        self.class_keys = [keys[reps[c]] for c in order]
        self.class_of = {key: c for c, key in enumerate(self.class_keys)}
        self.members = np.array([self.class_of[key] for key in keys], dtype=np.int32)
        self.count = np.bincount(self.members, minlength=k).astype(np.int64)
        cap = k + _spare(k)
        self.table = np.full((cap, cap), UNREACH, dtype=np.int8)
        self.self_table = np.full(cap, UNREACH, dtype=np.int8)
        self.reps = np.full(cap, -1, dtype=np.int64)    # each class's representative (an endpoint position)
        self.reps[:k] = [reps[c] for c in order]
        singles = self.kinds.count(SINGLE)
        self._tiles(singles)
        self._rule_tables()
        self._fill_others(list(range(k)), self._by_kind(list(range(k))), fresh=set(range(k)))
        return self._matrix()

    def _tiles(self, singles: int) -> None:
        """The single classes against each other, tile by tile: each tile's flows are computed once, the
        reply direction laid out like the forward one."""
        vec = self.vec
        pts = self._points(range(singles))
        differ = vec.replies_differ
        dfw = bool(self.net.dfw_active)
        for a in range(0, singles, TILE):
            ia = slice(a, min(a + TILE, singles))
            for b in range(a, singles, TILE):
                ib = slice(b, min(b + TILE, singles))
                self.check()
                pa, pb = pts[ia], pts[ib]
                if dfw:   # a microsegmented estate: most flows stop at the source's DFW, the rest are few
                    leaving = [self._leaving(pa, pb)] + ([self._leaving(pb, pa)] if b != a else [])
                    if differ or None not in leaving:
                        self._tile(ia, ib, pa, pb, leaving[0], differ)
                        if b != a:
                            self._tile(ib, ia, pb, pa, leaving[1], differ)
                        continue
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

    def _rule_tables(self) -> None:
        """Build the first-match table of every rule list a block of flows reads (the DFW at both ends, the
        firewalls judging routed ways). Tiles cut at the source's DFW ask them about a few points at a time,
        which rule sets answer without a table; the first edit after the build would pay for them instead."""
        vec = self.vec
        owners = dict.fromkeys(vec.judged[False][0] + vec.judged[True][0])
        if self.net.dfw_active:
            owners.update(dict.fromkeys(("dfw-out", "dfw-in")))
        for owner in owners:
            vec.table(owner)

    def _leaving(self, pa: np.ndarray, pb: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The rows and columns of the block [pa, pb] that hold every flow the NSX DFW at its source lets
        leave; None when they span most of the block. A forward flow the DFW drops there is BLOCKED whatever
        its way and its reply (``Vector.flows``, then ``combine``: a failed forward direction decides), so
        the other cells need no flows."""
        allowed = self.vec.table("dfw-out", min(len(pa), len(pb))).allowed(pa, pb)
        rows, cols = np.flatnonzero(allowed.any(axis=1)), np.flatnonzero(allowed.any(axis=0))
        return (rows, cols) if 2 * len(rows) * len(cols) <= allowed.size else None

    def _tile(self, ia: slice, ib: slice, pa: np.ndarray, pb: np.ndarray,
              leaving: tuple[np.ndarray, np.ndarray] | None, differ: bool) -> None:
        """The cells [ia, ib] from the flows a -> b and their replies (judged as new flows unless ``differ``,
        as in ``_tiles``): only at ``leaving``'s rows and columns (the rest BLOCKED), or all when None."""
        vec = self.vec
        if leaving is None:
            self.table[ia, ib] = combine(*vec.flows(pa, pb, False), *vec.flows(pb, pa, differ, by_dst=True))
            return
        rows, cols = leaving
        self.table[ia, ib] = BLOCKED
        if len(rows):
            pa, pb = pa[rows], pb[cols]
            self.table[np.ix_(ia.start + rows, ib.start + cols)] = combine(*vec.flows(pa, pb, False),
                                                                           *vec.flows(pb, pa, differ, by_dst=True))

    def _matrix(self) -> Matrix:
        k = self.k
        classes = self.members.copy()
        self._shown = [(ref, g) for ref, g in self._shown if ref() is not None] + [(weakref.ref(classes),
                                                                                    self._generation)]
        self._generation += 1
        return Matrix(tuple(self.endpoints), classes, self.table[:k, :k], self.self_table[:k].copy(), self.walker,
                      self.net)

    def _reusable(self, wanted: int) -> list[int]:
        """The emptied classes no matrix still held shows with members (their cells can be written again),
        last to be taken first. For many new classes only runs of consecutive numbers: their rows and
        columns are then written as slices, several times faster than scattered ones."""
        held = [g for ref, g in self._shown if ref() is not None]
        free = np.array(sorted(c for c, g in self._emptied.items() if not any(self._born[c] <= h < g for h in held)),
                        dtype=np.int64)
        if wanted > RUN and len(free):
            runs = np.split(free, np.flatnonzero(np.diff(free) != 1) + 1)
            free = np.concatenate([run for run in runs if len(run) >= RUN] or [free[:0]])
        return free[::-1].tolist()

    def _key(self, eid: str) -> tuple:
        key = tuple(self.keys.point(self.vec, i) for i in self.points_of[eid])
        alone = eid in self.forwarding or dnat.published(self.net, self.net.points.get(eid, []))   # its own ways in
        return key + ((eid,) if alone else ())

    def _points(self, classes) -> np.ndarray:  # noqa: ANN001 - an iterable of class numbers
        """The points of single classes (each representative's one interface)."""
        return self.first_point[self.reps[np.asarray(classes, dtype=np.int64)]]

    def _rep(self, c: int) -> str:
        """The endpoint representing class c."""
        return self.endpoints[self.reps[c]]

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
        if self._nat is None:   # the hosted NAT services' segments and gateways (devices change only on a build)
            self._nat = ({p.segment for d in net.devices if d.kind is DeviceKind.NAT for p in d.points},
                         {p.ip for d in net.devices if d.kind is DeviceKind.NAT for p in d.points if p.ip})
        nat, nat_gw = self._nat
        if any(net.segment_of(p).has_bridge or p.segment in nat or nat_gw and p.gateway in nat_gw for p in usable) \
                or routes_itself(net, eid) is not None or snat.behind(net, usable) \
                or dnat.published(net, usable) or dnat.holds(net, eid):   # a router picks its way per
            # destination; a source or destination NAT's replies return through the translation (the walk mirrors
            # them), and a VM's own DNAT rules take some of its addresses for some flows
            return SCALAR
        return SINGLE if len(net.points[eid]) == 1 else COMPOUND

    # --- rows and columns of some classes -------------------------------------------------------------

    def _fill_singles(self, new: list[int], live: list[int]) -> None:
        """Rows and columns of the ``new`` single classes against the ``live`` single classes."""
        if not new or not live:
            return
        new = sorted(new)     # rows in ascending order: a run of them is written as a slice
        stranded = self._stranded(new)
        if stranded:
            near = self._near(np.array(stranded), np.array(live))
            if 2 * len(near) < len(live):   # else their subnets hold most classes: every cell costs less
                self._fill_stranded(stranded, live, near)
            else:
                stranded = []
        apart = set(stranded)
        self._fill_block([c for c in new if c not in apart], live)

    def _fill_block(self, new: list[int], live: list[int]) -> None:
        """``_fill_singles`` by computing every cell, a block of columns at a time (blocks of about ``TILE``
        squared cells stay in the processor's cache)."""
        if not new or not live:
            return
        vec = self.vec
        pn, pl = self._points(new), self._points(live)
        differ = vec.replies_differ
        rows = np.array(new)
        width = max(64, TILE * TILE // len(new))
        for lo in range(0, len(live), width):
            self.check()
            cols, pc = np.array(live[lo:lo + width]), pl[lo:lo + width]
            if differ:
                forward = combine(*vec.flows(pn, pc, False), *vec.flows(pc, pn, True, True))
                backward = combine(*vec.flows(pc, pn, False), *vec.flows(pn, pc, True, True))
            else:   # a reply is judged as a new flow: each direction's flows serve both cells ([n, c] both)
                out, back = vec.flows(pn, pc, False), vec.flows(pc, pn, False, True)
                forward, backward = combine(*out, *back), combine(*back, *out).T
            self._put(rows, cols, forward, backward)
        self.self_table[rows] = self.table[rows, rows]

    def _fill_among(self, new: list[int]) -> None:
        """The cells of the ``new`` single classes (ascending) with each other: every pair's cell [c, d] from its
        own conversation c -> d (``_fill_block`` against classes that include them computes each twice)."""
        vec = self.vec
        pn = self._points(new)
        rows = np.array(new)
        width = max(64, TILE * TILE // len(new))
        for lo in range(0, len(new), width):
            self.check()
            pc = pn[lo:lo + width]
            forward = combine(*vec.flows(pn, pc, False), *vec.flows(pc, pn, True, True))
            self.table[np.ix_(rows, rows[lo:lo + width])] = forward
        self.self_table[rows] = self.table[rows, rows]

    def _put(self, rows: np.ndarray, cols: np.ndarray, forward: np.ndarray | None, backward: np.ndarray) -> None:
        """Write cells [rows, cols] and [cols, rows] (both ascending), a run of consecutive rows, and of
        consecutive columns, at a time: a slice of rows and columns is written several times faster than cell
        by cell (columns are mostly in runs: the classes with members, with a few emptied ones between).
        ``forward`` None: the rows are written already (``_unreach_rows``)."""
        spans: list[tuple[int, int, slice | np.ndarray]] = list(_runs(cols))
        if len(spans) * RUN > len(cols):   # scattered columns: each run of rows written in one go
            spans = [(0, len(cols), cols)]
        for a, b, run in _runs(rows):
            for c, d, span in spans:
                if forward is not None:
                    self.table[run, span] = forward[a:b, c:d]
                self.table[span, run] = backward[c:d, a:b]

    def _unreach_rows(self, rows: np.ndarray) -> None:
        """Rows of new classes that reach nothing, written whole: cells with classes that have no members
        are never read (a class number taken again gets its row and column anew)."""
        for _, _, run in _runs(rows):
            self.table[run, :self.k] = UNREACH

    def _stranded(self, new: list[int]) -> list[int]:
        """The ``new`` classes with no gateway to leave their subnet by (none, or none reachable)."""
        return np.array(new)[self.vec.start[self._points(new)] < 0].tolist()

    def _fill_stranded(self, new: list[int], live: list[int], near: list[int]) -> None:
        """``_fill_singles`` for stranded classes (``_stranded``), which only talk within subnets they share.
        A conversation with anything else fails: theirs never leaves their subnet (UNREACH, or BLOCKED where
        the NSX DFW at their vNIC drops it first), and one towards them fails on the way (BLOCKED where a
        firewall drops it first) or has no way back (UNREACH, or BLOCKED where the DFW judges replies and
        drops it). So only the flows towards them (and with the DFW, the flows and replies the DFW at their
        vNICs judges) are computed, and the cells with the ``near`` classes (sharing a subnet) in full."""
        vec = self.vec
        pn, pl = self._points(new), self._points(live)
        first, which = self._alike_afar(new, pn)
        pn = pn[first]
        rows = np.array(new)
        dfw = bool(self.net.dfw_active)
        replies = dfw and bool(judges(True, bool(self.net.topology.nsx.dfw.stateful), True))
        if not dfw:
            self._unreach_rows(rows)
        width = max(64, TILE * TILE // len(new))     # live classes written at a time (blocks of ~TILE^2 cells)
        reach = width * max(1, TILE * TILE // len(first) // width)   # and computed at a time, a column per group
        for at in range(0, len(live), reach):
            self.check()
            alike_towards = vec.flows(pl[at:at + reach], pn, False, states=False)[0]   # [live, group]
            alike_out = self._dropped_at_source(pn, pl[at:at + reach]) if dfw else None   # [group, live]
            alike_back = _unreach_unless(alike_towards == BLOCKED)
            for lo in range(0, len(alike_towards), width):
                cols = np.array(live[at + lo:at + lo + width])
                back = alike_back[lo:lo + width][:, which]
                out = alike_out[:, lo:lo + width][which] if alike_out is not None else None
                if replies and out is not None:   # a reply is judged by the same DFW table as a new flow
                    back = np.where(alike_towards[lo:lo + width][:, which] < BLOCKED, out.T, back)
                self._put(rows, cols, out, back)
        among = set(new)
        self._fill_among(new)
        self._fill_block(new, [c for c in near if c not in among])

    def _alike_afar(self, new: list[int], pn: np.ndarray) -> tuple[list[int], np.ndarray]:
        """Which stranded ``new`` classes (points ``pn``) answer alike to every class outside their subnets:
        those whose keys differ only in which segment of one switch they sit on (a VLAN edit puts a portgroup's
        VMs on a new segment per host) and whose route-table columns are the same. A flow towards them or out of
        them reads the rest of their key (subnet, address, names, the switch rules may name, the DFW at them),
        and their segment only through those columns. Returns the position in ``new`` of the first of each
        group, and each class's group."""
        vec, segments = self.vec, self.net.segments
        switch = [segments[s].object_id for s in vec.seg[pn].tolist()]
        dfw = vec.behind_dfw[pn].tolist()
        ways = [np.ascontiguousarray(vec.route[reply][:, pn].T) for reply in (False, True)]   # a row per point
        groups: dict[tuple, int] = {}
        first: list[int] = []
        which = np.empty(len(new), dtype=np.int64)
        for j, c in enumerate(new):
            key = self.class_keys[c]
            afar = (switch[j], key[0][1:], key[1:], dfw[j], ways[0][j].tobytes(), ways[1][j].tobytes())
            which[j] = groups.setdefault(afar, len(groups))
            if which[j] == len(first):
                first.append(j)
        return first, which

    def _dropped_at_source(self, pn: np.ndarray, pc: np.ndarray) -> np.ndarray:
        """Cells [stranded, other] of flows from stranded classes' points ``pn`` (``_fill_stranded``): BLOCKED
        where the DFW at their vNIC drops the flow (or the reply, where the DFW judges replies: the same table),
        else UNREACH (it never leaves their subnet). Only the DFW's table is read, not the whole flow
        (``Vector.flows``: a stranded source has no routed way); the cells with the classes sharing a subnet are
        computed in full afterwards."""
        if not judges(True, bool(self.net.topology.nsx.dfw.stateful), False):
            return np.full((len(pn), len(pc)), UNREACH, dtype=np.int8)
        allowed = self.vec.table("dfw-out", min(len(pn), len(pc))).allowed(pn, pc)
        return _unreach_unless(~allowed)

    def _near(self, new: np.ndarray, live: np.ndarray) -> list[int]:
        """The ``live`` single classes sharing a subnet with one of the ``new`` ones (either's address in the
        other's subnet)."""
        vec = self.vec
        pn, pl = self._points(new), self._points(live)
        in_new = vec.inside[np.unique(vec.net_of[pn])][:, pl].any(axis=0)
        nets, which = np.unique(vec.net_of[pl], return_inverse=True)
        holds_new = vec.inside[:, pn][nets].any(axis=1)[which.ravel()]   # (the new ones' columns first: few)
        return live[in_new | holds_new].tolist()

    def _by_kind(self, classes: list[int]) -> dict[int, list[int]]:
        """These classes (ascending) by kind, in one pass over an array of kinds (the live classes are
        thousands)."""
        at = np.asarray(classes, dtype=np.int64)
        kinds = np.asarray(self.kinds, dtype=np.int8)[at]
        return {kind: at[kinds == kind].tolist() for kind in (SINGLE, COMPOUND, SCALAR, DEAD)}

    def _fill_others(self, new: list[int], live_by: dict[int, list[int]], fresh: set[int]) -> None:
        """Cells between the ``new`` classes and the live ones (``live_by``: by kind, ``_by_kind``) that
        involve a multi-interface, walked or dead class (single x single cells come from ``_tiles`` /
        ``_fill_singles``). ``fresh``: classes whose self cells are still to compute."""
        code = {v: i for i, v in enumerate(VERDICTS)}
        walker, rep, kinds = self.walker, self._rep, self.kinds
        new_set = set(new)
        new_singles = [c for c in new if kinds[c] == SINGLE]
        special_new = [c for c in new if kinds[c] != SINGLE]
        live = sorted(c for kind in live_by.values() for c in kind) if special_new else []   # (only then read)
        # a class without a usable interface answers UNREACH to all (written: a reused number holds old cells)
        for rows, cols in (([c for c in special_new if kinds[c] == DEAD], live), (new, live_by[DEAD])):
            if rows and cols:
                self.table[np.ix_(rows, cols)] = UNREACH
                self.table[np.ix_(cols, rows)] = UNREACH
        special_live = sorted(c for kind in (COMPOUND, SCALAR, DEAD) for c in live_by[kind] if c not in new_set)
        self._compounds([c for c in special_new if kinds[c] == COMPOUND], live_by[SINGLE])
        self._compounds([c for c in special_live if kinds[c] == COMPOUND], new_singles)
        new_compounds = [c for c in special_new if kinds[c] == COMPOUND]
        self._compound_pairs(new_compounds, live_by[COMPOUND])
        self._compound_pairs([c for c in special_live if kinds[c] == COMPOUND], new_compounds)
        walked: set[tuple[int, int]] = set()
        not_single = {True: sorted(c for kind in (COMPOUND, SCALAR, DEAD) for c in live_by[kind]),
                      False: special_new}    # (the new classes are live too)
        for c in special_new + special_live:
            others = live if c in new_set else new
            if kinds[c] == COMPOUND:   # with single classes: interface by interface above
                others = not_single[c in new_set]
            for d in others:
                if c != d and self._walked(c, d):
                    walked.update(((c, d), (d, c)))
        for done, (a, b) in enumerate(walked):
            if not done % 256:
                self.check()
            self.table[a, b] = code[walker.flow(rep(a), rep(b)).verdict]
        for c in fresh:
            if kinds[c] == DEAD:
                self.self_table[c] = UNREACH
            elif kinds[c] != SINGLE:
                self.self_table[c] = code[walker.flow(rep(c), rep(c)).verdict]
                other = self._second(c)
                self.table[c, c] = code[walker.flow(rep(c), other).verdict] if other else self.self_table[c]

    def _walked(self, c: int, d: int) -> bool:
        """Whether the cells between classes c and d come from walking their representatives."""
        kinds = {self.kinds[c], self.kinds[d]}
        return DEAD not in kinds and SCALAR in kinds

    def _compound_pairs(self, sources: list[int], targets: list[int]) -> None:
        """Cells [c, d] of multi-interface classes with each other, as ``Walker.flow`` answers them: towards
        each interface of d, c sends from the interface ``decide.source_rank`` puts first; of d's interfaces
        the one ``decide.destination_rank`` puts first is reached; d replies from its interface ranked first
        for c's sending one. A class with itself is left to ``_fill_others`` (two members' pair)."""
        if not sources or not targets:
            return
        vec = self.vec
        xs_of, ys_of = self._interfaces(sources), self._interfaces(targets)
        xs, ys = np.unique(xs_of[xs_of >= 0]), np.unique(ys_of[ys_of >= 0])
        out_f, out_s = vec.flows(xs, ys, False)            # [x, y]: c's interface x to d's interface y
        rep_f, rep_s = vec.flows(ys, xs, True)             # [y, x]: the reply from y to x
        dead_y = ys_of < 0
        col_y = np.searchsorted(ys, np.maximum(ys_of, 0))  # [d, w]: y's column
        ny, nd = np.maximum(ys_of, 0), np.arange(len(targets))
        gateway_y = np.array([[vec.points[y].gateway is not None for y in row] for row in ny])
        for c, x_idx in zip(sources, xs_of):
            x_idx = x_idx[x_idx >= 0]
            row_x = np.searchsorted(xs, x_idx)
            near = vec.inside[vec.net_of[x_idx][:, None, None], ny[None]] & ~dead_y[None]   # [x, d, w]
            gateway = np.array([vec.points[x].gateway is not None for x in x_idx])[:, None, None]
            ch = source_rank(True, gateway, near).argmin(axis=0)                             # [d, w]
            cand = np.where(dead_y, UNREACH, out_f[row_x[ch], col_y]).astype(np.int8)
            sel = destination_rank(cand < BLOCKED, near.any(axis=0)).argmin(axis=1)         # [d]
            x_sel, y_cell = x_idx[ch[nd, sel]], (row_x[ch[nd, sel]], col_y[nd, sel])
            # d's reply leaves by the interface it ranks first for x_sel
            z_near = vec.inside[vec.net_of[ny], x_sel[:, None]]                                 # [d, w]
            z = np.where(dead_y, 3, source_rank(True, gateway_y, z_near)).argmin(axis=1)
            reply_at = (col_y[nd, z], np.searchsorted(xs, x_sel))
            self.table[c, targets] = combine(cand[nd, sel], _cells_at(out_s, *y_cell), rep_f[reply_at],
                                             _cells_at(rep_s, *reply_at))

    def _interfaces(self, classes: list[int]) -> np.ndarray:
        """[class, interface] of the representatives' usable points (-1: unusable, or past its last)."""
        idx = [[i if self.vec.usable[i] else -1 for i in self.points_of[self._rep(c)]] for c in classes]
        width = max(len(x) for x in idx)
        return np.array([x + [-1] * (width - len(x)) for x in idx], dtype=np.int64)

    def _second(self, c: int) -> str | None:
        """Another member of class c, if it has one."""
        members = np.flatnonzero(self.members == c)
        others = [self.endpoints[i] for i in members[:2] if i != self.reps[c]]
        return others[0] if others else None

    def _compounds(self, classes: list[int], targets: list[int]) -> None:
        """Multi-interface classes against single classes, choosing interfaces as ``Walker.direction`` does.
        The flows of every interface of a group of classes with every single class are computed in four
        blocks (not per class and interface: a hundred such classes made a thousand small queries); each
        class then picks its cells from them."""
        if not classes or not targets:
            return
        singles = np.array(targets, dtype=np.int64)
        pts = self._points(singles)
        group: list[int] = []
        width = 0
        for c in classes:
            group.append(c)
            width += len(self.points_of[self._rep(c)])
            if width * len(pts) >= TILE * TILE:
                self._compound_group(group, singles, pts)
                group, width = [], 0
        self._compound_group(group, singles, pts)

    def _compound_group(self, classes: list[int], singles: np.ndarray, pts: np.ndarray) -> None:
        if not classes:
            return
        vec = self.vec
        idx_of = {c: [i if vec.usable[i] else -1 for i in self.points_of[self._rep(c)]] for c in classes}
        xs = np.array(sorted({x for idx in idx_of.values() for x in idx if x >= 0}), dtype=np.int64)
        row = {int(x): r for r, x in enumerate(xs)}
        (out_f, out_s), (back_f, back_s), (in_f, in_s), (reply_f, reply_s) = self._group_flows(xs, pts)
        n = len(pts)
        cols = np.arange(n)
        nets = vec.net_of[pts]
        for c in classes:
            idx = idx_of[c]
            # as source: the interface ``decide.source_rank`` puts first for each destination
            ranks = np.array([source_rank(vec.usable[x], vec.points[x].gateway is not None, vec.inside[vec.net_of[x], pts])
                              if x >= 0 else np.full(n, 3) for x in idx])
            ch = np.array([row.get(x, -1) for x in idx], dtype=np.int64)[ranks.argmin(axis=0)]
            # c as destination: the sender tries c's interfaces in a subnet it shares first, the first that delivers
            rows = np.array([row.get(x, 0) for x in idx], dtype=np.int64)
            dead = np.array([x < 0 for x in idx])[:, None]
            cand = np.where(dead, UNREACH, in_f[rows]).astype(np.int8)
            same = ~dead & vec.inside[nets[None, :], np.maximum(idx, 0)[:, None]]
            sel = destination_rank(cand < BLOCKED, same).argmin(axis=0)
            # the reply from c goes out of the interface c chooses for that source
            cand_s = np.where(dead, 0, in_s[rows]) if in_s is not None else None
            self.table[c, singles] = combine(out_f[ch, cols], _cells_at(out_s, ch, cols), back_f[ch, cols],
                                             _cells_at(back_s, ch, cols))
            self.table[singles, c] = combine(cand[sel, cols], _cells_at(cand_s, sel, cols), reply_f[ch, cols],
                                             _cells_at(reply_s, ch, cols))

    def _meeting(self, xs: np.ndarray, pts: np.ndarray) -> np.ndarray | None:
        """The positions in ``pts`` that the NSX DFW lets a flow leave towards some of ``xs``, or that some of
        ``xs`` lets one leave to; None when they are most of them."""
        dfw = self.vec.table("dfw-out", min(len(xs), len(pts)))
        found = np.flatnonzero(dfw.allowed(xs, pts).any(axis=0) | dfw.allowed(pts, xs).any(axis=1))
        return found if 2 * len(found) <= len(pts) else None

    def _group_flows(self, xs: np.ndarray, pts: np.ndarray) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """Per interface x (rows) and single (columns): x's flow out and its reply, the flow in and its reply.
        With the NSX DFW, computed only at the singles that some x lets a flow leave to or that let one leave
        towards some x (``_meeting``); the others read BLOCKED (state 0) throughout: both their forward flows
        are dropped at the source, and a failed forward direction decides a cell whatever its reply
        (``combine``)."""
        vec = self.vec

        def four(p: np.ndarray) -> list[tuple[np.ndarray, np.ndarray | None]]:
            return [vec.flows(xs, p, False), vec.flows(p, xs, True, by_dst=True), vec.flows(p, xs, False, by_dst=True),
                    vec.flows(xs, p, True)]

        open_ = self._meeting(xs, pts) if self.net.dfw_active else None
        if open_ is None:
            return four(pts)
        blocks = []
        for f, state in four(pts[open_]) if len(open_) else [(None, None)] * 4:
            full = np.full((len(xs), len(pts)), BLOCKED, dtype=np.int8)
            states = np.zeros((len(xs), len(pts)), dtype=vec.states[False].dtype) if vec.stateful else None
            if f is not None:
                full[:, open_] = f
                if states is not None:
                    states[:, open_] = state
            blocks.append((full, states))
        return blocks

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
        grew, named = self.keys.extend([r for edited in rules.values() for r in edited])
        renamed = set(self.keys.refresh(self.vec).tolist()) if grew else set()   # the points whose keys changed
        if named:
            by_name = self.vec.sets.by_name
            renamed.update(i for name in named for i in by_name.get(name, ()))
        return self._reclass(affected, renamed)

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
        self._nat = None
        self.vec.walker, self.vec.net = walker, walker.net

    def _reclass(self, affected: set[str], renamed: set[int]) -> Matrix:
        """Give the ``affected`` endpoints classes by their new keys (a class with untouched members and that
        key, else a new one), split classes whose untouched members no longer share a key (the rules name
        something new: only classes holding a ``renamed`` point, one whose key that changed, can split), and
        compute the new classes' rows and columns."""
        touched = {self.position[e] for e in affected if e in self.position}
        groups: dict[tuple, list[int]] = {}
        for i in touched:
            groups.setdefault(self._key(self.endpoints[i]), []).append(i)
        owners = {self.position[self.owner_of_point[i]] for i in renamed}
        splits = self._split_plan(touched, owners)
        wanted = len(groups) + sum(len(parts) - 1 for parts in splits.values())
        self._free = self._reusable(wanted)
        if self.k + max(0, wanted - len(self._free)) > len(self.self_table):
            self._grow(self.k + wanted)
            splits = self._split_plan(touched, owners)
        for c, parts in splits.items():
            self._split(c, parts)
        fresh: list[int] = []
        untouched = self.count.copy()
        np.subtract.at(untouched, self.members[list(touched)], 1)
        moving, into = [], []
        for key, idx in groups.items():
            found = self.class_of.get(key)
            if found is None or untouched[found] == 0:   # else its cells hold for every endpoint with that key
                found = self._new_class(key, idx[0], self._kind(self.endpoints[idx[0]]))
                fresh.append(found)
            moving += idx
            into += [found] * len(idx)
        self._assign(moving, np.array(into, dtype=np.int32))
        for left in np.flatnonzero((self.count[:self.k] > 0) & (self.members[self.reps[:self.k]] != np.arange(self.k))):
            self.reps[left] = int(np.flatnonzero(self.members == left)[0])   # the representative left
        live = np.flatnonzero(self.count[:self.k] > 0).tolist()
        fresh = [c for c in fresh if self.count[c]]
        live_by = self._by_kind(live)
        self._fill_singles([c for c in fresh if self.kinds[c] == SINGLE], live_by[SINGLE])
        self._fill_others(fresh, live_by, set(fresh))
        return self._matrix()

    def _split_plan(self, touched: set[int], renamed: set[int]) -> dict[int, list[tuple[tuple, list[int]]]]:
        """The classes whose untouched members now have different keys, each with its parts (key, members).
        Members of a class shared its key, so only a class holding a ``renamed`` endpoint can split."""
        if not renamed:
            return {}
        order = np.argsort(self.members, kind="stable")
        bounds = np.searchsorted(self.members[order], np.arange(self.k + 1))
        plan = {}
        held = np.unique(self.members[np.fromiter(renamed, dtype=np.int64, count=len(renamed))])
        for c in held[self.count[held] > 1]:
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
        if self.reps[c] not in idx:
            self.reps[c] = idx[0]
        for key, idx in rest:
            d = self._new_class(key, idx[0], self.kinds[c])
            self.table[d, :self.k] = self.table[c, :self.k]
            self.table[:self.k, d] = self.table[:self.k, c]
            self.table[d, d], self.self_table[d] = self.table[c, c], self.self_table[c]
            self._assign(idx, d)

    def _assign(self, idx: list[int], classes: np.ndarray | int) -> None:
        """Put endpoints ``idx`` in ``classes`` (one each, or one for all); a class left empty stops answering
        for its key, which the class taking it over then does."""
        if len(self.count) < self.k:    # new classes
            self.count = np.concatenate([self.count, np.zeros(self.k - len(self.count), dtype=np.int64)])
        classes = np.broadcast_to(np.asarray(classes, dtype=np.int32), (len(idx),))
        old = self.members[idx]
        np.subtract.at(self.count, old, 1)
        np.add.at(self.count, classes, 1)
        self.members[idx] = classes
        for d in np.unique(old[self.count[old] == 0]).tolist():
            self._emptied[d] = self._generation
            if self.class_of.get(self.class_keys[d]) == d:
                del self.class_of[self.class_keys[d]]
        for c in np.unique(classes).tolist():
            self.class_of.setdefault(self.class_keys[c], c)

    def _new_class(self, key: tuple, rep: int, kind: int) -> int:
        """A class for a new key: a free number (``_reusable``), else a new one. Cells of the classes a
        handed-out matrix shows with members are never written again, so matrices share the table instead of
        copying it. Free numbers are taken smallest first, so new classes stay in ascending order."""
        if self._free:
            c = self._free.pop()
            del self._emptied[c]
            self.kinds[c], self.class_keys[c], self._born[c] = kind, key, self._generation
        else:
            c = self.k
            assert c < len(self.self_table), "room is made before classes are added (_reclass)"
            self.k += 1
            self.kinds.append(kind)
            self._born.append(self._generation)
            self.class_keys.append(key)
        self.reps[c] = rep
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
        n = len(live)
        table = np.empty((cap, cap), dtype=np.int8)
        for lo in range(0, n, TILE):   # a block of rows at a time: no temporary as large as the table
            hi = min(lo + TILE, n)
            table[lo:hi, :n] = np.take(np.take(self.table, live[lo:hi], axis=0), live, axis=1)
        table[:n, n:] = UNREACH
        table[n:] = UNREACH
        self_table = np.full(cap, UNREACH, dtype=np.int8)
        self_table[:len(live)] = self.self_table[live]
        renumber = np.full(self.k, -1, dtype=np.int32)
        renumber[live] = np.arange(len(live), dtype=np.int32)
        self.table, self.self_table = table, self_table
        self.members = renumber[self.members]
        reps = np.full(cap, -1, dtype=np.int64)
        reps[:len(live)] = self.reps[live]
        self.reps = reps
        self.kinds = [self.kinds[c] for c in live]
        self._born = [self._born[c] for c in live]
        self.class_keys = [self.class_keys[c] for c in live]
        self.count = self.count[live]
        self.k = len(live)
        self.class_of = {}
        for c, key in enumerate(self.class_keys):
            self.class_of.setdefault(key, c)
        self._shown, self._emptied, self._free = [], {}, []   # the matrices handed out keep the old table


def _cells_at(states: np.ndarray | None, rows: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
    """The stateful-firewall set ids at (rows[i], cols[i]), or None where no way passes one."""
    return states[rows, cols] if states is not None else None


def _runs(rows: np.ndarray) -> Iterator[tuple[int, int, slice]]:
    """The runs of consecutive numbers in ascending ``rows``: (first position, end position, their slice)."""
    starts = np.flatnonzero(np.diff(rows) != 1) + 1
    for a, b in zip([0, *starts.tolist()], [*starts.tolist(), len(rows)]):
        yield a, b, slice(int(rows[a]), int(rows[b - 1]) + 1)


def _spare(k: int) -> int:
    """Room for new classes after edits (they always take new numbers), so that growing the table, which
    copies it, is rare: an eighth more."""
    return max(64, k // 8)
