"""The walk for one flow (SEMANTICS.md section 4) over a compiled ``Network``, one direction at a time.

L3 decision at the sender, L2 delivery over segments, gateways that route and apply their rules, the NSX DFW
at both vNICs. ``Walker.flow`` runs both directions and combines them into a ``Prediction``. The walk gathers
one pair's facts and keeps what only it needs (hops, reasons, typed steps, the largest packet, the estimate);
every decision on them is ``decide``'s, the same the matrix calls.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, replace

from . import graph as nx  # networkx's API for the graphs Network keeps, without networkx

from ..model.forwarding import BYPASS_TYPES, UplinkChooser, egress, inner_mtu, overlay_overhead
from ..model.objects import Action, Encapsulation, MacvtapMode, SwitchKind
from ..model.vlan import VlanMode
from . import decide
from .calibration import Calibration
from .decide import IN_HOST, PHYSICAL, judges
from .explain import Narrator, asymmetry
from .network import Device, Network, Point
from .result import (VERDICTS, Estimate, FilterDetail, Flow, Hop, HopKind, Prediction, RouteDetail, Step, StepKind,
                     Trace, UplinkOutcome, Verdict)
from .rules import Decision, Party, RuleBook

#: A loop guard: no sane design routes a packet through more gateways than this.
MAX_ROUTED = 8


@dataclass
class Leg:
    """L2 delivery between two segments."""

    ok: bool
    code: int = 0                       # 0 none, IN_HOST, PHYSICAL
    blocked: bool = False
    hops: list[Hop] = field(default_factory=list)
    pnics: list[str] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    stateful: list[str] = field(default_factory=list)
    capacity: list[tuple] = field(default_factory=list)   # (Mbit/s, what, measured range or None, its hop's id)
    sender: str = ""                # the source's attachment, for the packet-rate estimate
    limits: list[tuple[int, str]] = field(default_factory=list)   # MTUs on the way, in order, with their words
    latency: float = 0.0
    reason: str = ""
    path: list[int] = field(default_factory=list)          # the segments walked, for the explanation
    checks: dict[int, FilterDetail] = field(default_factory=dict)   # bridge index -> how it passed
    steps: list[Step] = field(default_factory=list)


@dataclass
class Walk:
    """What one direction collected so far."""

    src: str
    dst: str
    hops: list[Hop] = field(default_factory=list)
    pnics: list[str] = field(default_factory=list)
    routed_by: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    stateful: list[str] = field(default_factory=list)
    capacity: list[tuple] = field(default_factory=list)   # (Mbit/s, what, measured range or None, its hop's id)
    sender: str = ""                # the source's attachment, for the packet-rate estimate
    limits: list[tuple[int, str]] = field(default_factory=list)
    latency: float = 0.0
    delivered: bool = False
    blocked: bool = False
    nat: bool = False
    steps: list[Step] = field(default_factory=list)
    events: list[tuple] | None = None   # the walk's decisions, recorded only to explain a single pair

    def note(self, *event) -> None:
        if self.events is not None:
            self.events.append(event)

    def add_leg(self, leg: Leg) -> None:
        self.hops += leg.hops
        self.pnics += leg.pnics
        self.segments += [s for s in leg.segments if not self.segments or self.segments[-1] != s]
        self.rules += leg.rules
        self.stateful += leg.stateful
        self.capacity += leg.capacity
        self.limits += leg.limits
        self.latency += leg.latency
        self.steps += leg.steps

    @property
    def code(self) -> int:
        """The direction's verdict code (``decide.direction_code``)."""
        return int(decide.direction_code(self.delivered, self.blocked, bool(self.pnics), bool(self.routed_by)))

    @property
    def verdict(self) -> Verdict:
        return VERDICTS[self.code]


