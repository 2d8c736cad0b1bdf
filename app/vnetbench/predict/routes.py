"""The routed way through a design, for the matrix: from a source's gateway to where the last gateway
delivers, for every destination at once.

A packet that leaves its subnet goes to its gateway. From there on the way depends only on the *start* (the
gateway device, and for an NSX DLR the host it routes on) and on where the destination address falls among
the networks the devices route by (interface subnets, route prefixes, their own addresses): its *route key*,
the longest such prefix holding it. So ``Walker.route``, the walk itself, is taken once per (start, route
key) and direction, with a judge that records which firewalls would judge the packet instead of judging it.
The matrix applies those firewalls' rule tables to the pairs taking that way, and the last leg and the
first (to the gateway) come from the segment labels.

A start's device that routes a key by none of its networks and routes answers every such key alike (no
route), so those keys share one walk: an NSX DLR with twenty interfaces walks about twenty keys per host,
not every subnet of the design.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import decide
from .decide import PHYSICAL, Prefixes
from .kinds import DeviceKind
from .network import Device, Point
from .rules import Decision, Party
from .walk import MAX_ROUTED, Leg, Walk, Walker

_NOBODY = Party(None, frozenset())
#: chain status: the walk from the start ended without delivering, was blocked for good, or delivered
LOST, STOPPED, DELIVERED = 0, 1, 2


def network_key(network: ipaddress.IPv4Network) -> tuple[int, int]:
    """A network as (first address, prefix length): the key route tables sort and compare."""
    return int(network.network_address), network.prefixlen


def routed_networks(devices: list[Device]) -> set[tuple[int, int]]:
    """The networks devices route by: their interface subnets, their own addresses, their route prefixes."""
    out: set[tuple[int, int]] = set()
    for device in devices:
        out.update(network_key(p.iface.network) for p in device.points if p.iface is not None)
        out.update((int(p.ip), 32) for p in device.points if p.ip is not None)
        out.update(device.route_keys)
    return out


class _Recorder(Walker):
    """The walk with every firewall's rules recorded instead of applied (the matrix applies them later), and
    L2 legs decided by the segment labels alone where no bridged firewall can sit on them: the matrix needs
    whether a leg delivers and crosses a pNIC, not its hops."""

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker.net, walker.cal)
        self._route_tables = walker._route_tables     # one longest-prefix table per router, shared with the walk
        self.judged: list[str] = []

    def judge(self, owner, rules, default, src, dst, proto, port) -> Decision:  # noqa: ANN001
        self.judged.append(owner)
        return Decision(True, None, "", default)

    def leg(self, a: int, b: int, src: Party, dst: Party, proto: str | None, port: int | None,
            reply: bool = False) -> Leg:
        if self.net.segments[a].has_bridge:
            return super().leg(a, b, src, dst, proto, port, reply)
        code = self.l2_code(a, b)
        return Leg(code > 0, code, pnics=["crossed"] if code == PHYSICAL else [], reason="no L2 way")


@dataclass(frozen=True, eq=False)
class _Hop:
    """What one gateway's hop recorded: the device, where the packet goes on (``Walker.hop``'s answer), and
    whether it was blocked, crossed a pNIC, was routed, the firewalls that judge it and the stateful ones.
    One object per hop walked (equal by identity), so paths of hops hash fast."""

    device: str
    next: int | tuple[Device, Point, int] | None
    blocked: bool
    pnic: bool
    routed: bool
    judged: tuple[str, ...]
    stateful: tuple[str, ...]


@dataclass(frozen=True)
class _Met:
    """What a way met from its start up to a gateway: the devices it passed, whether it crossed a pNIC and
    was routed, and the ids of its judging firewalls' sequence and of its stateful set."""

    devices: tuple[str, ...]
    pnic: bool
    routed: bool
    judges: int
    state: int


@dataclass(frozen=True, eq=False)
class _Ends:
    """Where the ways to some route keys ended: the keys (``cols``) and per key the chain fields
    (``_CHAIN_FIELDS``), with every device the ways passed (the loop guard's) and the most they passed."""

    cols: np.ndarray
    fields: tuple[np.ndarray, ...]
    devices: frozenset[str]
    depth: int


_CHAIN_FIELDS = ("status", "out_seg", "pnic", "routed", "judges", "state")
_CHAIN_TYPES = (np.int8, np.int64, bool, bool, np.int32, np.int32)


