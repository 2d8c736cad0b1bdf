"""The decision core: every rule that turns facts about a flow into a verdict, in one place.

The per-pair walk (``walk``: the path dock, ``vnetbench predict``) and the matrix (``vector``, ``routes``,
``matrix``, ``firstmatch``: the matrix dock, what-if, ``vnetbench matrix``) gather facts in their own way (one
pair with its hops and reasons, or blocks of thousands of pairs), but decide with the functions below and keep
no copy of them. Each rule is plain arithmetic and comparison over numpy arrays, so one pair is a block of one:
the walk passes Python ints and bools, which the same expressions take (a single prediction never loads
numpy; the helpers that only the matrix uses import it when called).

Verdict codes follow ``result.VERDICTS``; delivered codes are 2 * crossed-a-pNIC + routed.
"""

from __future__ import annotations

import ipaddress
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

from ..model.forwarding import BYPASS_TYPES, PVLAN_SPAN
from .result import VERDICTS, Verdict

UNREACH, BLOCKED, HOST, HOST_R, PHYS, PHYS_R = (VERDICTS.index(v) for v in (
    Verdict.UNREACHABLE, Verdict.BLOCKED, Verdict.IN_HOST, Verdict.IN_HOST_ROUTED, Verdict.VIA_PHYSICAL,
    Verdict.ROUTED_VIA_PHYSICAL))
assert (HOST, HOST_R, PHYS, PHYS_R) == (0, 1, 2, 3) and BLOCKED == 4 and UNREACH == 5, "code arithmetic below"

#: L2 reachability between two segments: none, inside one host, through the physical network.
NO_L2, IN_HOST, PHYSICAL = 0, 1, 2

#: Why a conversation got its verdict (``cause``): the forward direction failed, the reply failed, a stateful
#: firewall saw only one direction, or both directions were delivered.
FORWARD_FAILED, REPLY_FAILED, ONE_SIDED_STATE, BOTH_DELIVERED = range(4)

#: Protocols whose flows take the forward direction alone; every other flow is a conversation (ICMP is ping: an
#: echo request is answered by a reply, and ping sees nothing without it).
ONE_WAY = ("udp",)


# --- one direction -----------------------------------------------------------------------------------------


def direction_code(delivered: Any, blocked: Any, crossed: Any, routed: Any) -> Any:
    """A direction's verdict code: blocked (a firewall dropped it) before unreachable, else delivered as
    2 * crossed-a-pNIC + routed."""
    code = 2 * crossed + routed
    code = delivered * code + (delivered ^ True) * UNREACH
    return code + blocked * (BLOCKED - code)


def judges(active: Any, stateful: Any, reply: Any) -> Any:
    """Whether a firewall (routed, bridged, or the NSX DFW) judges a packet by its rules: an active one
    does, except that a stateful one lets a conversation's reply pass on the connection's state."""
    return active & ((reply & stateful) ^ True)


def filtered_by_dfw(nic_type: str | None) -> bool:
    """Whether the NSX DFW filters at an interface: at a VM's vNIC in the virtual switch (a physical host's
    NIC has no type), except SR-IOV and DirectPath adapters, which bypass the switch."""
    return nic_type is not None and nic_type not in BYPASS_TYPES


def reply_port(port: int | None, reply: bool) -> int | None:
    """The destination port a packet carries as rules see it: a reply's is the client's ephemeral port,
    which no rule names (None)."""
    return None if reply else port


def conversation_of(proto: str | None) -> bool:
    """Whether a flow of this protocol needs both directions (TCP, or no protocol given)."""
    return proto not in ONE_WAY


def refuses(action: Any) -> bool:
    """Whether a firewall that blocks by this action answers the sender (reject: a TCP RST or an ICMP
    unreachable) instead of staying silent (drop)."""
    return str(action) == "reject"


def symptom_of(code: int, refused: bool, proto: str | None) -> str | None:
    """``symptom`` for a flow whose verdict code is BLOCKED; None for any other verdict."""
    return symptom(refused, proto) if code == BLOCKED else None


