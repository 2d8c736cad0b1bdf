"""The vectorised part of the matrix: forward and reply verdict tables over interface points.

Each point (a VM's or host's interface) has a segment (with the L2 labels of ``network``), an identity (the
design networks holding its address, the rule names it answers to) and a chain start (its gateway as seen from
its segment). A row of verdicts is then array lookups: the L2 code for same-subnet columns, the precomputed
routed way (gateway leg, chain of gateways walked once per start and identity, last leg) for the others, and
the DFW tables. Codes follow ``result.VERDICTS``; delivered codes are 2 * crossed-a-pNIC + routed.
"""

from __future__ import annotations

import ipaddress

import numpy as np

from .network import Point
from .result import VERDICTS, Verdict
from .walk import IN_HOST, PHYSICAL, Walk, Walker

UNREACH, BLOCKED, HOST, HOST_R, PHYS, PHYS_R = (VERDICTS.index(v) for v in (
    Verdict.UNREACHABLE, Verdict.BLOCKED, Verdict.IN_HOST, Verdict.IN_HOST_ROUTED, Verdict.VIA_PHYSICAL,
    Verdict.ROUTED_VIA_PHYSICAL))
#: verdict code from (crossed a pNIC, routed)
_CODE = np.array([[HOST, HOST_R], [PHYS, PHYS_R]], dtype=np.int8)
_BLOCK_ROWS = 1024
_TILE = 512