class Walker:
    def __init__(self, network: Network, calibration: Calibration) -> None:
        self.net = network
        self.cal = calibration
        self.dfw = network.topology.nsx.dfw
        self.rulebook = RuleBook(self.dfw)
        self._route_tables: dict[str, decide.RouteTable] = {}

    def judge(self, owner: str, rules: list, default: Action, src: Party, dst: Party, proto: str | None,
              port: int | None) -> Decision:
        """A firewall's verdict on a packet (first match, then its default policy); ``owner`` is the id of
        the router, firewall VM or bridged VM whose rules they are (the matrix records who judges)."""
        return self.rulebook.evaluate(rules, default, src, dst, proto, port)

    # --- L2 ----------------------------------------------------------------------------------------

    def l2_code(self, a: int, b: int) -> int:
        """Reachability from the segment labels (``decide.l2_code``; bridge domains need ``leg``)."""
        return decide.segment_l2(self.net.segments[a], self.net.segments[b])

    def _l2_reason(self, a: int, b: int) -> str:
        net = self.net
        sa, sb = net.segments[a], net.segments[b]
        if sa.domain == sb.domain and sa.attachment == sb.attachment != -1:
            port_id, vlan = net.attachments[sa.attachment]
            port = net.port[port_id]
            sw = net.typed(sa.object_id, "switch")
            if sw is not None and sw.kind is SwitchKind.MACVTAP and sw.macvtap_mode is MacvtapMode.PRIVATE:
                return (f"macvtap {sw.name} is in private mode: guests on the same pNIC never reach each other, "
                        f"whether port {port.name} of {net.port_switch[port_id].name} has hairpin or not")
            return (f"{sa.name} and {sb.name} both reach the physical network through port {port.name} of "
                    f"{net.port_switch[port_id].name}, which has no hairpin (reflective relay), so frames "
                    f"cannot come back out of the port they entered")
        problems = sa.problems + [p for p in sb.problems if p not in sa.problems]
        if problems:
            return "; ".join(problems)
        sw = net.typed(sa.object_id, "switch")
        if sw is not None and sw.kind is SwitchKind.NSX_SEGMENT and sa.object_id == sb.object_id:
            return self._overlay_reason(sw, sa.host, sb.host)
        missing = self._missing_trunks(a, b)
        if missing:
            return "; ".join(missing)
        return f"no L2 path joins {sa.name} and {sb.name}"

    def _wire(self, seg_id: int) -> int | None:
        """The physical segment a segment's frames reach (itself when physical), if any."""
        net = self.net
        if net.segments[seg_id].physical:
            return seg_id
        for _, peer, data in net.graph.edges(seg_id, data=True):
            if data["kind"] == "uplink":
                return peer
        return None

    def _overlay_reason(self, sw, host_a: str | None, host_b: str | None) -> str:
        """Why two hosts' instances of an NSX segment are not joined: their tunnel endpoints do not reach each
        other, because the physical network does not carry the transport VLAN between their transport pNICs."""
        net = self.net
        wa, wb = net.transports[host_a], net.transports[host_b]
        ta, tb = net.tep_segment(host_a), net.tep_segment(host_b)
        why = self._missing_trunks(ta, tb) or [f"no L2 path joins {net.segments[ta].name} and {net.segments[tb].name}"]
        vlan = f"VLAN {wa.vlan}" if wa.tag is not None else f"untagged frames (VLAN {wa.vlan} on the wire)"
        return (f"{sw.name} joins {net.host_name(host_a)} and {net.host_name(host_b)} through the NSX overlay, but "
                f"the tunnel endpoints cannot reach each other: the physical network does not carry the transport "
                f"{vlan} from {net.fabric.pnic_label(wa.pnic)} to {net.fabric.pnic_label(wb.pnic)} "
                f"({'; '.join(why)})")

    def _missing_trunks(self, a: int, b: int) -> list[str]:
        """Why two wired segments do not meet: different VLANs, or inter-switch ports on the way between their
        switches that do not carry the VLAN (a chain of trunks needs it on every one)."""
        net = self.net
        wa, wb = self._wire(a), self._wire(b)
        if wa is None or wb is None:
            return []
        pa, pb = net.segments[wa], net.segments[wb]
        if pa.vlan != pb.vlan:
            return [f"{net.segments[a].name} reaches {pa.name} but {net.segments[b].name} reaches {pb.name}"]
        try:
            path = nx.shortest_path(net.switch_graph, pa.object_id, pb.object_id)
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return [f"no cable joins {net.name_of(pa.object_id)} and {net.name_of(pb.object_id)}"]
        out = []
        for x, y in zip(path, path[1:]):
            for port_id in net.switch_graph.edges[x, y]["ports"]:
                port = net.port[port_id]
                if not port.up:
                    out.append(f"{net.fabric.port_label(port)} is down")
                elif not egress(port, pa.vlan)[0]:
                    out.append(f"{net.fabric.port_label(port)} does not allow VLAN {pa.vlan}")
        return out

    def leg(self, a: int, b: int, src: Party, dst: Party, proto: str | None, port: int | None,
            reply: bool = False) -> Leg:
        net = self.net
        sa = net.segments[a]
        code = self.l2_code(a, b)
        if a == b:
            return Leg(True, IN_HOST, hops=[self._seg_hop(a)], segments=[sa.name], limits=self._seg_limit(a),
                       latency=self.cal.latency("switch"), path=[a])
        if code == 0 and not (sa.has_bridge and sa.domain == net.segments[b].domain):
            return Leg(False, reason=self._l2_reason(a, b))
        try:
            path = nx.bidirectional_shortest_path(net.graph, a, b)
        except nx.NetworkXNoPath:
            return Leg(False, reason=self._l2_reason(a, b))
        leg = Leg(True, path=path)
        entered: dict[int, tuple[str, bool]] = {}
        for i, node in enumerate(path):
            seg = net.segments[node]
            if not seg.name.endswith("overlay"):
                leg.hops.append(self._seg_hop(node))
                leg.segments.append(seg.name)
                leg.limits += self._seg_limit(node)
                leg.latency += self.cal.latency("physical_switch" if seg.physical else "switch")
            if i + 1 == len(path):
                break
            nxt = path[i + 1]
            data = net.graph.edges[node, nxt]
            kind = data["kind"]
            if kind == "uplink":
                pnic = net.pnic[data["pnic"]]
                port_obj = net.port[data["port"]]
                pnic_hop = Hop(HopKind.PNIC, pnic.id, f"{net.host_name(net.host_of_pnic[pnic.id])}/{pnic.name}",
                               f"{pnic.speed_mbps} Mbit/s")
                port_hop = Hop(HopKind.PORT, port_obj.id, f"{net.port_switch[port_obj.id].name} {port_obj.name}",
                               "hairpin" if port_obj.hairpin else "")
                going_out = not seg.physical
                leg.hops += [pnic_hop, port_hop] if going_out else [port_hop, pnic_hop]
                limits = [_limit(pnic.mtu, pnic_hop.name), _limit(port_obj.mtu, net.fabric.port_label(port_obj))]
                leg.limits += limits if going_out else limits[::-1]
                leg.pnics.append(pnic.id)
                leg.capacity.append((pnic.speed_mbps * self.cal.pnic_efficiency, pnic_hop.name, None, pnic.id))
                leg.latency += self.cal.latency("pnic")
                if going_out:
                    entered[nxt] = (port_obj.id, data["hairpin"])
                elif entered.get(node) == (port_obj.id, False):
                    leg.ok = False
                    leg.reason = (f"{port_obj.name} of {net.port_switch[port_obj.id].name} would have to send the "
                                  f"frame back out of the port it came in on, and it has no hairpin")
                    return leg
            elif kind == "trunk":
                pa, pb = (net.port[p] for p in data["ports"])
                if net.port_switch[pa.id].id != seg.object_id:
                    pa, pb = pb, pa
                leg.hops += [Hop(HopKind.PORT, pa.id, f"{net.port_switch[pa.id].name} {pa.name}", "trunk"),
                             Hop(HopKind.PORT, pb.id, f"{net.port_switch[pb.id].name} {pb.name}", "trunk")]
                leg.limits += [_limit(pa.mtu, net.fabric.port_label(pa)), _limit(pb.mtu, net.fabric.port_label(pb))]
                if data.get("speed"):
                    leg.capacity.append((data["speed"] * self.cal.pnic_efficiency, f"trunk {pa.name}/{pb.name}", None,
                                         pa.id))
            elif kind == "overlay":
                pnic = net.pnic[data["pnic"]]
                name = f"{net.host_name(net.host_of_pnic[pnic.id])}/{pnic.name}"
                leg.hops.append(Hop(HopKind.PNIC, pnic.id, name, "overlay transport"))
                if not seg.name.endswith("overlay"):
                    sw = net.typed(seg.object_id, "switch")
                    leg.hops.append(Hop(HopKind.OVERLAY, seg.object_id, f"{net.segments[nxt].name} tunnel",
                                        (sw.encapsulation or Encapsulation.GENEVE).label))
                else:  # arriving: the tunnel's inner limit is known once both hosts are
                    leg.limits.append(self._overlay_limit(net.segments[path[i - 1]], net.segments[nxt]))
                leg.pnics.append(pnic.id)
                leg.capacity.append((pnic.speed_mbps * self.cal.pnic_efficiency, name, None, pnic.id))
                leg.latency += self.cal.latency("pnic") + self.cal.latency("overlay")
            elif kind == "bridge":
                bridge = net.bridges[data["bridge"]]
                vm = bridge.vm
                leg.hops.append(Hop(HopKind.FIREWALL, vm.id, vm.name, "bridged"))
                leg.limits += [_limit(n.mtu, f"{vm.name}/{n.name}") for n in vm.vnics]
                leg.latency += self.cal.latency("firewall")
                leg.capacity.append((self._forwarding_capacity([str(n.type) for n in vm.vnics]), vm.name, None, vm.id))
                if not bridge.security_ok:
                    leg.blocked = True
                    leg.reason = bridge.security_problem
                    return leg
                fwd = vm.forwarding
                if fwd.stateful:
                    leg.stateful.append(vm.id)
                if not judges(True, fwd.stateful, reply):
                    leg.checks[data["bridge"]] = _filtered(leg.steps, vm.id, vm.name, "bridged", None)
                    continue  # a reply passes a stateful firewall on the connection's state
                decision = self.judge(vm.id, fwd.rules, fwd.default_policy, src, dst, proto, port)
                leg.rules.append(f"{vm.name}: {decision.which}")
                leg.checks[data["bridge"]] = _filtered(leg.steps, vm.id, vm.name, "bridged", decision)
                if not decision.allowed:
                    leg.blocked = True
                    leg.reason = f"bridged firewall {vm.name} drops it ({decision.which})"
                    return leg
        leg.code = PHYSICAL if leg.pnics else IN_HOST
        return leg

    def _seg_hop(self, seg_id: int) -> Hop:
        seg = self.net.segments[seg_id]
        if seg.physical:
            return Hop(HopKind.PHYSICAL_SWITCH, seg.object_id, seg.name)
        if seg.object_id in self.net.pnic:
            return Hop(HopKind.EMBEDDED_SWITCH, seg.object_id, seg.name, "SR-IOV, past the vSwitch")
        return Hop(HopKind.SWITCH, seg.object_id, seg.name)

    def _seg_limit(self, seg_id: int) -> list[tuple[int, str]]:
        """A virtual switch's MTU (physical switches limit at their ports; a pNIC's own switch at the pNIC)."""
        seg = self.net.segments[seg_id]
        sw = None if seg.physical else self.net.typed(seg.object_id, "switch")
        return [(sw.mtu, f"{seg.name} (switch MTU)")] if sw is not None else []

    def _overlay_limit(self, sa, sb) -> tuple[int, str]:
        """The largest guest packet an NSX tunnel between two hosts carries: the transport path's MTU (transport
        pNICs and every port between them) less the encapsulation's bytes."""
        sw = self.net.typed(sa.object_id, "switch")
        mtu, where = self.net.transport_mtu(sa.host, sb.host)
        enc = (sw.encapsulation or Encapsulation.GENEVE).label
        return inner_mtu(sw, mtu), (f"the NSX overlay of {sw.name}: the transport path takes {mtu} bytes at {where}, "
                                    f"and {enc} adds {overlay_overhead(sw)}")

    def _untagged_on_trunk(self, point: Point, target: int | None) -> list[str]:
        """An untagged guest on a trunk portgroup that did not get through: say first which VLAN it is on (SEMANTICS
        §2: VLAN none on a vSS, the native VLAN elsewhere), since that, not the wire, is usually why."""
        net = self.net
        pg = net.typed(point.portgroup, "portgroup")
        nic = net.index.get(point.nic)
        if pg is None or pg.vlan.mode is not VlanMode.TRUNK or getattr(nic, "guest_vlan", 1) is not None:
            return []
        seg = net.segments[point.segment]
        here = f"VLAN {seg.vlan}" if seg.vlan is not None else "VLAN none (untagged)"
        there = net.segments[target].vlan if target is not None else None
        other = f", not in VLAN {there} where the other end is" if there is not None and there != seg.vlan else ""
        return [f"{point.name} sends untagged frames on trunk portgroup {pg.name}, so it is in {here} of "
                f"{net.name_of(seg.object_id)}{other} (to be in a VLAN, the guest tags it)"]

    def _vnic_capacity(self, point: Point) -> tuple[float, str, tuple[float, float] | None, str]:
        """What a vNIC carries: its type's calibrated rate (with the measured rounds' range, where the profile
        has one); an SR-IOV or DirectPath adapter is the pNIC itself."""
        seg = self.net.segments[point.segment] if point.segment is not None else None
        pnic = self.net.pnic.get(seg.object_id) if seg is not None and point.nic_type in BYPASS_TYPES else None
        if pnic is not None:
            return (pnic.speed_mbps * self.cal.pnic_efficiency, f"{point.name} ({point.nic_type} on {pnic.name})", None,
                    point.nic)
        return (self.cal.vnic(point.nic_type), f"{point.name} ({point.nic_type})", self.cal.vnic_spread(point.nic_type),
                point.nic)

    def _sender(self, point: Point) -> str:
        """Which small-UDP packet-rate figure a sender reaches (seed 001): a physical host's NIC, or a qemu guest
        on tap + bridge, on macvtap or on a raw AF_PACKET attachment; "" where no figure applies (ESXi...)."""
        if not point.nic_type:
            return "physical"
        seg = self.net.segments[point.segment] if point.segment is not None else None
        if seg is None or seg.host is None or self.net.index.kind(seg.host) != "host" \
                or str(self.net.index.get(seg.host).kind) != "kvm":
            return ""
        switch = self.net.index.get(seg.object_id) if seg.object_id else None
        kind = str(getattr(switch, "kind", ""))
        return {"macvtap": "macvtap", "raw": "raw_af_packet"}.get(kind, "tap_bridge")

    def _forwarding_capacity(self, types) -> float:
        """A forwarding VM moves traffic as fast as its vNICs, but emulated drivers cap it (seed 000)."""
        types = [t for t in types if t] or ["vmxnet3"]
        cap = min(self.cal.vnic(t) for t in types)
        if any(t not in self.cal.paravirtual_types for t in types):
            cap = min(cap, self.cal.emulated_forwarding_cap_mbps)
        return cap

    # --- parties and endpoints ------------------------------------------------------------------------

    def party(self, point: Point) -> Party:
        ids = {point.owner, point.nic}
        if point.portgroup:
            ids.add(point.portgroup)
        return Party(point.ip, frozenset(ids))

    def dfw_check(self, walk: Walk, point: Point, src: Party, dst: Party, proto: str | None, port: int | None,
                  where: str) -> bool:
        """The DFW at one vNIC (it filters there): the rules applied to it, first match, default policy;
        recorded in ``walk``; whether it lets the packet pass."""
        ids = self.party(point).ids | ({self.net.segments[point.segment].object_id} if point.segment is not None else set())
        decision, count = self.rulebook.dfw_evaluate(ids, src, dst, proto, port)
        text = f"DFW at {point.name} ({where}): {decision.which}"
        walk.rules.append(text)
        walk.note("dfw", point, _filtered(walk.steps, point.nic, point.name, "dfw", decision, where))
        walk.latency += self.cal.latency("dfw_per_vnic") * max(count, 1) / 100
        if not decision.allowed:
            walk.blocked = True
            walk.reasons.append(f"the NSX distributed firewall drops it at {point.name}: {text}")
        return decision.allowed

    def choose_source(self, points: list[Point], dst_ip: ipaddress.IPv4Address | None) -> Point | None:
        """The interface a multi-homed sender uses towards ``dst_ip`` (``decide.source_rank``)."""
        if not points:
            return None
        ranks = []
        for p in points:
            usable = p.segment is not None and p.iface is not None
            near = usable and decide.inside_net(dst_ip, p.iface.network)
            ranks.append(decide.source_rank(usable, p.gateway is not None, near))
        return points[decide.first_of_lowest(ranks)]

    # --- one direction -------------------------------------------------------------------------------

    def direction(self, src_id: str, dst_id: str, proto: str | None, port: int | None,
                  only_dst: Point | None = None, reply: bool = False,
                  explain: bool = False) -> tuple[Walk, Point | None, Point | None]:
        """Walk src -> dst; tries each of dst's interfaces and keeps the first that delivers.

        A ``reply`` is the answer of a conversation: stateful firewalls (and a stateful DFW) pass it on the
        connection's state instead of their rules, stateless ones see an ephemeral port (no port)."""
        port = decide.reply_port(port, reply)
        dst_points = [only_dst] if only_dst is not None else self.net.points.get(dst_id, [])
        if len(dst_points) <= 1:
            return self._direction(src_id, dst_id, dst_points[0] if dst_points else None, proto, port, reply, explain)
        # a person means the address nearest to the source: ``decide.destination_rank`` picks among all tries
        nets = [p.iface.network for p in self.net.points.get(src_id, []) if p.iface is not None and p.segment is not None]
        results = [self._direction(src_id, dst_id, p, proto, port, reply, explain) for p in dst_points]
        ranks = [decide.destination_rank(r[0].delivered, p.segment is not None
                                         and any(decide.inside_net(p.ip, n) for n in nets))
                 for r, p in zip(results, dst_points)]
        return results[decide.first_of_lowest(ranks)]

    def _direction(self, src_id: str, dst_id: str, dst_point: Point | None, proto: str | None,
                   port: int | None, reply: bool = False,
                   explain: bool = False) -> tuple[Walk, Point | None, Point | None]:
        net = self.net
        walk = Walk(src_id, dst_id, events=[] if explain else None)
        src_points = net.points.get(src_id, [])
        dst_name = net.name_of(dst_id)
        src_name = net.name_of(src_id)
        if dst_point is None or dst_point.iface is None:
            walk.reasons.append(f"{dst_name} has no IPv4 address to send to")
            return walk, None, dst_point
        dst_ip = dst_point.ip
        src_point = self.choose_source(src_points, dst_ip)
        if src_point is None:
            walk.reasons.append(f"{src_name} has no network adapter")
            return walk, None, dst_point
        for point in (src_point, dst_point):
            if point.problem:
                walk.reasons.append(point.problem)
                return walk, src_point, dst_point
        if src_point.iface is None:
            walk.reasons.append(f"{src_point.name} has no IPv4 address")
            return walk, src_point, dst_point
        src_party, dst_party = self.party(src_point), self.party(dst_point)
        walk.hops.append(Hop(HopKind.VNIC if src_point.nic_type else HopKind.HOST_NIC, src_point.nic, src_point.name,
                             str(src_point.iface)))
        if src_point.portgroup and net.index.kind(src_point.portgroup) == "portgroup":
            walk.hops.append(Hop(HopKind.PORTGROUP, src_point.portgroup, net.index.get(src_point.portgroup).name))
        for point in (src_point, dst_point):
            if point.nic_type:
                walk.capacity.append(self._vnic_capacity(point))
        walk.sender = self._sender(src_point)
        walk.limits += _mtu_of(src_point)
        dfw_on = judges(bool(net.dfw_active), bool(self.dfw.stateful), reply)
        dfw_here = dfw_on and behind_dfw(src_point)
        if dfw_here and not self.dfw_check(walk, src_point, src_party, dst_party, proto, port, "out"):
            return walk, src_point, dst_point
        dst_seg = net.segments[dst_point.segment]
        if dst_seg.object_id in self._nat_inside and src_point.segment != dst_point.segment:
            walk.reasons.append(f"{dst_name} sits behind {self._nat_inside[dst_seg.object_id]}, which hides it "
                                f"from outside (no port forwarding is modelled)")
            return walk, src_point, dst_point

        seg, network = src_point.segment, src_point.iface.network
        near = decide.inside_net(dst_ip, network)
        walk.note("l3", src_point, dst_point, near)
        sender: tuple = ("vm", src_point)
        if not near:
            if src_point.gateway is None:
                walk.reasons.append(f"{dst_name} ({dst_ip}) is outside {src_point.name}'s subnet {network} and "
                                    f"{src_point.name} has no default gateway")
                return walk, src_point, dst_point
            if not decide.inside_net(src_point.gateway, network):
                walk.reasons.append(f"{src_point.name}'s gateway {src_point.gateway} is outside its subnet "
                                    f"{network}, so it has no route to {dst_ip}")
                return walk, src_point, dst_point
            entry = self.gateway_entry(walk, seg, src_point.gateway)
            if entry is None:
                return walk, src_point, dst_point
            device, point, in_seg = entry
            leg = self.leg(seg, in_seg, src_party, dst_party, proto, port, reply)
            walk.add_leg(leg)
            walk.note("leg", leg, sender, ("gateway", device, point, src_point.gateway, True))
            if leg.blocked or not leg.ok:
                walk.blocked = leg.blocked
                walk.reasons += self._untagged_on_trunk(src_point, in_seg) + [
                    f"{leg.reason} (on the way to gateway {device.name} {src_point.gateway})"]
                return walk, src_point, dst_point
            seg = self.route(walk, device, point, in_seg, dst_ip, src_party, dst_party, proto, port, reply)
            if seg is None:
                return walk, src_point, dst_point
            sender = ("device",)
        leg = self.leg(seg, dst_point.segment, src_party, dst_party, proto, port, reply)
        walk.add_leg(leg)
        walk.note("leg", leg, sender, ("dest", dst_point))
        if leg.blocked or not leg.ok:
            walk.blocked = leg.blocked
            walk.reasons += (self._untagged_on_trunk(src_point, dst_point.segment) if sender[0] == "vm" else []) + \
                self._untagged_on_trunk(dst_point, seg) + [leg.reason]
            return walk, src_point, dst_point
        if dfw_on and behind_dfw(dst_point) and \
                not self.dfw_check(walk, dst_point, src_party, dst_party, proto, port, "in"):
            return walk, src_point, dst_point
        if dst_point.portgroup and net.index.kind(dst_point.portgroup) == "portgroup":
            walk.hops.append(Hop(HopKind.PORTGROUP, dst_point.portgroup, net.index.get(dst_point.portgroup).name))
        walk.hops.append(Hop(HopKind.VNIC if dst_point.nic_type else HopKind.HOST_NIC, dst_point.nic, dst_point.name,
                             str(dst_point.iface)))
        walk.limits += _mtu_of(dst_point)
        walk.delivered = True
        return walk, src_point, dst_point

    @property
    def _nat_inside(self) -> dict[str, str]:
        """Hosted NAT switches (their device id is the switch id) by the NAT service's name."""
        return {d.id: d.name for d in self.net.devices if d.kind == "nat"}

    def gateway_entry(self, walk: Walk, seg: int, gateway: ipaddress.IPv4Address) -> tuple[Device, Point, int] | None:
        """The device owning ``gateway`` and the segment a frame from ``seg`` reaches it on (a DLR: its
        instance on the frame's host)."""
        net = self.net
        owners = net.by_address.get(gateway, [])
        if not owners:
            if gateway in net.host_addresses:
                walk.reasons.append(f"the gateway {gateway} is {net.host_addresses[gateway]}; the host does not "
                                    f"route for that network")
            else:
                walk.reasons.append(f"nothing in the design has the gateway address {gateway}")
            return None
        device, point = owners[0]
        host = net.segments[seg].host
        in_seg = net.dlr_segment(point, host) if device.kind == "dlr" else point.segment
        if in_seg is None:
            walk.reasons.append(point.problem or (f"{device.name} has no instance on "
                                                  f"{net.host_name(host) if host else 'the physical network'}"))
            return None
        return device, point, in_seg

    def route(self, walk: Walk, device: Device, point: Point, in_seg: int, dst_ip: ipaddress.IPv4Address,
              src: Party, dst: Party, proto: str | None, port: int | None, reply: bool = False) -> int | None:
        """From arriving at ``device`` until the last gateway sends the packet onto the target's network:
        the segment it leaves on, or None (reasons and verdict recorded in ``walk``)."""
        net = self.net
        seen: set[str] = set()
        for _ in range(MAX_ROUTED):
            if device.id in seen:
                walk.reasons.append(f"the packet to {dst_ip} comes back to {device.name}: a routing loop")
                return None
            seen.add(device.id)
            host = net.segments[in_seg].host
            own = next((p for p in device.points if p.ip == dst_ip and p.segment is not None), None)
            if own is not None and device.kind in ("firewall", "router", "edge"):
                walk.steps.append(Step(StepKind.ROUTE, device.id, device.name,
                                       RouteDetail(point.nic, own.nic, received=True)))
                walk.note("own", device, own)
                return own.segment  # addressed to the gateway itself: received, not forwarded
            kind = {"router": "router", "firewall": "firewall", "edge": "router", "dlr": "dlr", "nat": "nat"}[device.kind]
            walk.hops += [Hop(HopKind.ROUTER_INTERFACE, point.nic, point.name, str(point.iface)),
                          Hop(HopKind(kind), device.id, device.name, "routes")]
            walk.limits += _mtu_of(point)
            walk.routed_by.append(device.name)
            walk.latency += self.cal.latency(kind)
            if device.kind in ("firewall", "router", "edge") and device.host is not None:
                walk.capacity.append((self._forwarding_capacity(device.nic_types), device.name, None, device.id))
            stateful = device.stateful and device.kind in ("firewall", "router", "edge")
            if stateful:
                walk.stateful.append(device.id)
            check = None
            active = bool(device.rules) or device.default_policy is Action.DENY
            if judges(active, stateful, reply):
                decision = self.judge(device.id, device.rules, device.default_policy, src, dst, proto, port)
                walk.rules.append(f"{device.name}: {decision.which}")
                check = _filtered(walk.steps, device.id, device.name, "routed", decision)
                if not decision.allowed:
                    walk.blocked = True
                    walk.reasons.append(f"{device.name} drops it ({decision.which})")
                    return None
            elif not judges(True, stateful, reply):
                check = _filtered(walk.steps, device.id, device.name, "routed", None)
            out = self._out(walk, device, host, dst_ip)
            if out is None:
                return None
            seg, network, next_hop, out_point, prefix = out
            walk.steps.append(Step(StepKind.ROUTE, device.id, device.name, RouteDetail(
                point.nic, out_point.nic, str(next_hop) if next_hop is not None else None,
                str(prefix) if prefix is not None else None)))
            walk.note("route", device, point, in_seg, out_point, seg, next_hop, check, prefix)
            if next_hop is None:
                return seg
            entry = self.gateway_entry(walk, seg, next_hop)
            if entry is None:
                return None
            device, point, in_seg = entry
            leg = self.leg(seg, in_seg, src, dst, proto, port, reply)
            walk.add_leg(leg)
            walk.note("leg", leg, ("device",), ("gateway", device, point, next_hop, False))
            if leg.blocked or not leg.ok:
                walk.blocked = leg.blocked
                walk.reasons.append(f"{leg.reason} (on the way to gateway {device.name} {next_hop})")
                return None
        walk.reasons.append(f"the packet to {dst_ip} passes more than {MAX_ROUTED} gateways: a routing loop")
        return None

    def _out(self, walk: Walk, device: Device, host: str | None,
             dst_ip: ipaddress.IPv4Address) -> tuple[int, ipaddress.IPv4Network, ipaddress.IPv4Address | None,
                                                     Point, ipaddress.IPv4Network | None] | None:
        """Where ``device`` sends the packet: (segment, its network, next hop or None, the interface, the
        static route that chose it or None)."""
        net = self.net

        def seg_of(p: Point) -> int | None:
            return net.dlr_segment(p, host) if device.kind == "dlr" else p.segment

        if device.kind == "nat":
            walk.nat = True
            inside, outside = device.points[0], device.points[1]
            if inside.iface is not None and decide.inside_net(dst_ip, inside.iface.network):
                return inside.segment, inside.iface.network, None, inside, None
            if outside.segment is None:
                walk.reasons.append(outside.problem or f"{device.name} has no way out of the host")
                return None
            walk.hops.append(Hop(HopKind.NAT, device.id, device.name, "translates the source address"))
            found = self._nat_out(walk, device, outside, dst_ip)
            return (*found, outside, None) if found is not None else None
        table = self.route_table(device)
        i, r = table.lookup(int(dst_ip), lambda i: seg_of(device.points[i]) is not None)
        if i >= 0:
            p = device.points[i]
            walk.hops.append(Hop(HopKind.ROUTER_INTERFACE, p.nic, p.name, str(p.iface)))
            walk.limits += _mtu_of(p)
            return (seg_of(p), p.iface.network, table.routes[r][1] if r >= 0 else None, p,
                    table.routes[r][0] if r >= 0 else None)
        if r >= 0:
            prefix, via = table.routes[r]
            walk.reasons.append(f"{device.name}'s route to {prefix} points at {via}, which is on none of its "
                                f"interfaces")
            return None
        walk.reasons.append(f"{device.name} has no interface in {dst_ip}'s network and no route to it")
        return None

    def route_table(self, device: Device) -> decide.RouteTable:
        """The device's longest-prefix table (built once per compiled network)."""
        table = self._route_tables.get(device.id)
        if table is None:
            table = self._route_tables[device.id] = decide.RouteTable(
                [p.iface.network if p.iface is not None else None for p in device.points], device.routes)
        return table

    def _nat_out(self, walk: Walk, device: Device, outside: Point,
                 dst_ip: ipaddress.IPv4Address) -> tuple[int, ipaddress.IPv4Network, ipaddress.IPv4Address | None] | None:
        """The host sends the translated packet on its own LAN: directly when the target is there, else to its
        default gateway (the host OS's, when the design gives its address; else a router on that LAN)."""
        net = self.net
        if outside.gateway is not None and not (outside.iface is not None and decide.inside_net(dst_ip, outside.iface.network)):
            return outside.segment, outside.iface.network if outside.iface else None, outside.gateway
        for pts in net.points.values():
            for p in pts:
                if p.iface is not None and p.ip == dst_ip and p.segment is not None \
                        and self.l2_code(outside.segment, p.segment):
                    return outside.segment, p.iface.network, None
        for dev in net.devices:
            if dev.kind != "router":
                continue
            for p in dev.points:
                if p.segment is not None and p.iface is not None and self.l2_code(outside.segment, p.segment):
                    return outside.segment, p.iface.network, p.iface.ip
        walk.reasons.append(f"{dst_ip} is neither on {device.name}'s host network nor behind a router there")
        return None

    # --- both directions -------------------------------------------------------------------------------

    def trace(self, walk: Walk) -> Trace:
        verdict = walk.verdict
        mtu, limit = None, ""
        if walk.delivered and not walk.blocked:
            cap, bottleneck, spread, bottleneck_id = min(walk.capacity, default=(None, "", None, None),
                                                         key=lambda c: c[0])
            rate = self.cal.packet_rate_pps.get(walk.sender) if walk.sender else None
            estimate = Estimate(cap, round(walk.latency, 2), bottleneck, self.cal.source, spread,
                                rate, self.cal.spreads.get(f"packet_rate_pps/{walk.sender}") if rate else None,
                                walk.sender if rate else "", bottleneck_id)
            mtu, limit = min(walk.limits, default=(None, ""), key=lambda m: m[0])
        else:
            estimate = Estimate(None, None, "", self.cal.source)
        if walk.events is not None:
            reasons = Narrator(self.net).tell(walk.events) + [r if r.endswith(".") else r + "." for r in walk.reasons]
        else:
            reasons = list(walk.reasons)
        if walk.delivered and not reasons:
            reasons.append(self._explain(walk))
        return Trace(walk.src, walk.dst, verdict, tuple(walk.hops), tuple(walk.pnics), tuple(walk.routed_by),
                     tuple(walk.rules), tuple(walk.segments), tuple(reasons), estimate, mtu,
                     limit,
                     tuple(walk.steps))

    def _explain(self, walk: Walk) -> str:
        where = "inside the host" if not walk.pnics else f"through {len(walk.pnics)} pNIC crossing(s)"
        if walk.routed_by:
            return f"routed by {', '.join(walk.routed_by)}, delivered {where}"
        if not walk.pnics and len(walk.segments) <= 1:
            return f"both sit on {walk.segments[0] if walk.segments else 'one segment'}: one virtual switch delivers it"
        return f"delivered at L2 {where}"

    def flow(self, src_id: str, dst_id: str, proto: str | None = None, port: int | None = None,
             explain: bool = False) -> Prediction:
        """Both directions of one flow. ``explain`` narrates every decision in the reasons (one pair asked by
        a person); the matrix and what-if walk without it and keep only the reasons of failures."""
        fwd_walk, src_point, dst_point = self.direction(src_id, dst_id, proto, port, explain=explain)
        if fwd_walk.nat and fwd_walk.delivered:
            rev_walk = self._mirror(fwd_walk)
        else:
            rev_walk, _, _ = self.direction(dst_id, src_id, proto, port, only_dst=src_point,
                                            reply=decide.conversation_of(proto), explain=explain)
        forward, reverse = self.trace(fwd_walk), self.trace(rev_walk)
        flow = Flow(src_id, dst_id, proto, port, self.net.name_of(src_id), self.net.name_of(dst_id))
        prediction = combine(forward, reverse, fwd_walk, rev_walk, flow, self.net)
        if explain:
            prediction = self._per_uplink(prediction, src_point, dst_point)
        return prediction

    def _per_uplink(self, prediction: Prediction, src_point: Point | None, dst_point: Point | None) -> Prediction:
        """The answer through each uplink teaming may put the pair's vNICs on (``Point.variants``), walked
        with the vNIC on that uplink's segment; the pair's own verdict stays the labels' (the worst of them,
        ``decide.across_uplinks``), and the reasons say what each uplink gives."""
        ends = [(src_point, dst_point), (dst_point, src_point)]
        teamed = [(p, p.choice, other) for p, other in ends if p is not None and p.choice is not None]
        outcomes: list[UplinkOutcome] = []
        flow = prediction.flow
        for point, choice, _ in teamed:
            kept = point.segment
            try:
                for up, variant in zip(choice.uplinks, point.variants):
                    point.segment = variant
                    p = self.flow(flow.src, flow.dst, flow.proto, flow.port)
                    outcomes.append(UplinkOutcome(point.name, self.net.fabric.pnic_label(up.pnic), p.verdict,
                                                  "" if p.verdict.delivered else (p.reasons[-1] if p.reasons else "")))
            finally:
                point.segment = kept
        codes = [VERDICTS.index(o.verdict) for o in outcomes]
        if not decide.uplink_matters(codes):
            return prediction     # the pair stays in the host whichever uplink
        lines = tuple(f"through {o.uplink}, {o.vnic}'s traffic is {o.verdict}" + (f": {o.reason}" if o.reason else "")
                      for o in outcomes)
        if bool(decide.across_uplinks(codes)[1]):
            lines = (f"the answer depends on the uplink chosen: {decide.RUN_TIME_WORDS}",) + lines
        for point, choice, other in teamed:
            if choice.chooser is not UplinkChooser.ADDRESS_HASH or point.ip is None or other is None \
                    or other.ip is None:
                continue
            hashed = choice.for_pair(int(point.ip), int(other.ip))
            lines += (f"IP hash sends this pair from {point.name} through {self.net.fabric.pnic_label(hashed.pnic)} "
                      f"(last octets XOR, modulo {len(choice.uplinks)} uplinks)",)
        return replace(prediction, reasons=prediction.reasons + lines, uplinks=tuple(outcomes))

    def _mirror(self, walk: Walk) -> Walk:
        """Replies to a NATed flow return through the NAT's connection tracking, along the same path."""
        rev = Walk(walk.dst, walk.src, hops=walk.hops[::-1], pnics=walk.pnics[::-1], routed_by=walk.routed_by[::-1],
                   rules=list(walk.rules), segments=walk.segments[::-1], stateful=list(walk.stateful),
                   capacity=list(walk.capacity), latency=walk.latency, delivered=True, nat=True, steps=walk.steps[::-1],
                   events=[] if walk.events is not None else None)
        rev.reasons.append("replies return through the NAT's connection tracking")
        return rev


