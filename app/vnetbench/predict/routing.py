"""Routing in the walk: from a gateway to the last one that sends the packet onto the target's network, through
routers, firewall VMs, DLRs and hosted NAT, each applying its rules."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from ..model.objects import Action
from . import decide, dnat, snat
from .decide import judges
from .events import FromGateway, LegWalked, Received, Routed, ToGateway
from .kinds import DeviceKind
from .legs import LegWalker
from .network import Device, Point
from .result import Hop, HopKind, RouteDetail, Step, StepKind
from .rules import Party
from .routetables import unusable_route
from .walkrecord import Walk, blocks, filtered, mtu_of

if TYPE_CHECKING:   # the walk of one pair never loads numpy
    import numpy as np

#: A loop guard: no sane design routes a packet through more gateways than this.
MAX_ROUTED = 8


class RoutingWalker(LegWalker):
    """The routed part of one direction."""

    @property
    def _nat_inside(self) -> dict[str, str]:
        """Hosted NAT switches (their device id is the switch id) by the NAT service's name."""
        return {d.id: d.name for d in self.net.devices if d.kind is DeviceKind.NAT}

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
        in_seg = net.dlr_segment(point, host) if device.kind is DeviceKind.DLR else point.segment
        if in_seg is None:
            walk.reasons.append(point.problem or (f"{device.name} has no instance on "
                                                  f"{net.host_name(host) if host else 'the physical network'}"))
            return None
        return device, point, in_seg

    def route(self, walk: Walk, device: Device, point: Point, in_seg: int, dst_ip: ipaddress.IPv4Address,
              src: Party, dst: Party, proto: str | None, port: int | None, reply: bool = False) -> int | None:
        """From arriving at ``device`` until the last gateway sends the packet onto the target's network:
        the segment it leaves on, or None (reasons and verdict recorded in ``walk``)."""
        seen: set[str] = set()
        for _ in range(MAX_ROUTED):
            if device.id in seen:
                walk.reasons.append(f"the packet to {dst_ip} comes back to {device.name}: a routing loop")
                return None
            seen.add(device.id)
            step = self.hop(walk, device, point, in_seg, dst_ip, src, dst, proto, port, reply)
            if not isinstance(step, tuple):
                return step
            device, point, in_seg = step
            src = walk.source or src      # a source NAT on the way: later gateways see the translated source
            if walk.via is not None and walk.via.done:   # a destination NAT: they see the inside destination
                dst_ip, dst, port = walk.via.rule.to, walk.via.party, walk.via.port
        walk.reasons.append(f"the packet to {dst_ip} passes more than {MAX_ROUTED} gateways: a routing loop")
        return None

    def hop(self, walk: Walk, device: Device, point: Point, in_seg: int, dst_ip: ipaddress.IPv4Address,
            src: Party, dst: Party, proto: str | None, port: int | None,
            reply: bool = False) -> int | tuple[Device, Point, int] | None:
        """One gateway's part of ``route``: the segment it sends the packet onto the target's network by, None
        when the packet goes no further, or the next gateway (device, point, segment), the leg to it walked.
        It reads ``dst_ip`` only through the device's own addresses and ``way`` (except at a hosted NAT):
        ``routes.RoutedWay`` shares one hop among the destinations it routes alike."""
        net = self.net
        host = net.segments[in_seg].host
        own = next((p for p in device.points if p.ip == dst_ip and p.segment is not None), None)
        if own is not None and walk.via is not None and not walk.via.done and walk.via.device == device.id:
            inside = dnat.enter(walk, device, proto)   # a destination NAT: routed on to the inside address
            if inside is None:
                return None
            (dst_ip, dst, port), own = inside, None
        if own is not None and device.kind.appliance:
            walk.steps.append(Step(StepKind.ROUTE, device.id, device.name,
                                   RouteDetail(point.nic, own.nic, received=True)))
            walk.note(Received(device, own))
            return own.segment  # addressed to the gateway itself: received, not forwarded
        kind = device.kind.role
        walk.hops += [Hop(HopKind.ROUTER_INTERFACE, point.nic, point.name, str(point.iface)),
                      Hop(HopKind(kind), device.id, device.name, "routes")]
        walk.limits += mtu_of(point)
        walk.routed_by.append(device.name)
        walk.latency += self.cal.latency(kind)
        if device.kind.appliance and device.host is not None:
            walk.capacity.append((self._forwarding_capacity(device.nic_types), device.name, None, device.id))
        stateful = device.stateful and device.kind.appliance
        if stateful:
            walk.stateful.append(device.id)
        check = None
        active = bool(device.rules) or device.default_policy is not Action.ALLOW
        if judges(active, stateful, reply):
            decision = self.judge(device.id, device.rules, device.default_policy, src, dst, proto, port)
            walk.rules.append(f"{device.name}: {decision.which}")
            check = filtered(walk.steps, device.id, device.name, "routed", decision)
            if not decision.allowed:
                walk.blocked, walk.refused = True, decide.refuses(decision.action)
                walk.reasons.append(f"{device.name} {blocks(decision)} it ({decision.which})")
                return None
        elif not judges(True, stateful, reply):
            check = filtered(walk.steps, device.id, device.name, "routed", None)
        out = self._out(walk, device, host, dst_ip)
        if out is None:
            return None
        seg, network, next_hop, out_point, prefix = out
        walk.steps.append(Step(StepKind.ROUTE, device.id, device.name, RouteDetail(
            point.nic, out_point.nic, str(next_hop) if next_hop is not None else None,
            str(prefix) if prefix is not None else None)))
        translated = None if reply else snat.translate(net, device, src.ip, out_point)
        if translated is not None:   # replies return through the translation (``_mirror``)
            walk.nat = True
            walk.hops.append(Hop(HopKind.NAT, device.id, device.name, f"translates the source to {translated.to}"))
            src = walk.source = Party(translated.to, frozenset())
        walk.note(Routed(device, point, in_seg, out_point, seg, next_hop, check, prefix, "; ".join(
            w for w in (dnat.words(walk, device), "" if translated is None else translated.describe(device.name)) if w)))
        if next_hop is None:
            return seg
        entry = self.gateway_entry(walk, seg, next_hop)
        if entry is None:
            return None
        device, point, in_seg = entry
        leg = self.leg(seg, in_seg, src, dst, proto, port, reply)
        walk.add_leg(leg)
        walk.note(LegWalked(leg, FromGateway(), ToGateway(device, point, next_hop, False)))
        if leg.blocked or not leg.ok:
            walk.blocked, walk.refused = leg.blocked, leg.refused
            walk.reasons.append(f"{leg.reason} (on the way to gateway {device.name} {next_hop})")
            return None
        return device, point, in_seg

    def _out(self, walk: Walk, device: Device, host: str | None,
             dst_ip: ipaddress.IPv4Address) -> tuple[int, ipaddress.IPv4Network | None, ipaddress.IPv4Address | None,
                                                     Point, ipaddress.IPv4Network | None] | None:
        """Where ``device`` sends the packet: (segment, its network, next hop or None, the interface, the
        static route that chose it or None)."""
        if device.kind is DeviceKind.NAT:
            walk.nat = True
            inside, outside = device.points[0], device.points[1]
            if inside.iface is not None and inside.segment is not None and decide.inside_net(dst_ip, inside.iface.network):
                return inside.segment, inside.iface.network, None, inside, None
            if outside.segment is None:
                walk.reasons.append(outside.problem or f"{device.name} has no way out of the host")
                return None
            walk.hops.append(Hop(HopKind.NAT, device.id, device.name, "translates the source address"))
            found = self._nat_out(walk, device, outside, dst_ip)
            return (*found, outside, None) if found is not None else None
        table = self.route_table(device)
        i, r = self.way(device, host, int(dst_ip))
        if i >= 0:
            p, seg = device.points[i], self._segment_on(device, device.points[i], host)
            assert seg is not None and p.iface is not None   # the lookup answers only such interfaces
            walk.hops.append(Hop(HopKind.ROUTER_INTERFACE, p.nic, p.name, str(p.iface)))
            walk.limits += mtu_of(p)
            return (seg, p.iface.network, table.routes[r][1] if r >= 0 else None, p,
                    table.routes[r][0] if r >= 0 else None)
        if r >= 0:
            prefix, via = table.routes[r]
            walk.reasons.append(unusable_route(device, prefix, via, table.pinned[r]))
            return None
        walk.reasons.append(f"{device.name} has no interface in {dst_ip}'s network and no route to it")
        return None

    def way(self, device: Device, host: str | None, dst: int) -> tuple[int, int]:
        """(interface, static route or -1) a router (not a hosted NAT) on ``host`` sends a packet to ``dst``
        by: ``RouteTable.lookup`` over the interfaces it has there."""
        return self.route_table(device).lookup(
            dst, lambda i: self._segment_on(device, device.points[i], host) is not None)

    def ways(self, device: Device, host: str | None, dsts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``way`` for an array of IPv4 addresses at once (the matrix's route keys): ``RouteTable.lookup_many``."""
        return self.route_table(device).lookup_many(
            dsts, lambda i: self._segment_on(device, device.points[i], host) is not None)

    def _segment_on(self, device: Device, p: Point, host: str | None) -> int | None:
        """The segment a device's interface is on, on ``host`` (a DLR has an instance per host)."""
        return self.net.dlr_segment(p, host) if device.kind is DeviceKind.DLR else p.segment

    def route_table(self, device: Device) -> decide.RouteTable:
        """The device's longest-prefix table (built once per compiled network)."""
        table = self._route_tables.get(device.id)
        if table is None:
            table = self._route_tables[device.id] = decide.RouteTable(
                [p.iface.network if p.iface is not None else None for p in device.points], device.routes,
                device.route_out, device.route_keys)
        return table

    def _nat_out(self, walk: Walk, device: Device, outside: Point,
                 dst_ip: ipaddress.IPv4Address) -> tuple[int, ipaddress.IPv4Network | None,
                                                         ipaddress.IPv4Address | None] | None:
        """The host sends the translated packet on its own LAN: directly when the target is there, else to its
        default gateway (the host OS's, when the design gives its address; else a router on that LAN)."""
        net = self.net
        seg = outside.segment
        assert seg is not None   # (_out said why there is no way out)
        if outside.gateway is not None and not (outside.iface is not None and decide.inside_net(dst_ip, outside.iface.network)):
            return seg, outside.iface.network if outside.iface else None, outside.gateway
        for pts in net.points.values():
            for p in pts:
                if p.iface is not None and p.ip == dst_ip and p.segment is not None \
                        and self.l2_code(seg, p.segment):
                    return seg, p.iface.network, None
        for dev in net.devices:
            if dev.kind is not DeviceKind.ROUTER:
                continue
            for p in dev.points:
                if p.segment is not None and p.iface is not None and self.l2_code(seg, p.segment):
                    return seg, p.iface.network, p.iface.ip
        walk.reasons.append(f"{dst_ip} is neither on {device.name}'s host network nor behind a router there")
        return None
