"""The vectorised part of the matrix: verdict codes for blocks of (source, destination) interface pairs.

Points are the interfaces of every endpoint (VMs and physical hosts) in endpoint order. A flow between two
points is decided as the walk decides it (SEMANTICS 4), for a whole block of pairs at once:

- the destination inside the source's subnet: the L2 code from the segment labels of ``network``;
- otherwise the routed way of ``routes``: the source's start (its gateway) and the destination's route key;
- the NSX DFW at the source going out and at the destination coming in, and the firewalls that judge the
  routed way, each as a first-match table (``firstmatch``) over the points.

Nothing here walks per pair or loops over rules per pair, and nothing here decides: the rules that turn
these facts into verdict codes are ``decide``'s, the same the walk calls.
"""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np

from . import decide
from .decide import BLOCKED, UNREACH, blend, judges
from .dfwsets import DfwSets
from .firstmatch import FirstMatch, RuleSets, take
from .network import Point
from .routes import RoutedWay
from .rules import generic, parse_spec
from .walk import Walker, behind_dfw


def _keep_freed_memory() -> None:
    """Let glibc keep freed blocks for reuse instead of handing each back to the kernel at once.

    A tile of flows makes a dozen temporaries of about a megabyte. With glibc's defaults every one is mapped
    fresh and unmapped when freed, so each costs its page faults: measured, that made the arithmetic on a
    tile twenty times slower. Raising the thresholds (blocks up to 64 MB come from the heap, and up to
    256 MB of free heap is kept) removes that. Other C libraries are left alone."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    mallopt(m_mmap_threshold, 64 << 20)
    mallopt(m_trim_threshold, 256 << 20)
    mallopt(m_top_pad, 16 << 20)


_keep_freed_memory()


#: The DFW's rule tables: at the source going out, at the destination coming in.
_DFW_SIDES = ("dfw-out", "dfw-in")
#: Up to this many points on one side (or one point in ``_FEW_SHARE``), a query after an edit is answered from
#: the rule sets (no table): a row of them costs about a two-hundredth of building the table.
_FEW = 16
_FEW_SHARE = 200


class PointSets:
    """The points a rule's address names (``match``) and the vNICs a DFW rule is applied at (``applied``)."""

    def __init__(self, points: list[Point], ips: np.ndarray, switch_of: list[str | None]) -> None:
        self.n = len(points)
        self.order = np.argsort(ips, kind="stable")
        self.sorted_ips = ips[self.order]
        self.by_name: dict[str, list[int]] = {}
        self.by_target: dict[str, list[int]] = {}
        for i, p in enumerate(points):
            for name in dict.fromkeys((p.owner, p.nic, p.portgroup)):
                if name is not None:
                    self.by_name.setdefault(name, []).append(i)
            for target in dict.fromkeys((p.owner, p.nic, p.portgroup, switch_of[i])):
                if target is not None:
                    self.by_target.setdefault(target, []).append(i)
        self.everything = np.arange(self.n, dtype=np.int64)
        self._match: dict[str, np.ndarray] = {}
        self._applied: dict[tuple[str, ...], np.ndarray] = {}
        self._both: dict[tuple, np.ndarray] = {}

    def move(self, i: int, before: tuple[str | None, str | None], after: tuple[str | None, str | None]) -> None:
        """Point i's portgroup and switch changed from ``before`` to ``after`` (moving keeps its address)."""
        for names, old, new in ((self.by_name, before[:1], after[:1]), (self.by_target, before, after)):
            for name in {n for n in old if n is not None} - set(new):
                names[name] = [j for j in names.get(name, ()) if j != i]
            for name in {n for n in new if n is not None} - set(old):
                names.setdefault(name, []).append(i)
                names[name].sort()

    def forget(self, names: set[str]) -> None:
        """Drop the cached answers that depend on these names."""
        self._match = {k: v for k, v in self._match.items() if k not in names}
        self._applied = {k: v for k, v in self._applied.items() if not set(k) & names}
        self._both = {k: v for k, v in self._both.items() if k[0] not in names and not set(k[1]) & names}

    def match(self, spec: str | None) -> np.ndarray:
        """The points a rule's source or destination names (cached per text)."""
        key = spec or ""
        found = self._match.get(key)
        if found is None:
            parsed = parse_spec(spec)
            if parsed.everything:
                found = self.everything
            else:
                found = np.array(self.by_name.get(parsed.name, ()), dtype=np.int64)   # ascending, each once
                if parsed.lo is not None and parsed.hi is not None and parsed.version == 4:
                    lo, hi = np.searchsorted(self.sorted_ips, [parsed.lo, parsed.hi + 1])
                    found = np.unique(np.concatenate([found, self.order[lo:hi]]))
            self._match[key] = found
        return found

    def both(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The points in both sets (sorted arrays)."""
        if a is self.everything or b is self.everything:
            return b if a is self.everything else a
        small, large = (a, b) if len(a) <= len(b) else (b, a)
        if not len(small) or not len(large):
            return small[:0]
        at = np.minimum(np.searchsorted(large, small), len(large) - 1)
        return small[large[at] == small]

    def applied_match(self, spec: str | None, targets: list[str]) -> np.ndarray:
        """The points ``spec`` names among those a DFW rule applied to ``targets`` sits at."""
        key = (spec or "", tuple(targets))
        found = self._both.get(key)
        if found is None:
            found = self._both[key] = self.both(self.match(spec), self.applied(targets))
        return found

    def applied(self, targets: list[str]) -> np.ndarray:
        """The points a DFW rule is applied to (cached per target list)."""
        key = tuple(targets)
        found = self._applied.get(key)
        if found is None:
            if not targets:
                found = self.everything
            elif len(key) == 1:   # a rule per VM: its one target's points (ascending, each once)
                found = np.array(self.by_target.get(key[0], ()), dtype=np.int64)
            else:
                found = np.unique(np.array([i for t in key for i in self.by_target.get(t, ())], dtype=np.int64))
            self._applied[key] = found
        return found


class Vector:
    """Every point's arrays, the routed way and the rule tables; ``flows`` answers a block of pairs."""

    def __init__(self, walker: Walker, points: list[Point]) -> None:
        self.walker, self.net = walker, walker.net
        self.points = list(points)
        self.n = n = len(points)
        self.seg = np.zeros(n, dtype=np.int64)
        self.usable = np.zeros(n, dtype=bool)
        self.ip = np.full(n, -1, dtype=np.int64)
        self.behind_dfw = np.zeros(n, dtype=bool)          # the vNICs the DFW filters at
        self.networks: dict = {None: 0}
        self.net_of = np.zeros(n, dtype=np.int64)
        self._place(np.arange(n), self.points)
        self.inside = np.zeros((len(self.networks), n), dtype=bool)
        for network, row in self.networks.items():
            if network is not None:
                self.inside[row] = self._holds(network)
        self._labels()
        self.routes = RoutedWay(walker, self.ip)
        self.rkey = self.routes.route_keys(self.ip)
        self.start = np.full(n, -1, dtype=np.int64)
        self.phys0 = np.zeros(n, dtype=np.int64)
        self._starts(np.arange(n), self.points)
        self.stateful = self._stateful()
        self.rtype = np.zeros(n, dtype=np.int64)
        self._route_tables()
        self._tables: dict[str, FirstMatch] = {}
        self._rule_sets: dict[str, RuleSets] = {}
        self._dfw_sets = DfwSets(n, self.behind_dfw)     # the DFW's, kept across its rules' edits
        self._sets: PointSets | None = None
        self._bounds_of: tuple[tuple[np.ndarray, np.ndarray], int] | None = None

    # --- per point --------------------------------------------------------------------------------------

    def _place(self, idx: np.ndarray, points: list[Point]) -> None:
        """The arrays at ``idx`` for these points (written a column at a time: a thousand moved points cost
        a few list passes, not a numpy write per point and array)."""
        self.usable[idx] = [p.segment is not None and p.iface is not None for p in points]
        self.behind_dfw[idx] = [behind_dfw(p) for p in points]
        self.seg[idx] = [p.segment if p.segment is not None else 0 for p in points]
        self.ip[idx] = [int(p.ip) if p.ip is not None else -1 for p in points]
        rows: dict[int, int] = {}    # by the network object's id (interned: few per call, each hashed once)
        for j, p in enumerate(points):
            network = p.iface.network if p.iface is not None else None
            row = rows.get(id(network))
            if row is None:
                row = rows[id(network)] = self.networks.setdefault(network, len(self.networks))
            self.net_of[idx[j]] = row

    def _starts(self, idx: np.ndarray, points: list[Point]) -> None:
        """``start`` and ``phys0`` at ``idx`` for these points (``RoutedWay.start``, asked once per segment,
        gateway and subnet: the points sharing them share the answer)."""
        found: dict[tuple, tuple[int, int]] = {}
        starts, phys0 = [], []
        for p in points:
            key = (p.segment, id(p.gateway), id(p.iface.network) if p.iface is not None else None)
            answer = found.get(key)
            if answer is None:
                answer = found[key] = self.routes.start(p)
            starts.append(answer[0])
            phys0.append(answer[1])
        self.start[idx], self.phys0[idx] = starts, phys0

    def _holds(self, network) -> np.ndarray:  # noqa: ANN001 - an IPv4Network
        return decide.inside(self.ip, int(network.network_address), int(network.netmask))

    def _labels(self) -> None:
        """The segment labels as arrays (``decide.Labels``)."""
        self.labels = decide.Labels(self.net.segments)

    def l2(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``decide.l2_code`` on segment ids, elementwise (broadcasting)."""
        return self.labels.code(a, b)

    def l2_verdict(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The verdict code of an unrouted delivery between segments (``decide.l2_verdict``)."""
        return self.labels.verdict(a, b)

    def _stateful(self) -> bool:
        """Whether any way passes a stateful firewall (then the directions' stateful sets are compared)."""
        return len(self.routes.states) > 1

    @property
    def replies_differ(self) -> bool:
        """Whether a reply can be judged differently from a new flow (a stateful firewall or DFW)."""
        net = self.net
        if net.dfw_active and net.topology.nsx.dfw.stateful:
            return True
        return any(d.stateful and d.kind.appliance for d in net.devices) or \
            any(b.vm.forwarding.stateful for b in net.bridges)

    # --- the routed way as tables over the points -----------------------------------------------------------

    def _route_tables(self) -> None:
        """Per direction: ``route`` [1 + 2 * start + first leg crosses a pNIC, point] (row 0: no gateway),
        ``states`` [1 + start, point], and the firewalls judging the ways (``_judges``)."""
        routes = self.routes
        starts = len(routes.start_rep)
        self.route: dict[bool, np.ndarray] = {}
        self.states: dict[bool, np.ndarray] = {}
        self._transposed: dict[tuple, np.ndarray] = {}
        for reply in (False, True):
            self.route[reply] = np.full((1 + 2 * starts, self.n), UNREACH, dtype=np.int8)
            self.states[reply] = np.zeros((1 + starts, self.n), dtype=_narrowest(len(routes.states)))
        for lo in range(0, self.n, 2048):
            self._route_columns(np.arange(lo, min(lo + 2048, self.n)))
        self._judges()

    def _route_columns(self, cols: np.ndarray) -> None:
        """The route tables' columns of some points (all starts at once)."""
        routes = self.routes
        self.rtype[cols] = np.where(self.start[cols] >= 0, 1 + 2 * self.start[cols] + self.phys0[cols], 0)
        starts = np.arange(len(routes.start_rep))[:, None]
        keys, segs = np.maximum(self.rkey[cols], 0)[None, :], self.seg[cols][None, :]
        for reply in (False, True):
            route = self.route[reply]
            for phys0 in (0, 1):
                route[1 + 2 * starts + phys0, cols[None, :]] = routes.codes(reply, starts, np.bool_(phys0), keys,
                                                                           segs, self.l2)
            route[:, cols[self.rkey[cols] < 0]] = UNREACH
            self.states[reply][1 + starts, cols[None, :]] = routes.chains[reply].state[starts, keys]
        self._transposed_columns(cols)

    def _transposed_columns(self, cols: np.ndarray) -> None:
        """Bring the transposed copies ``_take`` reads replies from up to date for these points (copying a
        whole table again costs ten megabytes at 10,000 points); a copy whose table changed shape goes."""
        for key, copy in list(self._transposed.items()):
            name, reply = key
            table = getattr(self, name) if reply is None else getattr(self, name)[reply]
            if copy.shape != table.shape[::-1]:
                del self._transposed[key]
            else:
                copy[cols] = table[:, cols].T

    def _judges(self) -> None:
        """Per direction, the firewalls judging routed ways as patterns (owners, starts, keys): pattern p's
        firewall ``owners[p]`` judges the way from each start marked in ``starts[p]`` to each route key marked
        in ``keys[p]`` (both indexed so that -1, no start or no key, reads False). A firewall's starts are grouped by the keys it
        judges for them: a rack's firewall judges the ways from every other start to the keys behind it
        alike, so a block of flows asks it a few times, not once per start."""
        self.judged = {}
        for reply in (False, True):
            owners, from_start, to_key = [], [], []
            for owner, cells in self.routes.judged_cells(reply).items():
                alike: dict[bytes, list[int]] = {}
                for s, row in enumerate(np.packbits(cells, axis=1)):
                    alike.setdefault(row.tobytes(), []).append(s)
                for starts in alike.values():
                    if cells[starts[0]].any():
                        owners.append(owner)
                        from_start.append(np.isin(np.arange(len(cells) + 1), starts))
                        to_key.append(np.append(cells[starts[0]], False))
            self.judged[reply] = (owners, np.array(from_start, dtype=bool), np.array(to_key, dtype=bool))

    # --- rule tables --------------------------------------------------------------------------------------

    @property
    def sets(self) -> PointSets:
        """The point sets rules are matched against, made on first use."""
        if self._sets is None:
            self._sets = PointSets(self.points, self.ip, [self._switch_of(p) for p in self.points])
        return self._sets

    def forget_rules(self, owners: set[str]) -> None:
        """Rules of these firewalls (ids; "dfw" for the DFW) changed: their tables are built again when needed."""
        for owner in owners:
            for name in _DFW_SIDES if owner == "dfw" else (owner,):
                self._tables.pop(name, None)
                self._rule_sets.pop(name, None)

    def table(self, owner: str, asked: int | None = None) -> FirstMatch | RuleSets:
        """The first-match table of a firewall (by id), or of the DFW at the source ("dfw-out") or at the
        destination ("dfw-in"). ``asked``: how many points one side of the query has; a few are answered
        from the rule sets without building the table (after an edit)."""
        found = self._tables.get(owner)
        if found is not None:
            return found
        sets = self._rule_sets.get(owner)
        if sets is None:
            self._rule_sets.update(self._dfw_sets.read(self.sets, self.net.topology.nsx.dfw) if owner in _DFW_SIDES else {owner: RuleSets(*self._sets_of(owner))})
            sets = self._rule_sets[owner]
        if asked is not None and asked <= max(_FEW, self.n // _FEW_SHARE):
            return sets
        found = self._tables[owner] = FirstMatch(sets.n, sets.keys, sets.others, sets.allow, sets.default,
                                                 sets.enforced)
        return found

    def _sets_of(self, owner: str) -> tuple:
        """A firewall's rule list as point sets: (n, keys, others, allow, default allow, enforced)."""
        sets = self.sets
        rules, default = self._rules_of(owner)
        live = [r for r in rules if generic(r)]
        return (self.n, [sets.match(r.src) for r in live], [sets.match(r.dst) for r in live],
                [r.action == "allow" for r in live], default == "allow", None)

    def _rules_of(self, owner: str) -> tuple[list, object]:
        for device in self.net.devices:
            if device.id == owner:
                return device.rules, device.default_policy
        bridge = next(b for b in self.net.bridges if b.vm.id == owner)
        return bridge.vm.forwarding.rules, bridge.vm.forwarding.default_policy

    # --- blocks of flows ----------------------------------------------------------------------------------

    def flows(self, src: np.ndarray, dst: np.ndarray, reply: bool, by_dst: bool = False,
              states: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """Verdict codes of the flows from each source point to each destination point (replies of
        conversations when ``reply``), and the id of the stateful-firewall set each passed (None when no way
        passes one, or ``states`` is False: a caller that reads the verdicts only): shape [src, dst], or
        [dst, src] with ``by_dst`` (computed that way round, not transposed afterwards)."""
        near = self._near(src, dst)
        routed = near is None or not _whole(near, len(src), len(dst))
        if routed:
            code = self._take("route", reply, self.rtype[src], dst, by_dst)
            state = self._take("states", reply, self.start[src] + 1, dst, by_dst) if self.stateful and states else None
        else:   # every pair is delivered without routing (a block of one subnet): no routed way to read
            code = self.l2_verdict(*(self.seg[dst][:, None], self.seg[src][None, :]) if by_dst else
                                   (self.seg[src][:, None], self.seg[dst][None, :]))
            state = np.zeros(code.shape, dtype=self.states[reply].dtype) if self.stateful and states else None
            near = None
        direct_pairs = None    # [src, dst]: the pairs in the source's subnet, for ``_judge_ways``
        if near is not None:   # usually a small block of a large query: label only that block
            rows, cols, direct = near
            direct_pairs = np.zeros((len(src), len(dst)), dtype=bool)
            _put_into(direct_pairs, rows, cols, direct)
            at = (cols, rows) if by_dst else (rows, cols)
            if by_dst:
                direct = direct.T
            block = _cells(code, *at)
            blend(block, direct, self.l2_verdict(self.seg[dst[at[0]] if by_dst else src[at[0]]][:, None],
                                                  self.seg[src[at[1]] if by_dst else dst[at[1]]][None, :]))
            _put(code, *at, block)
            if state is not None:
                block = _cells(state, *at)
                block *= ~direct
                _put(state, *at, block)
        dfw = bool(judges(bool(self.net.dfw_active), bool(self.net.topology.nsx.dfw.stateful), reply))
        asked = min(len(src), len(dst))
        blocked = ~self.table("dfw-out", asked).allowed(src, dst, by_dst) if dfw else np.zeros(code.shape, dtype=bool)
        if routed:   # (a firewall on the routed way judges only the pairs that are routed)
            self._judge_ways(src, dst, reply, blocked.T if by_dst else blocked, direct_pairs)
        if dfw:
            blocked |= (code < BLOCKED) & ~self.table("dfw-in", asked).allowed(dst, src, not by_dst)
        blend(code, blocked, BLOCKED)
        return code, state

    def _take(self, name: str, reply: bool | None, rows: np.ndarray, dst: np.ndarray, by_dst: bool) -> np.ndarray:
        """A table [row, point] read at (rows[i], dst[j]): [i, j], or [j, i] from its transposed copy."""
        table = getattr(self, name) if reply is None else getattr(self, name)[reply]
        if not by_dst:
            return take(table, rows, dst)
        key = (name, reply)
        if key not in self._transposed:
            self._transposed[key] = np.ascontiguousarray(table.T)
        return take(self._transposed[key], dst, rows)

    def _near(self, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray | slice, np.ndarray | slice,
                                                               np.ndarray] | None:
        """The pairs whose destination sits inside the source's subnet (delivered without routing): the rows
        (sources) and columns (destinations) holding any, and which of that block's pairs; None when none.
        Read per distinct subnet of the sources, not per pair: a large query has few subnets."""
        nets, which = _distinct(self.net_of[src], len(self.networks))
        lo, hi = self._bounds()
        order = np.argsort(lo[nets], kind="stable")
        starts, reach = lo[nets][order], np.maximum.accumulate(hi[nets][order])
        ips = self.ip[dst]
        at = np.searchsorted(starts, ips, side="right") - 1   # the last of these subnets starting at or below
        maybe = np.flatnonzero(((at >= 0) & (reach[np.maximum(at, 0)] >= ips)) | (ips < 0))   # in their union
        if not len(maybe):
            return None
        holds = take(self.inside, nets, dst[maybe])
        hit = np.asarray(holds.any(axis=1))
        if not hit.any():
            return None
        rows = np.flatnonzero(hit[which.ravel()])
        held = holds.any(axis=0)
        cols = maybe[held]
        return compact(rows), compact(cols), take(holds, which.ravel()[rows], np.flatnonzero(held))

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The first and last address of each network ``inside`` has a row for (none: an empty range), so a
        block's sources' subnets can be searched for its destinations (``_near``)."""
        if self._bounds_of is None or self._bounds_of[1] != len(self.networks):
            lo, hi = np.ones(len(self.networks), dtype=np.int64), np.zeros(len(self.networks), dtype=np.int64)
            for network, row in self.networks.items():
                if network is not None:
                    lo[row], hi[row] = int(network.network_address), int(network.broadcast_address)
            self._bounds_of = ((lo, hi), len(self.networks))
        return self._bounds_of[0]

    def _judge_ways(self, src: np.ndarray, dst: np.ndarray, reply: bool, blocked: np.ndarray,
                    direct: np.ndarray | None) -> None:
        """Mark in ``blocked`` the routed pairs a firewall on their way drops (pairs in one subnet are not
        routed: ``direct`` marks them, [src, dst], None for none): per pattern of ``judged``, the sources
        whose start and the destinations whose route key it marks."""
        owners, from_start, to_key = self.judged[reply]
        if not owners:
            return
        starts, keys = self.start[src], self.rkey[dst]
        asked = from_start[:, _marks(starts, from_start.shape[1])].any(axis=1) \
            & to_key[:, _marks(keys, to_key.shape[1])].any(axis=1)
        for p in np.flatnonzero(asked).tolist():   # the patterns marking a start and a key of this block
            rows, cols = compact(np.flatnonzero(from_start[p][starts])), compact(np.flatnonzero(to_key[p][keys]))
            keys_, others = src[rows], dst[cols]
            drops = ~self.table(owners[p], min(len(keys_), len(others))).allowed(keys_, others)
            if direct is not None:
                drops &= ~_cells(direct, rows, cols)
            if isinstance(rows, slice) or isinstance(cols, slice):
                blocked[rows, cols] |= drops
            else:
                blocked[np.ix_(rows, cols)] |= drops

    # --- after an edit that moved some points -------------------------------------------------------------

    def move(self, moved: dict[int, Point], named: set[str]) -> None:
        """Some points now sit elsewhere (same endpoint, same address or not): recompute their arrays and
        their columns of the route tables; the rule tables only when a rule (``named``: what rules name)
        names where a point sat or sits now."""
        self.labels = self.labels.extended(self.net.segments)
        starts, keys = len(self.routes.start_rep), len(self.routes.key_ip)
        renamed: set[str] = set()
        known = len(self.inside)
        for i, p in moved.items():
            old = self.points[i]
            self.points[i] = p
            before, after = (old.portgroup, self._switch_of(old)), (p.portgroup, self._switch_of(p))
            if before != after:
                renamed.update(n for n in before + after if n is not None)
                if self._sets is not None:
                    self._sets.move(i, before, after)
        points = np.array(sorted(moved), dtype=np.int64)
        now = [moved[i] for i in points.tolist()]
        addresses = self.ip[points]
        self._place(points, now)
        self._starts(points, now)
        if len(self.networks) > known or (self.ip[points] != addresses).any():   # (a VLAN edit moves no address)
            self._update_inside(points, known)
            self.rkey[points] = self.routes.route_keys(self.ip[points])
        renamed.discard(None)
        if self._sets is not None and renamed:
            self._sets.forget(renamed)
        if renamed & named:
            self._tables, self._rule_sets = {}, {}
            self._dfw_sets = DfwSets(self.n, self.behind_dfw)
        if (len(self.routes.start_rep), len(self.routes.key_ip)) != (starts, keys):
            self._route_tables()         # a new start or route key: new rows, new judged columns
        else:
            self._route_columns(points)
        self.stateful = self._stateful()

    def _update_inside(self, points: np.ndarray, known: int) -> None:
        """Which networks the moved ``points`` now sit inside (between a network's first and last address, as
        ``_near`` reads it); a network first seen in this edit gets its whole row (points that did not move may
        sit inside it too)."""
        if len(self.networks) > known:
            self.inside = np.vstack([self.inside, np.zeros((len(self.networks) - known, self.n), dtype=bool)])
        for network, row in self.networks.items():
            if network is not None and row >= known:
                self.inside[row] = self._holds(network)
        lo, hi = self._bounds()   # every known network against the moved points at once (thousands of networks)
        ips = self.ip[points][None, :]
        self.inside[:known, points] = (ips >= 0) & (lo[:known, None] <= ips) & (ips <= hi[:known, None])

    def _switch_of(self, p: Point) -> str | None:
        return self.net.segments[p.segment].object_id if p.segment is not None else None


def _distinct(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for integers in [0, size), by a table of which are present
    rather than a sort (several times faster on the blocks a query asks about their subnets)."""
    present = _marks(values, size)
    return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def _marks(values: np.ndarray, size: int) -> np.ndarray:
    """A mask of ``size`` entries marking these indexes (-1 marks the last, as a table read at -1 does)."""
    present = np.zeros(size, dtype=bool)
    present[values] = True
    return present


def _whole(near: tuple, rows: int, cols: int) -> bool:
    """Whether ``Vector._near`` found every pair of a rows x cols block inside the source's subnet."""
    at_rows, at_cols, direct = near
    return isinstance(at_rows, slice) and isinstance(at_cols, slice) and at_rows == slice(0, rows) \
        and at_cols == slice(0, cols) and bool(direct.all())


def compact(index: np.ndarray) -> np.ndarray | slice:
    """A sorted index as a slice when it is a contiguous run (then reads and writes are views, not gathers)."""
    if len(index) and index[-1] - index[0] == len(index) - 1:
        return slice(int(index[0]), int(index[-1]) + 1)
    return index


def _cells(table: np.ndarray, rows: np.ndarray | slice, cols: np.ndarray | slice) -> np.ndarray:
    """``table`` at rows x cols, for indexes or slices."""
    if isinstance(rows, slice) or isinstance(cols, slice):
        return table[rows, cols]
    return table[np.ix_(rows, cols)]


def _put_into(table: np.ndarray, rows: np.ndarray | slice, cols: np.ndarray | slice, values: np.ndarray) -> None:
    """Write ``values`` at rows x cols of ``table``, for indexes or slices."""
    if isinstance(rows, slice) or isinstance(cols, slice):
        table[rows, cols] = values
    else:
        table[np.ix_(rows, cols)] = values


def _put(table: np.ndarray, rows: np.ndarray | slice, cols: np.ndarray | slice, values: np.ndarray) -> None:
    """Write ``values`` at rows x cols of ``table`` (nothing to do when ``_cells`` gave a view)."""
    if not (isinstance(rows, slice) and isinstance(cols, slice)):
        _put_into(table, rows, cols, values)




def _narrowest(count: int) -> type:
    """The narrowest integer type holding ids 0..count-1 (a block of flows reads one per pair)."""
    return np.int8 if count < 1 << 7 else np.int16 if count < 1 << 15 else np.int32