def symptom(refused: bool, proto: str | None) -> str:
    """How a blocked flow fails, as the sender sees it: refused at once (the forward packet was rejected)
    or a timeout (dropped, or the reply was lost on the way back)."""
    if not refused:
        return "nothing answers (a drop is silent), so the sender times out"
    answer = {"tcp": "a TCP RST", "udp": "an ICMP port unreachable", "icmp": "an ICMP unreachable"}.get(
        proto or "", "a TCP RST (an ICMP unreachable for UDP and ICMP)")
    return f"a reject answers with {answer}, so the sender learns at once (no timeout)"


# --- both directions ---------------------------------------------------------------------------------------


def combine(fwd: Any, fwd_state: Any, rev: Any, rev_state: Any) -> Any:
    """The verdict of a conversation from its two directions, elementwise: ``rev``/``rev_state`` are the
    replies aligned with ``fwd`` (cell (i, j) of ``rev`` is the reply from j to i); the states are ids of
    the set of stateful firewalls each direction passed (None: no way passes one). A failed direction
    decides (the forward one first); a stateful firewall that saw only one direction drops it; otherwise
    the verdict takes pNIC and routing from either direction (a bitwise or of the codes)."""
    out = fwd | rev
    failed_r, failed_f = rev >= BLOCKED, fwd >= BLOCKED
    out = blend(out, failed_r, rev)
    out = blend(out, failed_f, fwd)
    if fwd_state is not None:
        out = blend(out, (fwd_state != rev_state) & (failed_r ^ True) & (failed_f ^ True), BLOCKED)
    return out


def cause(fwd: Any, fwd_state: Any, rev: Any, rev_state: Any) -> Any:
    """Which branch of ``combine`` decided (``FORWARD_FAILED``...), for the words of an explanation."""
    failed_f, failed_r = fwd >= BLOCKED, rev >= BLOCKED
    ok = (failed_f ^ True) & (failed_r ^ True)
    one_sided = ok & (fwd_state != rev_state)
    return failed_f * FORWARD_FAILED + (failed_f ^ True) * failed_r * REPLY_FAILED + one_sided * ONE_SIDED_STATE \
        + (ok & (one_sided ^ True)) * BOTH_DELIVERED


def blend(code: Any, where: Any, value: Any) -> Any:
    """``code[where] = value`` by arithmetic (in place for arrays: masked writes cost ten times more on
    scattered masks)."""
    code += where * (value - code)
    return code


# --- L2 --------------------------------------------------------------------------------------------------


def l2_code(local_a: Any, local_b: Any, domain_a: Any, domain_b: Any, att_a: Any, att_b: Any, one: Any = 1,
            alt_a: Any = -1, alt_b: Any = -1) -> Any:
    """L2 reachability from segment labels (``network.Segment``): ``IN_HOST`` in one in-host group;
    ``PHYSICAL`` in one L2 domain unless both hang off the same non-reflecting (hairpin-less) attachment;
    else ``NO_L2``. Bridged firewalls are not in the labels: their legs are walked. (``one``: 1 of the
    integer type wanted, so that blocks stay one byte a cell.) ``alt_a``/``alt_b`` are a second lone attachment
    a segment may reach the network through (teaming lets the platform choose): the worst case counts, so any
    shared one cuts the pair off."""
    same = local_a == local_b
    apart = ((att_a == -1) | (att_a != att_b)) & ((alt_a == -1) | ((alt_a != att_b) & (alt_a != alt_b))) \
        & ((alt_b == -1) | (alt_b != att_a))
    reach = (domain_a == domain_b) & apart
    return same * (IN_HOST * one) + ((same ^ True) & reach) * (PHYSICAL * one)


def l2_verdict(code: Any, one: Any = 1) -> Any:
    """The verdict code of an unrouted delivery with this L2 code (``one`` as for ``l2_code``)."""
    return (code == NO_L2) * (UNREACH * one) + (code == IN_HOST) * (HOST * one) + (code == PHYSICAL) * (PHYS * one)


def segment_l2(a: Any, b: Any) -> int:
    """``l2_code`` between two ``network.Segment`` objects, with the private VLAN rule (``pvlan_l2``)."""
    code = int(l2_code(a.local, b.local, a.domain, b.domain, a.attachment, b.attachment, 1, a.alternate, b.alternate))
    if a.pvlan < 0 and b.pvlan < 0:
        return code
    carried = a.pvlan >= 0 and b.pvlan >= 0 and pvlan_carried(a.domain, b.domain, b.hears[a.pvlan_col],
                                                              a.hears[b.pvlan_col])
    return int(pvlan_l2(code, a.local == b.local, a.pvlan, b.pvlan, carried))