def _filtered(steps: list[Step], owner: str, name: str, firewall: str, decision: Decision | None,
              at: str = "") -> FilterDetail:
    """Record a firewall's decision as a typed step (``decision`` None: a reply passed on the connection's
    state) and return its detail."""
    if decision is None:
        detail = FilterDetail(firewall, True, on_state=True, at=at)
    else:
        detail = FilterDetail(firewall, decision.allowed, None if decision.rule is None else decision.rule + 1,
                              decision.which if decision.rule is not None else "", str(decision.policy), at=at)
    steps.append(Step(StepKind.FILTER, owner, name, detail))
    return detail


def _limit(mtu: int, where: str) -> tuple[int, str]:
    """A limit on the way: its MTU and the words for where it sits, naming the MTU (``Trace.mtu_limit``)."""
    return mtu, f"{where} (MTU {mtu})"


def _mtu_of(point: Point) -> list[tuple[int, str]]:
    return [_limit(point.mtu, point.mtu_at or point.name)] if point.mtu is not None else []


def behind_dfw(point: Point) -> bool:
    """Whether the NSX DFW filters at this interface (``decide.filtered_by_dfw``)."""
    return decide.filtered_by_dfw(point.nic_type)


def combine(forward: Trace, reverse: Trace, fwd: Walk, rev: Walk, flow: Flow, net: Network) -> Prediction:
    """The flow's answer, decided by ``decide.combine`` (a one-way protocol takes the forward direction), with
    words for the branch that decided (``decide.cause``). An explained flow keeps the forward story in front
    of a failed reply's reason."""
    fwd_state, rev_state = frozenset(fwd.stateful), frozenset(rev.stateful)
    same_state = 0 if fwd_state == rev_state else 1     # state ids as the matrix compares them
    if not decide.conversation_of(flow.proto):
        return Prediction(forward, reverse, forward.verdict, forward.reasons, flow)
    code = int(decide.combine(fwd.code, 0, rev.code, same_state))
    why = int(decide.cause(fwd.code, 0, rev.code, same_state))
    verdict = VERDICTS[code]
    if why == decide.FORWARD_FAILED:
        return Prediction(forward, reverse, verdict, forward.reasons, flow)
    story = forward.reasons if fwd.events is not None else ()
    if why == decide.REPLY_FAILED:
        failure = rev.reasons or list(reverse.reasons)
        return Prediction(forward, reverse, verdict, story + tuple(f"the reply cannot come back: {r}" for r in failure),
                          flow)
    if why == decide.ONE_SIDED_STATE:
        one_way = sorted(fwd_state ^ rev_state)
        names = ", ".join(net.name_of(i) for i in one_way)
        asym = (f"stateful firewall {names} sees only one direction of the conversation (asymmetric "
                f"return path), so it drops it",)
        if fwd.events is not None:
            asym = (asymmetry(net, fwd, rev, one_way), asym[0][:1].upper() + asym[0][1:] + ".")
        return Prediction(forward, reverse, verdict, story + asym, flow)
    return Prediction(forward, reverse, verdict, forward.reasons, flow)
