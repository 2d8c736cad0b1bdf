"""The plain-language story of one walk: one short sentence per decision, in order, naming objects by name.

The walker records its decisions as small events only when a person asks about one pair
(``Walker.flow(explain=True)``); the matrix and what-if never pay for the wording. The narrator turns them
into sentences afterwards, so a sentence can look ahead (a router that sends a frame back out of the port
it came in on is only known once the next leg is walked). The events are ``events``' dataclasses.
"""

from __future__ import annotations

from typing import Any

from ..model.forwarding import (
    TAGGING_SWITCHES, TEAMING_SWITCHES, UplinkFault, pvlan_role_words, uplink_tag,
)
from ..model.objects import Encapsulation, MacvtapMode, PortMode, SwitchKind
from ..model.vlan import VlanMode
from . import teps, tiers
from .events import (DfwChecked, Event, FromEndpoint, FromGateway, L3Choice, LegWalked, Received, Routed,
                     ToDestination, ToGateway)
from .kinds import DeviceKind, EdgeKind
from .network import Network, Point, Segment
from .result import FilterDetail

#: Why a switch may send a routed frame back out of the port the original came in on (SEMANTICS §3).
_ROUTED_BACK = ("the port the frame came in on: a routed frame is a new frame, which a switch may send back (a "
                "switched one it may not)")


#: Sentences opening with one of these words start with our wording, not with an object's name (never recased).
_OWN_WORDS = frozenset({"the", "macvtap", "port", "portgroup", "bridged", "crosses", "comes", "enters", "reaches"})