class Labels:
    """The segment labels of a compiled network as arrays, for blocks of segment pairs; a design without
    segments gets one placeholder."""

    def __init__(self, segments: Sequence[Any]) -> None:
        import numpy as np

        self.segments, self.size = segments, len(segments)
        self.one = np.int8(1)
        self._verdicts = l2_verdict(np.array([NO_L2, IN_HOST, PHYSICAL], dtype=np.int8), self.one)
        self.local = np.array([s.local for s in segments] or [-1], dtype=np.int64)
        self.domain = np.array([s.domain for s in segments] or [-1], dtype=np.int64)
        self.att = np.array([s.attachment for s in segments] or [-1], dtype=np.int64)
        alt = [s.alternate for s in segments]
        self.alt = np.array(alt, dtype=np.int64) if any(a != -1 for a in alt) else None
        self.pvlan: tuple[Any, Any, Any] | None = None     # roles, sending columns, what each hears
        if any(s.pvlan >= 0 for s in segments):
            width = max(len(s.hears) for s in segments)
            self.pvlan = (np.array([s.pvlan for s in segments], dtype=np.int64),
                          np.array([max(s.pvlan_col, 0) for s in segments], dtype=np.int64),
                          np.array([s.hears or (-2,) * width for s in segments], dtype=np.int64))

    def extended(self, segments: Sequence[Any]) -> Labels:
        """The labels of ``segments``: these, with the segments added to the same list since appended (a compiled
        network that takes an edit in place only adds segments, leaving the others' labels as they were), or
        made anew (another list, none before, or a new segment in a private VLAN)."""
        import numpy as np

        new = segments[self.size:]
        if segments is not self.segments or not self.size or any(s.pvlan >= 0 for s in new):
            return Labels(segments)
        if new:
            if self.pvlan is not None:   # outside any private VLAN: no role, and nothing heard
                role, col, hears = self.pvlan
                self.pvlan = (np.append(role, [-1] * len(new)), np.append(col, [0] * len(new)),
                              np.vstack([hears, np.full((len(new), hears.shape[1]), -2, dtype=np.int64)]))
            self.local = np.append(self.local, [s.local for s in new])
            self.domain = np.append(self.domain, [s.domain for s in new])
            self.att = np.append(self.att, [s.attachment for s in new])
            alt = [s.alternate for s in new]
            if self.alt is not None or any(a != -1 for a in alt):
                old = self.alt if self.alt is not None else np.full(self.size, -1, dtype=np.int64)
                self.alt = np.append(old, alt)
            self.size = len(segments)
        return self

    def code(self, a: Any, b: Any) -> Any:
        """``l2_code`` between segment ids a and b (broadcasting), with the private VLAN rule (``pvlan_l2``)."""
        if self.alt is None:
            code = l2_code(self.local[a], self.local[b], self.domain[a], self.domain[b], self.att[a], self.att[b],
                           self.one)
        else:
            code = l2_code(self.local[a], self.local[b], self.domain[a], self.domain[b], self.att[a], self.att[b],
                           self.one, self.alt[a], self.alt[b])
        if self.pvlan is None:
            return code
        role, col, hears = self.pvlan
        carried = pvlan_carried(self.domain[a], self.domain[b], hears[b, col[a]], hears[a, col[b]])
        return pvlan_l2(code, self.local[a] == self.local[b], role[a], role[b], carried).astype(code.dtype)

    def verdict(self, a: Any, b: Any) -> Any:
        """``l2_verdict`` between segment ids a and b (broadcasting), read from a table of ``l2_verdict`` per
        L2 code (one gather instead of six passes over a block)."""
        import numpy as np

        return np.take(self._verdicts, self.code(a, b))


# --- teaming and private VLANs ------------------------------------------------------------------------------


#: What a pair whose outcomes differ per uplink is shown as (``across_uplinks``), in words.
RUN_TIME_WORDS = ("the platform puts each vNIC on one of its uplinks at run time, so the pair is shown as the worst "
                  "of the outcomes below")