class Vector:
    """The vectorised composition over interface points (see the module docstring): forward and reply
    tables, point x point, with the stateful-firewall set each direction passed. Arrays have spare room
    (``cap``) so points can be added or replaced after an edit."""

    def __init__(self, walker: Walker, points: list[Point], keys, spare: int = 0) -> None:
        self.walker, self.net, self.keys = walker, walker.net, keys
        self.n = n = len(points)
        self.cap = cap = n + spare
        self.points: list[Point | None] = list(points) + [None] * spare
        segs = self.net.segments
        self.seg = np.zeros(cap, dtype=np.int64)
        self.seg[:n] = [p.segment for p in points]
        self.parties = [walker.party(p) for p in points] + [None] * spare
        self.idents: dict[tuple, int] = {}
        self.ident_rep: list[int] = []
        self.ident_of = np.zeros(cap, dtype=np.int64)
        self.networks: dict[ipaddress.IPv4Network, int] = {}
        self.net_of = np.zeros(cap, dtype=np.int64)
        self.has_gateway = np.zeros(cap, dtype=bool)
        self.starts: dict[tuple, int] = {}
        self.start_rep: list[tuple[int, object, object, int]] = []
        self.route_type = np.zeros(cap, dtype=np.int64)
        self._states: dict[frozenset, int] = {frozenset(): 0}
        self.dfw_on = self.net.dfw_active
        self.replies_differ = self._replies_differ()
        self._labels(segs)
        for i, p in enumerate(points):
            self.ident_of[i] = self._ident_id(p, i)
            self.net_of[i] = self.networks.setdefault(p.iface.network, len(self.networks))
            self.has_gateway[i] = p.gateway is not None
        self.inside = np.zeros((len(self.networks), cap), dtype=bool)
        ips = np.array([int(p.ip) for p in points], dtype=np.int64)
        for network, ni in self.networks.items():
            self.inside[ni, :n] = (ips & int(network.netmask)) == int(network.network_address)
        self._chains_init()
        for i in range(n):
            self.route_type[i] = self._route_type(i)
        self.route, self.states = {}, {}
        for reply in (False, True):
            self.route[reply], self.states[reply] = self._route_rows(reply, range(len(self.start_rep)))
        self.dfw = {reply: self._dfw(reply) for reply in (False, True)}
        self.fwd = np.full((cap, cap), UNREACH, np.int8)
        self.state = np.zeros((cap, cap), self.state_type)
        self._table(False, self.fwd, self.state, np.arange(n))
        if not self.replies_differ:
            self.reply, self.rstate = self.fwd, self.state
            return
        self.reply, self.rstate = self.fwd.copy(), self.state.copy()
        if self.dfw[True] is not self.dfw[False] and self.dfw_on:
            rows = np.arange(n)
        else:
            differ = ((self.route[False] != self.route[True]) | (self.states[False] != self.states[True])).any(axis=1)
            rows = np.flatnonzero(differ[self.route_type[:n]])
        self._table(True, self.reply, self.rstate, rows)

    def _labels(self, segs) -> None:
        self.seg_local = np.array([s.local for s in segs], dtype=np.int64)
        self.seg_domain = np.array([s.domain for s in segs], dtype=np.int64)
        self.seg_att = np.array([s.attachment for s in segs], dtype=np.int64)

    def _ident_key(self, p: Point) -> tuple:
        return (self.keys.ip_sig(p.ip), frozenset({p.owner, p.nic, p.portgroup} & self.keys.names),
                p.nic_type is None, self.net.segments[p.segment].object_id if self.dfw_on else None,
                self.keys.device_address(p))

    def _ident_id(self, p: Point, i: int) -> int:
        key = self._ident_key(p)
        j = self.idents.get(key)
        if j is None:
            j = self.idents[key] = len(self.ident_rep)
            self.ident_rep.append(i)
        return j

    # --- routed way: gateway leg, chain of gateways, last leg ---------------------------------------

    def _start_id(self, i: int) -> tuple[int, int]:
        """(chain start, gateway leg crosses a pNIC) for point i; start -1 when it has no usable gateway."""
        p = self.points[i]
        if p.gateway is None or p.gateway not in p.iface.network:
            return -1, 0
        entry = self.walker.gateway_entry(Walk("", ""), p.segment, p.gateway)
        if entry is None:
            return -1, 0
        device, point, in_seg = entry
        leg = self.walker.l2_code(p.segment, in_seg)
        if not leg:
            return -1, 0
        key = (device.id, in_seg, int(self.ident_of[i]))
        s = self.starts.get(key)
        if s is None:
            s = self.starts[key] = len(self.start_rep)
            self.start_rep.append((i, device, point, in_seg))
            if hasattr(self, "chain"):
                self._grow_chains()
        return s, int(leg == PHYSICAL)

    def _route_type(self, i: int) -> int:
        """2 * start + (gateway leg crosses a pNIC); -1 (the last row: unreachable) without a usable gateway."""
        s, phys = self._start_id(i)
        return 2 * s + phys if s >= 0 else -1

    def _chains_init(self) -> None:
        for i in range(self.n):
            self._start_id(i)
        ns, nd = len(self.start_rep), len(self.ident_rep)
        self.chain = {reply: [np.zeros((ns, nd), np.int8), np.zeros((ns, nd), np.int64), np.zeros((ns, nd), bool),
                              np.zeros((ns, nd), np.int32)] for reply in (False, True)}
        for s in range(ns):
            for j in range(nd):
                self._walk_chain(s, j)
        # which stateful firewalls a direction passed, as a small id: one byte per pair in the usual design
        self.state_type = np.int8 if len(self._states) < 100 else np.int32

    @property
    def state_overflow(self) -> bool:
        """More distinct stateful-firewall sets than the state tables can number (after edits): rebuild."""
        return len(self._states) > np.iinfo(self.state_type).max
    def _walk_chain(self, s: int, j: int) -> None:
        i, device, point, in_seg = self.start_rep[s]
        rep = self.ident_rep[j]
        for reply in (False, True):
            if reply and not self.replies_differ:
                for a, b in zip(self.chain[True], self.chain[False]):
                    a[s, j] = b[s, j]
                continue
            walk = Walk("", "")
            out = self.walker.route(walk, device, point, in_seg, self.points[rep].ip, self.parties[i],
                                    self.parties[rep], None, None, reply)
            status, out_seg, pnic, st = self.chain[reply]
            status[s, j] = 1 if walk.blocked else (0 if out is None else 2)
            out_seg[s, j] = out if out is not None else 0
            pnic[s, j] = bool(walk.pnics)
            st[s, j] = self._states.setdefault(frozenset(walk.stateful), len(self._states))

    def _grow_chains(self) -> None:
        """A new start or identity appeared after the build: widen the chain tables and walk the new cells."""
        ns, nd = len(self.start_rep), len(self.ident_rep)
        old_ns, old_nd = self.chain[False][0].shape
        for reply in (False, True):
            self.chain[reply] = [np.pad(a, ((0, ns - old_ns), (0, nd - old_nd))) for a in self.chain[reply]]
        for s in range(ns):
            for j in range(nd):
                if s >= old_ns or j >= old_nd:
                    self._walk_chain(s, j)
        for reply in (False, True):
            extra = np.full((2 * (ns - old_ns), self.cap), UNREACH, np.int8)
            self.route[reply] = np.concatenate([self.route[reply][:-1], extra, self.route[reply][-1:]])
            self.states[reply] = np.concatenate([self.states[reply][:-1], np.zeros(extra.shape, self.state_type),
                                                 self.states[reply][-1:]])
            if ns > old_ns:
                rows, states = self._route_rows(reply, range(old_ns, ns))
                self.route[reply][2 * old_ns:2 * ns] = rows[:-1]
                self.states[reply][2 * old_ns:2 * ns] = states[:-1]

    def _route_rows(self, reply: bool, starts) -> tuple[np.ndarray, np.ndarray]:
        """Route type rows (plus the last "no route" row) against every point: the routed way's verdict code."""
        starts = list(starts)
        route = np.full((2 * len(starts) + 1, self.cap), UNREACH, dtype=np.int8)
        states = np.zeros((2 * len(starts) + 1, self.cap), dtype=self.state_type)
        n = self.n
        for r, s in enumerate(starts):
            code, st = self._route_code(reply, s, np.arange(n))
            route[2 * r:2 * r + 2, :n] = code
            states[2 * r:2 * r + 2, :n] = st
        return route, states

    def _route_code(self, reply: bool, s: int, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For chain start s and some points: the code with an in-host and with a pNIC gateway leg."""
        status, out_seg, pnic, st = (a[s, self.ident_of[cols]] for a in self.chain[reply])
        final = self._l2(out_seg, self.seg[cols])
        ok = (status == 2) & (final > 0)
        failed = np.where(status == 1, BLOCKED, UNREACH)
        out = np.empty((2, len(cols)), np.int8)
        for leg_phys in (0, 1):
            crossed = (pnic | (final == PHYSICAL) | bool(leg_phys)).astype(np.int8)
            out[leg_phys] = np.where(ok, _CODE[crossed, 1], failed)
        return out, np.broadcast_to(st, (2, len(cols)))

    # --- shared pieces ---------------------------------------------------------------------------------

    def choose(self, usable: list[int], cols: np.ndarray) -> np.ndarray:
        """``Walker.choose_source`` for an endpoint with several interfaces, per destination point."""
        fallback = next((x for x in usable if self.has_gateway[x]), usable[0])
        ch = np.full(len(cols), fallback, dtype=np.int64)
        for x in reversed(usable):
            ch = np.where(self.inside[self.net_of[x], cols], x, ch)
        return ch

    def _l2(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Vectorised ``Walker.l2_code`` on segment ids (broadcasting)."""
        local, domain, att = self.seg_local, self.seg_domain, self.seg_att
        aa, ab = att[a], att[b]
        reach = (domain[a] == domain[b]) & ~((aa != -1) & (aa == ab))
        return np.where(local[a] == local[b], IN_HOST, np.where(reach, PHYSICAL, 0)).astype(np.int8)

    def _dfw(self, reply: bool) -> tuple[np.ndarray, np.ndarray] | None:
        """DFW verdicts on identity keys, at the source going out and at the destination coming in."""
        if not self.dfw_on or (reply and self.net.topology.nsx.dfw.stateful):
            return None
        nd = len(self.ident_rep)
        out, inn = np.ones((nd, nd), dtype=bool), np.ones((nd, nd), dtype=bool)
        for a in range(nd):
            for b in range(nd):
                self._dfw_cell(out, inn, a, b)
        return out, inn

    def _dfw_cell(self, out: np.ndarray, inn: np.ndarray, a: int, b: int) -> None:
        ra, rb = self.ident_rep[a], self.ident_rep[b]
        pa, pb = self.points[ra], self.points[rb]
        if pa.nic_type is not None:
            out[a, b] = self.walker.dfw_check(pa, self.parties[ra], self.parties[rb], None, None, "out")[0]
        if pb.nic_type is not None:
            inn[a, b] = self.walker.dfw_check(pb, self.parties[ra], self.parties[rb], None, None, "in")[0]

    def _rows(self, reply: bool, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Forward (or reply) verdict codes and stateful sets for some source points against every point."""
        n = self.n
        direct = self.inside[self.net_of[rows], :n]
        code = self.route[reply][self.route_type[rows], :n]
        state = self.states[reply][self.route_type[rows], :n]
        cols = np.flatnonzero(direct.any(axis=0))
        if len(cols):
            d = direct[:, cols]
            l2 = _L2_VERDICT[self._l2(self.seg[rows][:, None], self.seg[cols][None, :])]
            code[:, cols] = np.where(d, l2, code[:, cols])
            state[:, cols] = np.where(d, 0, state[:, cols])
        return self._apply_dfw(reply, self.ident_of[rows][:, None], self.ident_of[None, :n], code), state

    def _cols(self, reply: bool, col: int) -> tuple[np.ndarray, np.ndarray]:
        """Every point against one destination point."""
        n = self.n
        rows = np.arange(n)
        direct = self.inside[self.net_of[rows], col]
        l2 = _L2_VERDICT[self._l2(self.seg[rows], self.seg[col])]
        code = np.where(direct, l2, self.route[reply][self.route_type[rows], col])
        state = np.where(direct, 0, self.states[reply][self.route_type[rows], col])
        return self._apply_dfw(reply, self.ident_of[rows], self.ident_of[col], code), state

    def _apply_dfw(self, reply: bool, src_ids, dst_ids, code: np.ndarray) -> np.ndarray:
        dfw = self.dfw[reply]
        if dfw is None:
            return code.astype(np.int8, copy=False)
        out_ok, in_ok = dfw[0][src_ids, dst_ids], dfw[1][src_ids, dst_ids]
        return np.where(out_ok, np.where((code < BLOCKED) & ~in_ok, BLOCKED, code), BLOCKED).astype(np.int8)

    def _table(self, reply: bool, code: np.ndarray, state: np.ndarray, rows: np.ndarray) -> None:
        n = self.n
        for lo in range(0, len(rows), _BLOCK_ROWS):
            block = rows[lo:lo + _BLOCK_ROWS]
            contiguous = len(block) and block[-1] - block[0] == len(block) - 1
            target = slice(int(block[0]), int(block[-1]) + 1) if contiguous else block
            code[target, :n], state[target, :n] = self._rows(reply, block)

    def _replies_differ(self) -> bool:
        """Whether a reply can be judged differently from a new flow (a stateful firewall or DFW)."""
        net = self.net
        if net.dfw_active and net.topology.nsx.dfw.stateful:
            return True
        return any(d.stateful and d.kind in ("firewall", "router", "edge") for d in net.devices)

    # --- incremental -----------------------------------------------------------------------------------

    def set_point(self, i: int, point: Point) -> None:
        """Put ``point`` at index i (a reused slot or the next free one) and recompute its row and column."""
        if i == self.n:
            self.n += 1
        self.points[i] = point
        self.parties[i] = self.walker.party(point)
        self._labels(self.net.segments)
        self.seg[i] = point.segment
        idents = len(self.ident_rep)
        self.ident_of[i] = self._ident_id(point, i)
        network = point.iface.network
        if network not in self.networks:
            self.networks[network] = len(self.networks)
            self.inside = np.concatenate([self.inside, np.zeros((1, self.cap), bool)])
            ips = np.array([int(p.ip) if p is not None else 0 for p in self.points[:self.n]], dtype=np.int64)
            self.inside[-1, :self.n] = (ips & int(network.netmask)) == int(network.network_address)
        self.net_of[i] = self.networks[network]
        self.has_gateway[i] = point.gateway is not None
        value = int(point.ip)
        for net_obj, ni in self.networks.items():
            self.inside[ni, i] = (value & int(net_obj.netmask)) == int(net_obj.network_address)
        if len(self.ident_rep) > idents:
            self._grow_chains()
            for reply in (False, True):
                if self.dfw[reply] is not None:
                    self.dfw[reply] = self._dfw(reply)
        self.route_type[i] = self._route_type(i)
        for reply in (False, True):
            for s in range(len(self.start_rep)):
                code, st = self._route_code(reply, s, np.array([i]))
                self.route[reply][2 * s:2 * s + 2, i] = code[:, 0]
                self.states[reply][2 * s:2 * s + 2, i] = st[:, 0]
        n = self.n
        for reply, code, state in ((False, self.fwd, self.state), (True, self.reply, self.rstate)):
            if reply and not self.replies_differ:
                break
            row_code, row_state = self._rows(reply, np.array([i]))
            code[i, :n], state[i, :n] = row_code[0], row_state[0]
            col_code, col_state = self._cols(reply, i)
            code[:n, i], state[:n, i] = col_code, col_state


#: L2 code (0 none, IN_HOST, PHYSICAL) -> verdict code of an unrouted delivery
_L2_VERDICT = np.array([UNREACH, HOST, PHYS], dtype=np.int8)


def combine(fwd: np.ndarray, state: np.ndarray, rev: np.ndarray, rev_state: np.ndarray) -> np.ndarray:
    """``walk.combine`` for conversations (proto None), elementwise: ``rev``/``rev_state`` are the replies
    aligned with ``fwd`` (for a square table: the reply table transposed). Both directions must deliver,
    the stateful firewalls must see both, and the verdict takes pNIC and routing from either direction.

    Delivered codes are 2 * crossed-a-pNIC + routed, so "either direction" is a bitwise or. Square tables go
    tile by tile so the transposed reply is read from cache."""
    out = np.empty(fwd.shape, dtype=np.int8)
    if fwd.ndim == 1:
        return combine_block(fwd, state, rev, rev_state, out)
    for lo in range(0, fwd.shape[0], _TILE):
        for co in range(0, fwd.shape[1], _TILE):
            tile = (slice(lo, lo + _TILE), slice(co, co + _TILE))
            combine_block(fwd[tile], state[tile], np.ascontiguousarray(rev[tile]),
                           np.ascontiguousarray(rev_state[tile]), out[tile])
    return out


def combine_block(fwd, state, rev, rev_state, out) -> np.ndarray:
    np.bitwise_or(fwd, rev, out=out)
    failed_r = rev >= BLOCKED
    np.copyto(out, rev, where=failed_r)
    failed_f = fwd >= BLOCKED
    np.copyto(out, fwd, where=failed_f)
    one_way = state != rev_state
    if one_way.any():
        out[one_way & ~failed_r & ~failed_f] = BLOCKED
    return out


assert (HOST, HOST_R, PHYS, PHYS_R) == (0, 1, 2, 3) and BLOCKED == 4 and UNREACH == 5, "code arithmetic above"