def _and(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + (", and " if any(", " in i for i in items) else " and ") + items[-1]


def _sentence(text: str) -> str:
    text = text.strip()
    if text.split(" ", 1)[0] in _OWN_WORDS:
        text = text[:1].upper() + text[1:]
    return text + ("" if text.endswith(".") else ".")


def _rule(check: FilterDetail | None) -> str:
    """How a firewall's rules judged the packet, as a clause made from the decision's data."""
    if check is None:
        return ""
    if check.on_state:
        return "the reply passes on the connection's state (stateful)"
    if check.rule is None:
        return f"no rule matches, so its default policy ({check.default_policy}) lets it through"
    return f"{check.rule_words} matches"


class Narrator:
    """Turns the events of one walk into sentences that name objects as a person does."""

    def __init__(self, net: Network) -> None:
        self.net = net
        self.entered: str | None = None   # the physical port the frame last entered the physical network on

    # --- names ------------------------------------------------------------------------------------------

    def who(self, point: Point) -> str:
        """The endpoint's name (its VM or host)."""
        return self.net.name_of(point.owner)

    def owner(self, point: Point) -> str:
        """Whose subnet: the VM, or its vNIC when it has several."""
        return point.name if len(self.net.points.get(point.owner, ())) > 1 else self.who(point)

    def itf(self, point: Point) -> str:
        """The interface's own name, without its owner (eth0)."""
        return point.name.split("/", 1)[-1]

    def sw(self, seg: Segment) -> str:
        """The switch a segment lives in, by name (an SR-IOV pNIC's embedded switch named by its pNIC)."""
        if self.embedded(seg):
            return f"{self.net.fabric.pnic_label(seg.object_id)}'s embedded switch"
        return self.net.name_of(seg.object_id)

    def embedded(self, seg: Segment) -> bool:
        """An SR-IOV pNIC's own switch (or a DirectPath guest's pNIC) rather than a virtual switch."""
        return not seg.physical and seg.object_id in self.net.pnic

    def host(self, seg: Segment) -> str:
        """The name of a segment's host."""
        return self.net.host_name(seg.host)

    def pnic(self, pnic_id: str) -> str:
        """A pNIC's name (its id when unknown)."""
        pnic = self.net.pnic.get(pnic_id)
        return pnic.name if pnic is not None else pnic_id

    def port(self, port_id: str) -> str:
        """A physical switch port in words: ``port Gi1/0/1 of core-sw1``."""
        return f"port {self.net.port[port_id].name} of {self.net.port_switch[port_id].name}"

    def kind(self, seg: Segment) -> SwitchKind | None:
        """The switch kind of a segment's virtual switch (None for a physical switch)."""
        sw = self.net.typed(seg.object_id, "switch")
        return sw.kind if sw is not None else None

    def vlan(self, seg: Segment) -> str:
        """A segment's VLAN in words ("VLAN none (untagged)" where switches tag)."""
        if seg.vlan is not None:
            return f"VLAN {seg.vlan}"
        return "VLAN none (untagged)" if self.kind(seg) in TAGGING_SWITCHES else ""

    def portgroup(self, point: Point) -> str | None:
        """The name of the portgroup an interface sits on, if any."""
        if point.portgroup and self.net.index.kind(point.portgroup) == "portgroup":
            return self.net.index.get(point.portgroup).name
        return None

    # --- the story ----------------------------------------------------------------------------------------

    def tell(self, events: list[Event]) -> list[str]:
        """The story of one direction: a sentence per event, in order."""
        out: list[str] = []
        shared: tuple[Point, Point] | None = None
        for i, event in enumerate(events):
            ahead = events[i + 1] if i + 1 < len(events) else None
            if isinstance(event, L3Choice):
                src, dst, inside, gateway = event.src, event.dst, event.inside, event.gateway
                if inside and isinstance(ahead, LegWalked) and ahead.leg.ok and not ahead.leg.blocked:
                    shared = (src, dst)  # told together with the delivery
                elif inside or (gateway is not None and gateway in src.subnet):
                    out.append(self.l3(src, dst, inside, gateway))  # (a missing or foreign gateway is the failure)
            elif isinstance(event, LegWalked):
                if event.leg.ok and not event.leg.blocked:
                    out += self.leg(event.leg, event.sender, event.receiver, shared)
                shared = None
            elif isinstance(event, Routed):
                out.append(self.route(event, ahead))
            elif isinstance(event, Received):
                device, point = event.device, event.point
                out.append(f"{point.ip} is {device.name}'s own address ({self.itf(point)}), so {device.name} "
                           f"receives it itself")
            elif isinstance(event, DfwChecked):
                point, check = event.point, event.check
                if check.permitted:
                    way = "on the way out" if check.at == "out" else "on the way in"
                    out.append(f"the NSX distributed firewall checks {point.name} {way}: {_rule(check)}")
        return [_sentence(s) for s in out]

    def l3(self, src: Point, dst: Point, inside: bool, gateway: Any = None) -> str:
        """The sender's L3 decision: deliver directly in its subnet, or send to its gateway (a router with routes:
        to its route's next hop)."""
        a, b, network = self.who(src), self.who(dst), src.subnet
        if inside:
            return (f"{b} ({dst.ip}) is inside {self.owner(src)}'s subnet {network}, so {a} sends it directly, "
                    f"without a router")
        if gateway != src.gateway:
            return (f"{b} ({dst.ip}) is outside {self.owner(src)}'s subnet {network}, so {a} sends it by its route "
                    f"table to the next hop {gateway}")
        return (f"{b} ({dst.ip}) is outside {self.owner(src)}'s subnet {network}, so {a} sends it to its gateway "
                f"{src.gateway}")

    # --- L2 legs ------------------------------------------------------------------------------------------

    def leg(self, leg: Any, sender: FromEndpoint | FromGateway, receiver: ToGateway | ToDestination,
            shared: tuple[Point, Point] | None) -> list[str]:
        """The sentences for one delivered L2 leg: what carried the frame and who took it."""
        net = self.net
        first, last = net.segments[leg.path[0]], net.segments[leg.path[-1]]
        pre, groups = self.movement(leg)
        if isinstance(sender, FromEndpoint):
            pre = self.trunk_guest(sender.point, first) + pre
        groups.append([c for c in [self.delivery(leg, receiver)] if c])
        moves = "; ".join(_and(g) for g in groups if g)
        one = len(leg.path) == 1
        if shared is not None:
            return pre + [self.shared(shared[0], shared[1], leg, moves)]
        if isinstance(receiver, ToGateway):
            device, point, address, is_first = receiver.device, receiver.point, receiver.address, receiver.first
            what = f"{'the gateway' if is_first else 'the next hop'} {address} is {device.name}'s"
            if device.kind is DeviceKind.DLR:
                return pre + [f"{what} interface {self.itf(point)}, and {tiers.title(self.net.topology, device)} has an instance in "
                              f"{self.host(last)}'s kernel, so the frame reaches it without leaving {self.host(last)}"]
            if device.kind is DeviceKind.ROUTER:
                where = ", outside the host" if not first.physical else ""
                if first.physical and one:
                    where = f", in the same VLAN {first.vlan} of {self.sw(first)}"
                return pre + [f"{what} interface {self.itf(point)}{where}" + (f": {moves}" if moves else "")]
            if device.kind is DeviceKind.NAT:
                return pre + [f"{what} address on {self.sw(last)} in {self.host(last)}: {self.sw(last)} hands it to "
                              f"the NAT service without leaving the host"]
            if one:
                return pre + [f"{what} leg {self.itf(point)}, in the same segment ({first.name}): {self.sw(first)} "
                              f"hands the frame to {device.name} without leaving {self.host(first)}"]
            return pre + [f"{what} leg {self.itf(point)} on {self.host(last)}: {moves}"]
        if one and first.physical:
            return pre + [f"{self.sw(first)} delivers it to {self.who(receiver.point)}{self.wire_port(receiver.point)} in "
                          f"VLAN {first.vlan}"]
        if one:
            dst = receiver.point
            pg = self.portgroup(dst)
            on = f" on portgroup {pg}" if pg else ""
            return pre + [f"{self.sw(first)} delivers it to {self.who(dst)}{on} without leaving {self.host(first)}"]
        return pre + [moves] if moves else pre

    def trunk_guest(self, point: Point, seg: Segment) -> list[str]:
        """A guest on a trunk portgroup chooses its VLAN itself (SEMANTICS 2)."""
        pg = self.net.typed(point.portgroup, "portgroup")
        sw = self.net.typed(seg.object_id, "switch")
        if pg is None or sw is None or pg.vlan.mode is not VlanMode.TRUNK:
            return []
        if seg.vlan is None:
            return [_sentence(f"{self.who(point)} sends untagged frames on trunk portgroup {pg.name}, so they join "
                              f"{sw.name}'s untagged (VLAN none) segment")]
        return [_sentence(f"{self.who(point)} tags its frames VLAN {seg.vlan} itself on trunk portgroup {pg.name}")]

    def shared(self, src: Point, dst: Point, leg: Any, moves: str) -> str:
        """The first leg of two endpoints in one subnet: why the frame stays in the host or leaves it."""
        net = self.net
        a, b = self.who(src), self.who(dst)
        sa, sb = net.segment_of(src), net.segment_of(dst)
        both = f"{a} and {b} share subnet {src.subnet}"
        if len(leg.path) == 1 and sa.physical:
            return f"{both} and sit in VLAN {sa.vlan} of {self.sw(sa)}: one segment, so {self.sw(sa)} delivers it"
        if len(leg.path) == 1 and self.embedded(sa):
            return (f"{both} and are SR-IOV virtual functions of {self.net.fabric.pnic_label(sa.object_id)} in "
                    f"{self.vlan(sa) or 'no VLAN'}: the NIC's embedded switch delivers it without leaving "
                    f"{self.host(sa)}, past the vSwitch and its portgroup security policy")
        if len(leg.path) == 1:
            pa, pb = self.portgroup(src), self.portgroup(dst)
            vlan = self.vlan(sa)
            if pa and pa == pb:
                where = f"portgroup {pa} of {self.sw(sa)}" + (f", {vlan}" if vlan else "")
            elif pa and pb:
                where = f"sit on portgroups {pa} and {pb} of {self.sw(sa)}" + (f", both {vlan}" if vlan else "")
            elif self.kind(sa) is SwitchKind.MACVTAP:
                where = f"sit on macvtap {self.sw(sa)} in bridge mode"
            else:
                where = f"sit on {self.sw(sa)}"
            return (f"{both} and {where}: one segment, so {self.sw(sa)} delivers it without leaving "
                    f"{self.host(sa)}")
        if sa.physical or sb.physical:
            return f"{both}: {moves}"
        if sa.pvlan >= 0 and sb.pvlan >= 0:
            return self.private_vlan(both, sa, sb, leg, moves)
        if not leg.pnics:
            return f"{both} but sit in different segments: {moves}"
        if sa.host != sb.host:
            if sa.object_id == sb.object_id and self.kind(sa) is SwitchKind.VDS:
                return (f"{both} and {self.vlan(sa)} of vDS {self.sw(sa)}, but run on {self.host(sa)} and "
                        f"{self.host(sb)}: a vDS has one instance per host, joined only through the physical "
                        f"network, so {moves}")
            if sa.object_id == sb.object_id and self.kind(sa) is SwitchKind.NSX_SEGMENT:
                return f"{both} on {self.sw(sa)} but run on {self.host(sa)} and {self.host(sb)}, so {moves}"
            return f"{both} but run on different hosts ({self.host(sa)}, {self.host(sb)}), so {moves}"
        if sa.object_id != sb.object_id:
            vlan = f" and VLAN {sa.vlan}" if sa.vlan is not None and sa.vlan == sb.vlan else ""
            return (f"{both}{vlan} but sit on different virtual switches ({self.sw(sa)}, {self.sw(sb)}); virtual "
                    f"switches never link to each other inside a host, so {moves}")
        return f"{both} on {self.sw(sa)}, but {moves}"

    def private_vlan(self, both: str, sa: Segment, sb: Segment, leg: Any, moves: str) -> str:
        """Two ports of one private VLAN that may talk: their roles, and how the frame crosses (forwarding-rules.md)."""
        ea, eb = self.net.pvlan_entry_of(sa), self.net.pvlan_entry_of(sb)
        assert ea is not None and eb is not None, "segments with a private VLAN role have a map entry"
        talk = (f"in private VLAN {ea.primary} of {self.net.pvlan_owner_name(sa)}, ports on the {pvlan_role_words(ea).split(' of ')[0]} "
                f"may talk to ports on the {pvlan_role_words(eb).split(' of ')[0]}")
        if not leg.pnics:
            return f"{both}; {talk}, so {self.sw(sa)} delivers it without leaving {self.host(sa)}: {moves}"
        ends = [self.host(x) if x.host is not None else x.name for x in (sa, sb)]
        return (f"{both}; {talk}, and each side sends on its own VLAN, which the physical network carries between "
                f"{ends[0]} and {ends[1]}, so {moves}")

    def movement(self, leg: Any) -> tuple[list[str], list[list[str]]]:
        """Sentences that come first (teaming) and the clauses of the leg's way, grouped (a group per stage)."""
        net = self.net
        path = leg.path
        pre: list[str] = []
        groups: list[list[str]] = [[]]
        phys: list[int] = [path[0]] if net.segments[path[0]].physical else []
        trunks: list[str] = []
        exit_port: str | None = None
        exit_host: str | None = None
        tunnel_from: str | None = None
        for x, y in zip(path, path[1:]):
            data = net.graph.edges[x, y]
            kind = data["kind"]
            sx, sy = net.segments[x], net.segments[y]
            if kind is EdgeKind.UPLINK and not sx.physical:
                pre += self.teaming(sx, data["pnic"])
                groups[-1].append(self.exit(sx, sy, data))
                exit_port, exit_host = data["port"], sx.host
                self.entered = data["port"]
                phys, trunks = [y], []
            elif kind is EdgeKind.UPLINK:
                pnic = self.pnic(data["pnic"])
                if data["port"] == exit_port:
                    if len({net.segments[p].object_id for p in phys}) > 1:
                        groups[-1].append(self.crossing(phys, trunks))
                    groups.append([f"{self.port(data['port'])} has hairpin on, so the switch reflects it back in "
                                   f"through {pnic}"])
                elif exit_port is None:
                    if len(phys) > 1:
                        groups[-1].append(self.crossing(phys, trunks))
                    groups[-1].append(f"{self.vlan(sx) or 'the frame'} reaches {self.host(sy)}'s {self.sw(sy)} "
                                      f"through {pnic}")
                else:
                    groups[-1].append(self.crossing(phys, trunks))
                    groups[-1].append(f"comes back in through {pnic}" if sy.host == exit_host
                                      else f"enters {self.host(sy)} through {pnic}")
                exit_port, exit_host, phys = None, None, []
            elif kind is EdgeKind.TRUNK:
                pa, pb = (net.port[p] for p in data["ports"])
                trunks.append(f"{pa.name}/{pb.name}")
                phys.append(y)
            elif kind is EdgeKind.OVERLAY:
                if sy.name.endswith("overlay"):
                    sw = net.typed(sx.object_id, "switch")
                    enc = (sw.encapsulation or Encapsulation.GENEVE).label
                    wire = net.transports.get(sx.host)
                    tag = f", tagged transport VLAN {wire.tag}" if wire is not None and wire.tag is not None else ""
                    groups[-1].append(f"{self.host(sx)} encapsulates the frame ({enc}) for NSX overlay segment "
                                      f"{self.sw(sx)} and sends it out of its transport pNIC "
                                      f"{self.pnic(data['pnic'])}{tag}")
                    tunnel_from = sx.host
                else:
                    groups[-1].append(f"{self.host(sy)} takes it in on {self.pnic(data['pnic'])} and decapsulates it"
                                      + teps.routed_clause(net.tep_net, tunnel_from, sy.host))
            elif kind is EdgeKind.BRIDGE:
                bridge = net.bridges[data["bridge"]]
                text = (f"bridged firewall {bridge.vm.name} joins {sx.name} and {sy.name} at L2 (promiscuous mode "
                        f"and forged transmits are accepted on its portgroups)")
                rule = _rule(leg.checks.get(data["bridge"]))
                groups.append([text + (f", and {rule}" if rule else "")])
                groups.append([])
            elif kind is EdgeKind.PATCH:
                groups[-1].append(f"the patch between {self.sw(sx)} and {self.sw(sy)} joins them")
            elif kind is EdgeKind.EMBEDDED:
                vf, other = (sx, sy) if self.embedded(sx) else (sy, sx)
                groups[-1].append(f"{self.sw(vf)} (SR-IOV) passes it between its virtual function and "
                                  f"{self.sw(other)}'s {self.vlan(other) or 'traffic'} inside the NIC, without the wire")
        if phys and exit_port is not None:
            who = "it " if groups[-1] and groups[-1][-1].startswith("macvtap") else ""
            text = f"{who}reaches {net.port_switch[exit_port].name} on port {net.port[exit_port].name}"
            rest = [p for p in phys if net.segments[p].object_id != net.port_switch[exit_port].id]
            groups[-1].append(text + f" in VLAN {net.segments[phys[0]].vlan}"
                              + (f", then {self.crossing(rest, trunks)}" if rest else ""))
        elif len({net.segments[p].object_id for p in phys}) > 1:
            groups[-1].append(self.crossing(phys, trunks))
        return pre, groups

    def crossing(self, phys: list[int], trunks: list[str]) -> str:
        """How a frame crossed the physical network: the switches and the trunks between them."""
        segs = [self.net.segments[p] for p in phys]
        names = list(dict.fromkeys(self.sw(s) for s in segs))
        vlans = {s.vlan for s in segs}
        if len(vlans) == 1:
            text = f"crosses {_and(names)} in VLAN {segs[0].vlan}"
        else:
            text = "crosses " + _and([f"{self.sw(s)} in VLAN {s.vlan}" for s in segs])
        return text + (f" over the trunk {', '.join(trunks)}" if trunks else "")

    def exit(self, sx: Segment, sy: Segment, data: dict) -> str:
        """The frame leaving a host: through which pNIC, in what role, with what tag."""
        net = self.net
        pnic = self.pnic(data["pnic"])
        sw = net.typed(sx.object_id, "switch")
        port = net.port[data["port"]]
        if sw is not None and sw.kind is SwitchKind.MACVTAP:
            mode = sw.macvtap_mode or MacvtapMode.VEPA
            label = "VEPA" if mode is MacvtapMode.VEPA else str(mode)
            return f"macvtap in {label} mode sends every frame out of {pnic}"
        if sw is not None and sw.kind is SwitchKind.RAW:
            return f"the raw AF_PACKET socket on {pnic} sends every frame out of it (no switch in the host)"
        if sw is not None and sw.kind is SwitchKind.NSX_SEGMENT:
            return f"the frame leaves {self.host(sx)} through {pnic}"
        role = f"{self.host(sx)}'s pNIC"
        tag = None
        if sw is not None:
            for up in net.fabric.teaming(sw, sx.host, sx.vlan):
                if up.pnic == data["pnic"]:
                    role = f"{sw.name}'s {'standby' if up.standby else 'active'} uplink"
                    tag = uplink_tag(sw, up, sx.vlan)
        if tag is None and sw is not None and sw.kind not in TEAMING_SWITCHES:
            how = ""
        elif tag is not None:
            how = f", tagged VLAN {tag}"
        elif port.mode is PortMode.ACCESS:
            how = f", untagged, into access port {port.name}'s VLAN {sy.vlan}"
        else:
            how = f", untagged, which trunk port {port.name} carries in its native VLAN {sy.vlan}"
        return f"the frame leaves {self.host(sx)} through {pnic}, {role}{how}"

    def teaming(self, seg: Segment, pnic_id: str) -> list[str]:
        """Why the uplink in use is not the first choice (an active one down: the standby takes over)."""
        net = self.net
        sw = net.typed(seg.object_id, "switch")
        if sw is None or sw.kind not in TEAMING_SWITCHES:
            return []
        order = net.fabric.teaming(sw, seg.host, seg.vlan)
        chosen = next((u for u in order if u.pnic == pnic_id), None)
        if chosen is None:
            return []
        at = order.index(chosen)

        def tried_first(i: int, u: Any) -> bool:
            return (not u.standby or i < at) if chosen.standby else (not u.standby and i < at)

        faults = [(u, fault) for i, u in enumerate(order)
                  if u is not chosen and tried_first(i, u) and (fault := net.fabric.uplink_fault(u)) is not None]
        if not faults:
            return []
        what = []
        for u, (kind, port) in faults:
            name = f"{self.pnic(u.pnic)} ({'standby' if u.standby else 'active'})"
            if kind is UplinkFault.PORT_DOWN and port is not None:
                what.append(f"{name} plugs into {net.fabric.port_label(port)}, which is down")
            else:
                what.append(f"{name} {kind.value}")
        role = "standby" if chosen.standby else "next active"
        return [_sentence(f"{_and(what)}, so {sw.name} uses its {role} uplink {self.pnic(pnic_id)}")]

    def delivery(self, leg: Any, receiver: ToGateway | ToDestination) -> str:
        """Who takes the frame at the end of a leg that moved."""
        net = self.net
        if len(leg.path) == 1:
            return ""
        last = net.segments[leg.path[-1]]
        if isinstance(receiver, ToDestination):
            point = receiver.point
            if last.physical:
                return f"{self.sw(last)} delivers it to {self.who(point)}{self.wire_port(point)}"
            pg = self.portgroup(point)
            return f"{'portgroup ' + pg if pg else self.sw(last)} delivers it to {self.who(point)}"
        device, point = receiver.device, receiver.point
        if device.kind in (DeviceKind.ROUTER, DeviceKind.DLR):
            return ""
        pg = self.portgroup(point)
        return f"{'portgroup ' + pg if pg else self.sw(last)} delivers it to {device.name}"

    def wire_port(self, point: Point) -> str:
        """`` on port X`` for an endpoint cabled to a physical switch port."""
        port = next((p for p in self.net.peers.get(point.nic, ()) if p in self.net.port), None)
        return f" on port {self.net.port[port].name}" if port else ""

    # --- routing -------------------------------------------------------------------------------------------

    def route(self, event: Routed, ahead: Event | None) -> str:
        """One gateway routing the packet: where, between what, to which next hop, and its rules' say."""
        net = self.net
        device, in_point, in_seg, out_point, out_seg = (event.device, event.in_point, event.in_seg, event.out_point,
                                                        event.out_seg)
        next_hop, check, prefix = event.next_hop, event.check, event.prefix
        a, b = net.segments[in_seg], net.segments[out_seg]
        host = self.host(a)
        between = self.between(a, b, in_point, out_point)
        if device.kind is DeviceKind.ROUTER:
            text = f"{device.name} routes it {between}"
            if isinstance(ahead, LegWalked) and ahead.leg.ok and len(ahead.leg.path) > 1:
                x, y = ahead.leg.path[:2]
                data = net.graph.edges[x, y]
                if net.segments[x].physical and data["kind"] is EdgeKind.UPLINK:
                    back = data["port"] == self.entered
                    text += (f"; {net.port_switch[data['port']].name} sends the routed frame {'back ' if back else ''}"
                             f"out of {net.port[data['port']].name}" + (f", {_ROUTED_BACK}" if back else ""))
        elif device.kind is DeviceKind.DLR:
            text = (f"{tiers.title(net.topology, device)} routes it {between} in {host}'s kernel "
                    f"({tiers.instances(net.topology, device)}), so routing does not leave {host}")
        elif device.kind is DeviceKind.NAT:
            if out_point is device.points[0]:
                text = f"{device.name} routes it into {out_point.subnet}"
            else:
                text = (f"{device.name} on {host} translates the source address to the host's own and sends it out "
                        f"on {host}'s network")
        elif not a.physical and not b.physical and a.host == b.host == device.host:
            legs = f"{self.vlan(a)} and {self.vlan(b)}" if a.vlan is not None and b.vlan is not None \
                and a.vlan != b.vlan else f"{in_point.subnet} and {out_point.subnet}"
            text = f"{tiers.title(net.topology, device)} has legs in {legs} on {host} and routes between them inside the host"
        else:
            text = f"{tiers.title(net.topology, device)} (a VM on {self.net.host_name(device.host)}) routes it {between}"
        if next_hop is not None:
            why = "its default route" if prefix is not None and prefix.prefixlen == 0 else f"its route to {prefix}"
            text += f", and passes it to the next hop {next_hop}" + (f" ({why})" if prefix is not None else "")
        rule = _rule(check)
        text += f"; {rule}" if rule else ""
        return text + (f"; {event.translated}, and replies come back through that translation"
                       if event.translated else "")

    def between(self, a: Segment, b: Segment, pa: Point, pb: Point) -> str:
        """What a route joins: two VLANs, else two subnets, else two switches."""
        if a.vlan is not None and b.vlan is not None and a.vlan != b.vlan:
            return f"from VLAN {a.vlan} to VLAN {b.vlan}"
        if pa.iface is not None and pb.iface is not None and pa.iface.network != pb.iface.network:
            return f"from {pa.iface.network} to {pb.iface.network}"
        return f"from {self.sw(a)} to {self.sw(b)}"


def asymmetry(net: Network, fwd: Any, rev: Any, one_way: list[str]) -> str:
    """Which direction misses the stateful firewall, and which way the other one goes instead."""
    parts = []
    for fid in one_way:
        name = net.name_of(fid)
        this, other, walk = ("request", "reply", rev) if fid in fwd.stateful else ("reply", "request", fwd)
        how = f"through {', '.join(walk.routed_by)}" if walk.routed_by else "directly at L2"
        parts.append(f"the {this} passes {name}, but the {other} goes {how}, without it")
    return _sentence("; ".join(parts))