def across_uplinks(codes: Any, axis: int = 0) -> tuple[Any, Any]:
    """The verdict of a pair whose uplink the platform chooses at run time, from its verdict codes through
    each possible uplink (along ``axis``): the worst of them, so a pair is never shown as fine when one of
    its uplinks cuts it off, and whether they differ (the pair "depends on the uplink chosen")."""
    import numpy as np

    codes = np.asarray(codes)
    worst = codes.max(axis=axis)
    return worst, codes.min(axis=axis) != worst


def uplink_matters(codes: Sequence[int]) -> bool:
    """Whether the uplink a vNIC is on matters to a pair (its outcomes are worth telling per uplink): some
    outcome is not delivered inside the host."""
    return any(code > HOST_R for code in codes)


def pvlan_allows(a: Any, b: Any) -> Any:
    """Whether two segments' private VLAN labels (``forwarding.pvlan_label``; -1 outside any private VLAN)
    let their ports exchange frames: anything outside a private VLAN is not limited here; inside one primary,
    promiscuous ports talk to all, community ports to their own community, isolated ports to neither."""
    free = (a < 0) | (b < 0)
    same_primary = (a // PVLAN_SPAN) == (b // PVLAN_SPAN)
    role_a, role_b = a % PVLAN_SPAN, b % PVLAN_SPAN
    talk = same_primary & ((role_a == 0) | (role_b == 0) | ((a == b) & (role_a >= 2)))
    return free | talk


def pvlan_carried(domain_a: Any, domain_b: Any, b_hears_a: Any, a_hears_b: Any) -> Any:
    """Whether two private VLAN ports on different hosts exchange frames over the physical network: each
    side's frames leave on the VLAN its role sends on (``forwarding.pvlan_wire_vlans``), so the other host's
    switch must take that VLAN from the same L2 domain (``b_hears_a``: what b's host hears on a's VLAN)."""
    return (b_hears_a == domain_a) & (a_hears_b == domain_b)


def pvlan_l2(code: Any, same_local: Any, a: Any, b: Any, carried: Any) -> Any:
    """An L2 code (``l2_code``) with the private VLAN rule applied to segments with labels ``a`` and ``b``
    (``forwarding.pvlan_label``; -1 outside one). Two ports of private VLANs: in one in-host group their switch
    joins them, else they meet only where the physical network carries both sides' VLANs (``carried``); and
    only where their roles allow (``pvlan_allows``). An endpoint outside the private VLAN meets a port only on
    the VLAN that port sends on (its L2 domain, already in ``code``), where the receiving switch gives the
    outsider's frames that VLAN's role: so never an isolated port (``pvlan_outsider_allowed``)."""
    both = (a >= 0) & (b >= 0)
    reach = same_local * IN_HOST + (same_local ^ True) * carried * PHYSICAL
    code = code + both * (reach - code)
    return code * pvlan_allows(a, b) * pvlan_outsider_allowed(a, b)


def pvlan_outsider_allowed(a: Any, b: Any) -> Any:
    """Whether an endpoint outside any private VLAN may meet a private VLAN port (True where neither or both
    sides have a role): sharing the port's sending VLAN, it takes that VLAN's role at the switch, and a role meets
    its own kind only where it is promiscuous or community (an isolated VLAN's frames reach promiscuous ports
    only, and the port's own replies never reach an outsider on the primary)."""
    outsider = (a < 0) ^ (b < 0)
    role = a + b + 1            # the private VLAN side's label, where the other side's is -1
    return (outsider ^ True) | pvlan_allows(role, role)


# --- L3 at the sender --------------------------------------------------------------------------------------


def inside(ip: Any, network: Any, netmask: Any) -> Any:
    """Whether addresses (ints, -1 for none) lie inside a subnet (its address and mask as ints): then the
    sender delivers directly instead of sending to its gateway."""
    return (ip >= 0) & ((ip & netmask) == network)


def inside_net(ip: ipaddress.IPv4Address | None, network: ipaddress.IPv4Network | None) -> bool:
    """``inside`` for one address and one ``ipaddress`` network (None: nothing is inside)."""
    if ip is None or network is None:
        return False
    return bool(inside(int(ip), int(network.network_address), int(network.netmask)))


def source_rank(usable: Any, gateway: Any, near: Any) -> Any:
    """How a multi-homed sender ranks its interfaces for a destination (it uses the first of the lowest
    rank): 0 a usable one whose subnet holds the destination, 1 a usable one with a gateway, 2 another
    usable one, 3 the rest."""
    return 3 - usable * (1 + gateway + near * (2 - gateway))


def destination_rank(delivered: Any, same: Any) -> Any:
    """How a flow to a multi-homed destination ranks its interfaces (it reaches the first of the lowest
    rank): senders try the interfaces in a subnet they share first, each group in order, and keep the first
    that delivers; when none does, the answer is the first tried. 0 delivered in a shared subnet, 1
    delivered elsewhere, 2 not delivered in a shared subnet, 3 the rest."""
    return 3 - delivered * (2 + same) - (delivered ^ True) * same


def first_of_lowest(ranks: Sequence[Any]) -> int:
    """The index of the first lowest rank (one pair; blocks take ``argmin`` along the interfaces)."""
    return min(range(len(ranks)), key=lambda i: int(ranks[i]))


# --- L3 at a router ----------------------------------------------------------------------------------------


class Prefixes:
    """Longest-prefix match of addresses against a set of networks of one family, each given as (address,
    prefix length), ``bits`` wide (32: IPv4, 128: IPv6, which only ``holding`` answers: the matrix takes
    IPv6 designs relabelled, ``family``): one sorted table per length. ``holding`` answers one address,
    ``longest`` many at once."""

    def __init__(self, networks: Sequence[tuple[int, int]] | set[tuple[int, int]], bits: int = 32) -> None:
        self.networks = sorted(set(networks))
        self.index = {n: i for i, n in enumerate(self.networks)}
        by_length: dict[int, list[int]] = {}
        for i, (_, n) in enumerate(self.networks):
            by_length.setdefault(n, []).append(i)
        full = (1 << bits) - 1
        self.lists: list[tuple[int, list[int], list[int]]] = [
            ((full << (bits - length)) & full, [self.networks[i][0] for i in ids], ids)
            for length, ids in sorted(by_length.items(), reverse=True)]
        self._arrays: list | None = None

    def holding(self, value: int) -> list[int]:
        """The networks holding one address (an int), longest first."""
        out = []
        for mask, starts, ids in self.lists:
            key = value & mask
            at = bisect_right(starts, key) - 1
            if at >= 0 and starts[at] == key:
                out.append(ids[at])
        return out

    def longest(self, values: Any) -> Any:
        """For each address (an int array, -1 for none), the index of the longest network holding it, or -1."""
        import numpy as np

        if self._arrays is None:
            self._arrays = [(mask, np.array(starts, dtype=np.int64), np.array(ids, dtype=np.int32))
                            for mask, starts, ids in self.lists]
        out = np.full(len(values), -1, dtype=np.int32)
        for mask, starts, ids in self._arrays:
            keys = values & mask
            at = np.minimum(np.searchsorted(starts, keys), len(starts) - 1)
            hit = (starts[at] == keys) & (out < 0) & (values >= 0)
            out[hit] = ids[at[hit]]
        return out


class RouteTable:
    """How one router forwards: to the first of its interfaces whose subnet holds the destination (the
    subnet is connected), else by its longest static route holding it (the first listed among equal
    prefixes) to the first interface whose subnet holds the route's next hop (only the route's own
    interface, where ``pinned`` names one: -1 for an interface the router lacks). Built once per router and
    looked up by prefix, so a router with thousands of routes and interfaces costs a few binary searches
    per packet."""

    def __init__(self, subnets: Sequence[ipaddress.IPv4Network | None],
                 routes: Sequence[tuple[ipaddress.IPv4Network, ipaddress.IPv4Address]],
                 pinned: Sequence[int | None] = (), keys: Sequence[tuple[int, int]] | None = None) -> None:
        """``keys``: each route's (first address, prefix length), where the caller has them already
        (``Device.route_keys``)."""
        self.routes = list(routes)
        self.pinned = list(pinned) + [None] * (len(self.routes) - len(pinned))
        bits = max([n.max_prefixlen for n in subnets if n is not None] + [p.max_prefixlen for p, _ in routes] + [32])
        self.subnets = Prefixes([(int(n.network_address), n.prefixlen) for n in subnets if n is not None], bits)
        self.on_subnet: list[list[int]] = [[] for _ in self.subnets.networks]
        for i, n in enumerate(subnets):
            if n is not None:
                self.on_subnet[self.subnets.index[int(n.network_address), n.prefixlen]].append(i)
        if keys is None:
            keys = [(int(p.network_address), p.prefixlen) for p, _ in self.routes]
        self.prefixes = Prefixes(keys, bits)
        first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1)))   # each key's first route
        self.first_route = [first[n] for n in self.prefixes.networks]

    def interface(self, ip: int, usable: Callable[[int], bool]) -> int:
        """The first usable interface (by index) whose subnet holds ``ip``, or -1."""
        return min((i for n in self.subnets.holding(ip) for i in self.on_subnet[n] if usable(i)), default=-1)

    def lookup(self, ip: int, usable: Callable[[int], bool]) -> tuple[int, int]:
        """(interface, static route or -1) the packet to ``ip`` leaves by. Interface -1: no way, with the
        route whose next hop is on none of the usable interfaces, or -1 when nothing holds ``ip``."""
        connected = self.interface(ip, usable)
        if connected >= 0:
            return connected, -1
        held = self.prefixes.holding(ip)
        if not held:
            return -1, -1
        route = self.first_route[held[0]]
        return self._via(route, usable), route

    def _via(self, route: int, usable: Callable[[int], bool]) -> int:
        """The interface a static route sends by: the first usable one holding its next hop (only its own,
        where the route is pinned to one)."""
        pin = self.pinned[route]
        return self.interface(int(self.routes[route][1]), usable if pin is None else (lambda i: i == pin and usable(i)))

    def lookup_many(self, ips: Any, usable: Callable[[int], bool]) -> tuple[Any, Any]:
        """``lookup`` for an array of IPv4 addresses (ints, none negative): (interfaces, routes). Prefixes nest,
        so the subnets holding an address are its longest one and those around it, and its route is the
        first of its longest prefix: ``interface`` is asked once per longest subnet, and ``_via`` once per
        next hop (a router with thousands of routes to a few next hops: a few questions, not thousands)."""
        import numpy as np

        subnet = self.subnets.longest(ips)
        held, first, which = np.unique(subnet, return_index=True, return_inverse=True)
        connected = np.array([self.interface(int(ips[i]), usable) if n >= 0 else -1 for n, i in zip(held, first)],
                             dtype=np.int64)[which.ravel()]
        prefix = self.prefixes.longest(ips)
        first_route = np.array(self.first_route + [-1], dtype=np.int64)
        route = np.where(connected >= 0, -1, first_route[prefix])
        vias: dict[tuple, int] = {}
        by_route = np.full(len(self.routes) + 1, -1, dtype=np.int64)
        for r in np.unique(route[route >= 0]).tolist():
            hop = (self.routes[r][1], self.pinned[r])
            if hop not in vias:
                vias[hop] = self._via(r, usable)
            by_route[r] = vias[hop]
        return np.where(connected >= 0, connected, by_route[route]), route


# --- first match -------------------------------------------------------------------------------------------


def first_rule(hits: Sequence[Any]) -> int:
    """First match wins: the index of the first rule that matches, or the number of rules when none does
    (the default policy decides). ``hits`` is a sequence of bools (an array is searched at once)."""
    if hasattr(hits, "argmax"):
        at = int(hits.argmax()) if len(hits) else 0
        return at if len(hits) and hits[at] else len(hits)
    for i, hit in enumerate(hits):
        if hit:
            return i
    return len(hits)


def earlier(a: Any, b: Any) -> Any:
    """Of candidate deciding rules (indices; the number of rules for none), the one that decides: the first
    listed, elementwise."""
    import numpy as np

    return np.minimum(a, b)


def permits(allow: Any, rule: Any) -> Any:
    """Whether the deciding rule lets the flow pass: ``allow`` holds each rule's action and, last, the
    default policy's (the index of "no rule matched")."""
    return allow[rule]


def unenforced(allowed: Any, enforced: Any, keys: Any) -> Any:
    """A rule list judges only where it is enforced (the DFW at the vNICs it filters): rows of ``keys``
    where it is not are allowed (in place)."""
    if enforced is not None:
        allowed[~enforced[keys], :] = True
    return allowed