@dataclass
class Chains:
    """One direction's walks from every start to every route key: arrays [start, key]."""

    status: np.ndarray      # LOST, STOPPED or DELIVERED
    out_seg: np.ndarray     # the segment the last gateway sends it onto (when DELIVERED)
    pnic: np.ndarray        # whether the way from the gateway crossed a pNIC
    routed: np.ndarray      # whether it was routed (not when addressed to the gateway itself)
    judges: np.ndarray      # id of the sequence of firewalls that judge it on the way (0: none)
    state: np.ndarray       # id of the set of stateful firewalls it passes (0: none)


class RoutedWay:
    """Starts, route keys and the walks between them, for the points of a ``Vector``."""

    def __init__(self, walker: Walker, keys: np.ndarray) -> None:
        """``keys`` are route-key addresses to know from the start (the points' addresses)."""
        self.walker = walker
        self.recorder = _Recorder(walker)
        net = walker.net
        self.prefixes = Prefixes(routed_networks(net.devices))
        self.starts: dict[tuple, int] = {}
        self.start_rep: list[tuple[Device, Point, int]] = []
        self.key_of: dict[int, int] = {}            # routed network index (-1: none) -> route key
        self.key_ip: list[int] = []                  # a representative address per route key
        self._lookup: np.ndarray | None = None       # routed network index + 1 -> route key
        self.sequences: dict[tuple[str, ...], int] = {(): 0}
        self._state_ids: dict[frozenset, int] = {frozenset(): 0}
        self._sequence_list: list[tuple[str, ...]] = [()]
        self._state_list: list[frozenset] = [frozenset()]
        self._entries: dict[tuple[int, ipaddress.IPv4Address], tuple[int, int]] = {}
        self._way_ids: dict[tuple[str, str | None], np.ndarray] = {}   # (device, host) -> way id per route key
        self._splits: dict[tuple[str, str | None, bytes], list[tuple[int, np.ndarray]]] = {}
        self._suffixes: dict[tuple, _Ends] = {}
        self._walking: set[tuple] = set()           # the suffixes being walked now (``_suffix``)
        self._way_index: dict[object, int] = {}
        self._way_list: list[object] = []
        self._own_addresses: dict[str, set[int]] = {}
        self._hops: dict[tuple, _Hop] = {}
        self._chains = {reply: Chains(*(np.zeros((0, 0), dtype) for dtype in _CHAIN_TYPES)) for reply in (False, True)}
        self.route_keys(keys)

    # --- route keys and starts ------------------------------------------------------------------------

    def route_keys(self, values: np.ndarray) -> np.ndarray:
        """The route key of each address (an int; -1 for none gives key -1), adding keys (and their walks)
        not seen yet. Addresses in no routed network share one key (every router sends them by its
        default route, if it has one)."""
        nets = self.prefixes.longest(values)
        known = values >= 0
        new = sorted({int(n) for n in nets[known]} - self.key_of.keys())
        if new:
            first = {int(n): int(v) for n, v in zip(nets[known], values[known])}
            for n in new:
                self.key_of[n] = len(self.key_ip)
                self.key_ip.append(first[n])
        if new or self._lookup is None:
            self._lookup = np.array([self.key_of.get(n, -1) for n in range(-1, len(self.prefixes.networks))],
                                    dtype=np.int32)
        return np.where(known, self._lookup[nets + 1], -1).astype(np.int32)

    def start(self, point: Point) -> tuple[int, int]:
        """(start, whether the leg to the gateway crosses a pNIC) for a point sending off its subnet; start -1
        when it has no usable gateway (no gateway, outside its subnet, nobody has it, no L2 way to it)."""
        if point.gateway is None or point.iface is None or point.segment is None \
                or point.gateway not in point.iface.network:
            return -1, 0
        cached = self._entries.get((point.segment, point.gateway))
        if cached is not None:
            return cached
        walker = self.walker
        entry = walker.gateway_entry(Walk("", ""), point.segment, point.gateway)
        found = (-1, 0)
        if entry is not None and entry[0].kind is not DeviceKind.NAT:   # NAT users are walked pair by pair (scalar)
            device, gateway_point, in_seg = entry
            leg = walker.l2_code(point.segment, in_seg)
            if leg:
                key = (device.id, walker.net.segments[in_seg].host if device.kind is DeviceKind.DLR else None)
                if key not in self.starts:
                    self.starts[key] = len(self.start_rep)
                    self.start_rep.append((device, gateway_point, in_seg))
                found = (self.starts[key], int(leg == PHYSICAL))
        self._entries[point.segment, point.gateway] = found
        return found

    # --- the walks ------------------------------------------------------------------------------------

    @property
    def chains(self) -> dict[bool, Chains]:
        """Per direction, the walks from every start to every route key (``Chains``)."""
        self._grow()
        return self._chains

    @property
    def states(self) -> dict[frozenset, int]:
        """The sets of stateful firewalls the ways pass, by id (the empty set: 0)."""
        self._grow()
        return self._state_ids

    def _grow(self) -> None:
        """Walk the (start, key) cells that new starts or keys added. Starts and keys are added as the points
        are read and walked when the chains are first read after, all together: growing the chains start by
        start copied them once per start."""
        old_s, old_k = self._chains[False].status.shape
        ns, nk = len(self.start_rep), len(self.key_ip)
        if (ns, nk) == (old_s, old_k):
            return
        for reply in (False, True):
            c = self._chains[reply]
            for name in _CHAIN_FIELDS:
                setattr(c, name, np.pad(getattr(c, name), ((0, ns - old_s), (0, nk - old_k))))
        for s in range(ns):
            keys = range(nk) if s >= old_s else range(old_k, nk)
            if keys:
                self._walk_start(s, list(keys))

    def _walk_start(self, s: int, keys: list[int]) -> None:
        for reply in (False, True):
            self._follow(s, keys, reply)

    def _follow(self, s: int, keys: list[int], reply: bool) -> None:
        """Walk from start ``s`` to every route key in ``keys`` (``_run``) and keep where each way ended."""
        ends = self._run(self.start_rep[s], np.asarray(keys, dtype=np.int64), reply)
        c = self._chains[reply]
        for name, values in zip(_CHAIN_FIELDS, ends.fields):
            getattr(c, name)[s, ends.cols] = values

    def _run(self, entry: tuple[Device, Point, int], keys: np.ndarray, reply: bool) -> _Ends:
        """Walk from a gateway (``entry``: the device, its point and the segment the packet arrives on) to
        the route keys in ``keys``, gateway by gateway as ``Walker.route`` does (its loop guard included). The
        keys a gateway routes alike travel on together, each group carrying what its way has met so far;
        one gateway's hop is walked once per (gateway, ingress, way) for all starts (``_hop``), and past the
        entry the way on from a gateway is walked once for all starts reaching it with those keys
        (``_suffix``), then joined to what each start's way met before (``_joined``)."""
        todo: list[tuple[tuple[Device, Point, int], np.ndarray, _Met]] = [(entry, keys, _Met((), False, False, 0, 0))]
        ended: list[tuple[np.ndarray, tuple[int, int, bool, bool, int, int]]] = []
        joined: list[_Ends] = []
        devices: set[str] = set()
        depth = 0
        while todo:
            (device, point, in_seg), group, met = todo.pop()
            devices.add(device.id)
            if len(met.devices) == MAX_ROUTED or device.id in met.devices:   # a routing loop
                ended.append((group, (LOST, 0, met.pnic, met.routed, met.judges, met.state)))
                depth = max(depth, len(met.devices) + 1)
                continue
            if met.devices:
                on = self._suffix((device, point, in_seg), group, reply)
                if on is not None and len(met.devices) + on.depth <= MAX_ROUTED \
                        and not on.devices.intersection(met.devices):
                    joined.append(self._joined(met, on))   # no loop guard it meets depends on the way before
                    devices |= on.devices
                    depth = max(depth, len(met.devices) + on.depth)
                    continue
            for way, alike in self._ways_of(device, self.walker.net.segments[in_seg].host, group):
                hop = self._hop(device, point, in_seg, reply, way, int(alike[0]))
                after = self._after(met, hop)
                if isinstance(hop.next, tuple):
                    todo.append((hop.next, alike, after))
                else:
                    out = hop.next if isinstance(hop.next, int) else None
                    status = STOPPED if hop.blocked else (DELIVERED if out is not None else LOST)
                    ended.append((alike, (status, out or 0, after.pnic, after.routed, after.judges, after.state)))
                    depth = max(depth, len(met.devices) + 1)
        sizes = [len(group) for group, _ in ended]
        cells = list(zip(*(cell for _, cell in ended))) or [()] * len(_CHAIN_TYPES)
        fields = tuple(np.concatenate([np.repeat(np.array(values, dtype=dtype), sizes)] + [j.fields[f] for j in joined])
                       for f, (values, dtype) in enumerate(zip(cells, _CHAIN_TYPES)))
        cols = np.concatenate([group for group, _ in ended] + [j.cols for j in joined])
        return _Ends(cols, fields, frozenset(devices), depth)

    def _suffix(self, entry: tuple[Device, Point, int], keys: np.ndarray, reply: bool) -> _Ends | None:
        """``_run`` from a gateway the way reached, with nothing met before (kept per gateway, ingress,
        direction and keys: a rack's keys reach its router from the core alike for every start). None while
        that very walk is under way (a routing loop led back to it: the caller walks on itself)."""
        device, point, in_seg = entry
        memo = (device.id, point.nic, in_seg, reply, keys.tobytes())
        found = self._suffixes.get(memo)
        if found is None and memo not in self._walking:
            self._walking.add(memo)
            try:
                found = self._suffixes[memo] = self._run(entry, keys, reply)
            finally:
                self._walking.discard(memo)
        return found

    def _joined(self, met: _Met, on: _Ends) -> _Ends:
        """The ends of a way walked on from a gateway (``on``, walked with nothing met) for a way that met
        ``met`` up to it: the pNIC and routed flags or-ed, the judging firewalls in order (first time each),
        the stateful sets joined, as ``_after`` takes hop after hop."""
        status, out, pnic, routed, judges, state = on.fields
        if met.judges:
            seen = self._sequence_list[met.judges]
            judges = self._each(judges, lambda j: self._intern(self.sequences, self._sequence_list,
                                                                tuple(dict.fromkeys(seen + self._sequence_list[j]))))
        if met.state:
            held = self._state_list[met.state]
            state = self._each(state, lambda j: self._intern(self._state_ids, self._state_list, held | self._state_list[j]))
        return _Ends(on.cols, (status, out, pnic | met.pnic, routed | met.routed, judges, state), on.devices, on.depth)

    @staticmethod
    def _each(ids: np.ndarray, fn: Callable[[int], int]) -> np.ndarray:
        """``fn`` applied to every id, once per distinct one."""
        distinct, which = np.unique(ids, return_inverse=True)
        return np.array([fn(int(j)) for j in distinct], dtype=ids.dtype)[which.ravel()]

    def _after(self, met: _Met, hop: _Hop) -> _Met:
        """What a way has met once it took ``hop`` too (the firewalls judging it in order, first time each)."""
        judges, state = met.judges, met.state
        if hop.judged:
            seen = self._sequence_list[judges]
            judges = self._intern(self.sequences, self._sequence_list, tuple(dict.fromkeys(seen + hop.judged)))
        if hop.stateful:
            state = self._intern(self._state_ids, self._state_list, self._state_list[state] | frozenset(hop.stateful))
        return _Met((*met.devices, hop.device), met.pnic or hop.pnic, met.routed or hop.routed, judges, state)

    @staticmethod
    def _intern(ids: dict, values: list, value: object) -> int:
        found = ids.get(value)
        if found is None:
            found = ids[value] = len(values)
            values.append(value)
        return found

    def _ways_of(self, device: Device, host: str | None, keys: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The route keys split by the way ``device`` on ``host`` routes them (``_ways``), as (way id, keys).
        A group of keys reaches a device alike from most starts (a rack's keys from the core), so each
        split is kept (a key's way never changes: the devices change only on a build)."""
        memo = (device.id, host, keys.tobytes())
        split = self._splits.get(memo)
        if split is None:
            split = self._splits[memo] = self._split(device, host, keys)
        return split

    def _split(self, device: Device, host: str | None, keys: np.ndarray) -> list[tuple[int, np.ndarray]]:
        known = self._way_ids.get((device.id, host))
        if known is None or len(known) < len(self.key_ip):
            grown = np.full(len(self.key_ip), -1, dtype=np.int64)
            if known is not None:
                grown[:len(known)] = known
            known = self._way_ids[device.id, host] = grown
        ids = known[keys]
        if (ids < 0).any():   # every key the device has not placed yet, in one lookup
            missing = np.flatnonzero(known < 0)
            known[missing] = self._ways(device, host, missing)
            ids = known[keys]
        if (ids == ids[0]).all():
            return [(int(ids[0]), keys)]
        order = np.argsort(ids, kind="stable")
        ways, first = np.unique(ids[order], return_index=True)
        return list(zip(ways.tolist(), np.split(keys[order], first[1:])))

    def _ways(self, device: Device, host: str | None, keys: np.ndarray) -> np.ndarray:
        """The id of what ``Walker.hop`` at ``device`` reads of each route key's address: its route
        (interface, next hop), or the address itself where it is the device's own or the device is a hosted
        NAT."""
        ips = np.asarray(self.key_ip, dtype=np.int64)[keys]
        if device.kind is DeviceKind.NAT:
            own, iface, route = np.ones(len(ips), dtype=bool), np.full(len(ips), -1), np.full(len(ips), -1)
        else:
            own = np.isin(ips, np.fromiter(self._own(device), dtype=np.int64))
            iface, route = self.recorder.ways(device, host, ips)
        via, hops = self._next_hops(device, route)
        alike = np.stack([np.where(own, ips, -1), np.where(own, -1, iface), np.where(own, -1, via[route])])
        ways, which = np.unique(alike, axis=1, return_inverse=True)
        ids = [self._intern(self._way_index, self._way_list, ip if ip >= 0 else (i, hops[v] if v >= 0 else None))
               for ip, i, v in ways.T.tolist()]
        return np.array(ids, dtype=np.int64)[which.ravel()]

    def _next_hops(self, device: Device, route: np.ndarray) -> tuple[np.ndarray, list[int]]:
        """The next hops of the static routes in ``route`` (indices into the device's table, -1: none): per
        route the index of its next hop (an array with a last entry -1 for none) and the next hops as ints.
        Keys routed by different routes to the same next hop go the same way, and a router holds thousands
        of routes to a few next hops."""
        nexts = self.recorder.route_table(device).routes
        hops: dict[int, int] = {}
        via = np.full(len(nexts) + 1, -1, dtype=np.int64)
        used = np.unique(route[route >= 0])
        via[used] = [hops.setdefault(int(nexts[r][1]), len(hops)) for r in used.tolist()]
        return via, list(hops)

    def _own(self, device: Device) -> set[int]:
        own = self._own_addresses.get(device.id)
        if own is None:
            own = self._own_addresses[device.id] = {int(p.ip) for p in device.points if p.ip is not None}
        return own

    def _hop(self, device: Device, point: Point, in_seg: int, reply: bool, way: int, k: int) -> _Hop:
        """One gateway's hop for the keys it routes by way ``way`` (an id), walked for key k (once per
        gateway, ingress, direction and way)."""
        memo = (device.id, point.nic, in_seg, reply, way)
        hop = self._hops.get(memo)
        if hop is None:
            recorder = self.recorder
            recorder.judged = []
            walk = Walk("", "")
            out = recorder.hop(walk, device, point, in_seg, ipaddress.IPv4Address(self.key_ip[k]), _NOBODY, _NOBODY,
                               None, None, reply)
            hop = self._hops[memo] = _Hop(device.id, out, walk.blocked, bool(walk.pnics), bool(walk.routed_by),
                                          tuple(recorder.judged), tuple(walk.stateful))
        return hop

    # --- what the matrix reads ----------------------------------------------------------------------------

    def codes(self, reply: bool, start: int | np.ndarray, phys0: np.ndarray | np.bool_, keys: np.ndarray, segs: np.ndarray,
              l2) -> np.ndarray:  # noqa: ANN001 - l2 is Vector.l2
        """Verdict codes of the routed way from ``start`` (before any firewall judges) to points with route
        ``keys`` on segments ``segs``; ``phys0`` says whether the leg to the gateway crossed a pNIC."""
        c = self.chains[reply]
        status, out_seg, pnic = c.status[start, keys], c.out_seg[start, keys], c.pnic[start, keys]
        final = l2(out_seg, segs)
        crossed = pnic | (final == PHYSICAL) | phys0
        return decide.direction_code((status == DELIVERED) & (final > 0), status == STOPPED, crossed,
                                     c.routed[start, keys]).astype(np.int8)

    def judged_cells(self, reply: bool) -> dict[str, np.ndarray]:
        """For each firewall, which (start, key) cells' ways it judges: a bool array [start, key]."""
        c = self.chains[reply]
        holding: dict[str, list[int]] = {}
        for seq, i in self.sequences.items():
            for owner in seq:
                holding.setdefault(owner, []).append(i)
        return {owner: np.isin(c.judges, ids) for owner, ids in holding.items()}
