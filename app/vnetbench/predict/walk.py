"""The walk for one flow (SEMANTICS.md section 4) over a compiled ``Network``, one direction at a time.

L3 decision at the sender, L2 delivery over segments, gateways that route and apply their rules, the NSX DFW
at both vNICs. ``Walker.flow`` runs both directions and combines them into a ``Prediction``. The walk gathers
one pair's facts and keeps what only it needs (hops, reasons, typed steps, the largest packet, the estimate);
every decision on them is ``decide``'s, the same the matrix calls.
"""

from __future__ import annotations

import ipaddress
from dataclasses import replace

from ..model.forwarding import UplinkChooser

from . import decide
from .answer import AnsweringWalker, combine
from .decide import judges
from .dnat import Via
from .dnatwalk import DnatWalker
from .events import DfwChecked, FromEndpoint, FromGateway, L3Choice, LegWalked, ToDestination, ToGateway
from .network import Point
from .result import VERDICTS, Flow, Hop, HopKind, Prediction, UplinkOutcome
from .routing import MAX_ROUTED
from .rules import Party
from .routetables import routes_itself, sender_route
from .walkrecord import Leg, Walk, blocks, filtered, mtu_of

__all__ = ["MAX_ROUTED", "Leg", "Walk", "Walker", "behind_dfw", "combine"]


class Walker(DnatWalker, AnsweringWalker):
    """The walk of one flow: its endpoints, its directions, and their answer (``flow``)."""

    def party(self, point: Point) -> Party:
        """An interface as the rules see it: its address and every id that names it."""
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
        walk.note(DfwChecked(point, filtered(walk.steps, point.nic, point.name, "dfw", decision, where)))
        walk.latency += self.cal.latency("dfw_per_vnic") * max(count, 1) / 100
        if not decision.allowed:
            walk.blocked, walk.refused = True, decide.refuses(decision.action)
            walk.reasons.append(f"the NSX distributed firewall {blocks(decision)} it at {point.name}: {text}")
        return decision.allowed

    def choose_source(self, points: list[Point], dst_ip: ipaddress.IPv4Address | None) -> Point | None:
        """The interface a multi-homed sender uses towards ``dst_ip`` (``decide.source_rank``)."""
        if not points:
            return None
        ranks = []
        for p in points:
            usable = p.segment is not None and p.iface is not None
            near = usable and p.iface is not None and decide.inside_net(dst_ip, p.iface.network)
            ranks.append(decide.source_rank(usable, p.gateway is not None, near))
        return points[decide.first_of_lowest(ranks)]

    def direction(self, src_id: str, dst_id: str, proto: str | None, port: int | None,
                  only_dst: Point | None = None, reply: bool = False,
                  explain: bool = False) -> tuple[Walk, Point | None, Point | None]:
        """Walk src -> dst; tries each of dst's interfaces and keeps the first that delivers.

        A ``reply`` is the answer of a conversation: stateful firewalls (and a stateful DFW) pass it on the
        connection's state instead of their rules, stateless ones see an ephemeral port (no port)."""
        port = decide.reply_port(port, reply)
        dst_points = [only_dst] if only_dst is not None else self.own_points(dst_id, proto, port)
        if len(dst_points) <= 1:
            found = self._direction(src_id, dst_id, dst_points[0] if dst_points else None, proto, port, reply, explain)
        else:   # a person means the address nearest to the source: ``decide.destination_rank`` picks among all tries
            nets = [p.iface.network for p in self.net.points.get(src_id, [])
                    if p.iface is not None and p.segment is not None]
            results = [self._direction(src_id, dst_id, p, proto, port, reply, explain) for p in dst_points]
            ranks = [decide.destination_rank(r[0].delivered, p.segment is not None
                                             and any(decide.inside_net(p.ip, n) for n in nets))
                     for r, p in zip(results, dst_points)]
            found = results[decide.first_of_lowest(ranks)]
        if only_dst is not None or reply or found[0].delivered:
            return found
        return self.through_dnat(found, dst_id, port, self.party, lambda p, via: self._direction(
            src_id, dst_id, p, proto, port, False, explain, via))   # the ways a destination NAT publishes

    def _direction(self, src_id: str, dst_id: str, dst_point: Point | None, proto: str | None,
                   port: int | None, reply: bool = False, explain: bool = False,
                   via: Via | None = None) -> tuple[Walk, Point | None, Point | None]:
        net = self.net
        walk = Walk(src_id, dst_id, events=[] if explain else None, via=via)
        src_points = net.points.get(src_id, [])
        dst_name = net.name_of(dst_id)
        src_name = net.name_of(src_id)
        if dst_point is None or dst_point.iface is None:
            walk.reasons.append(f"{dst_name} has no IPv4 address to send to")
            return walk, None, dst_point
        dst_ip = dst_point.iface.ip if via is None else via.rule.address   # through a DNAT: its outside address
        src_point = self.choose_source(src_points, dst_ip)
        gateway = src_point.gateway if src_point is not None else None
        router = routes_itself(net, src_id)
        if router is not None and (by_route := sender_route(self, router, dst_ip)) is not None:
            src_point, gateway = by_route   # a router sends its own packets by its route table
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
        if via is not None:
            dst_party, port = Party(dst_ip, frozenset()), via.outside_port
        walk.hops.append(Hop(HopKind.VNIC if src_point.nic_type else HopKind.HOST_NIC, src_point.nic, src_point.name,
                             str(src_point.iface)))
        if src_point.portgroup and net.index.kind(src_point.portgroup) == "portgroup":
            walk.hops.append(Hop(HopKind.PORTGROUP, src_point.portgroup, net.index.get(src_point.portgroup).name))
        for point in (src_point, dst_point):
            if point.nic_type:
                walk.capacity.append(self._vnic_capacity(point))
        walk.sender = self._sender(src_point)
        walk.limits += mtu_of(src_point)
        dfw_on = judges(bool(net.dfw_active), bool(self.dfw.stateful), reply)
        dfw_here = dfw_on and behind_dfw(src_point)
        if dfw_here and not self.dfw_check(walk, src_point, src_party, dst_party, proto, port, "out"):
            return walk, src_point, dst_point
        dst_seg = net.segment_of(dst_point)
        if dst_seg.object_id in self._nat_inside and src_point.segment != dst_point.segment and via is None:
            walk.reasons.append(f"{dst_name} sits behind {self._nat_inside[dst_seg.object_id]}, which hides it "
                                f"from outside (no port forward publishes it)")
            return walk, src_point, dst_point

        seg, network, dst_seg_id = src_point.segment, src_point.iface.network, dst_point.segment
        assert seg is not None and dst_seg_id is not None   # a point on no segment has a problem, told above
        near = decide.inside_net(dst_ip, network)
        walk.note(L3Choice(src_point, dst_point if via is None else via.point, near, gateway))
        sender: FromEndpoint | FromGateway = FromEndpoint(src_point)
        if not near:
            if gateway is None:
                walk.reasons.append(f"{dst_name} ({dst_ip}) is outside {src_point.name}'s subnet {network} and "
                                    f"{src_point.name} has no default gateway")
                return walk, src_point, dst_point
            if not decide.inside_net(gateway, network):
                walk.reasons.append(f"{src_point.name}'s gateway {gateway} is outside its subnet "
                                    f"{network}, so it has no route to {dst_ip}")
                return walk, src_point, dst_point
            entry = self.gateway_entry(walk, seg, gateway)
            if entry is None:
                return walk, src_point, dst_point
            device, point, in_seg = entry
            leg = self.leg(seg, in_seg, src_party, dst_party, proto, port, reply)
            walk.add_leg(leg)
            walk.note(LegWalked(leg, sender, ToGateway(device, point, gateway, True)))
            if leg.blocked or not leg.ok:
                walk.blocked, walk.refused = leg.blocked, leg.refused
                walk.reasons += self._untagged_on_trunk(src_point, in_seg) + [
                    f"{leg.reason} (on the way to gateway {device.name} {gateway})"]
                return walk, src_point, dst_point
            seg = self.route(walk, device, point, in_seg, dst_ip, src_party, dst_party, proto, port, reply)
            if seg is None:
                return walk, src_point, dst_point
            sender = FromGateway()
        if via is not None:   # on the outside address's network: to the VM that translates, and on from it
            seg = self.into_dnat(walk, seg, sender, walk.source or src_party, proto, reply)
            if seg is None:
                return walk, src_point, dst_point
            dst_party, port, sender = via.party, via.port, FromGateway()
        leg = self.leg(seg, dst_seg_id, src_party, dst_party, proto, port, reply)
        walk.add_leg(leg)
        walk.note(LegWalked(leg, sender, ToDestination(dst_point)))
        if leg.blocked or not leg.ok:
            walk.blocked, walk.refused = leg.blocked, leg.refused
            walk.reasons += (self._untagged_on_trunk(src_point, dst_point.segment) if isinstance(sender, FromEndpoint) else []) + \
                self._untagged_on_trunk(dst_point, seg) + [leg.reason]
            return walk, src_point, dst_point
        if dfw_on and behind_dfw(dst_point) and \
                not self.dfw_check(walk, dst_point, src_party, dst_party, proto, port, "in"):
            return walk, src_point, dst_point
        if dst_point.portgroup and net.index.kind(dst_point.portgroup) == "portgroup":
            walk.hops.append(Hop(HopKind.PORTGROUP, dst_point.portgroup, net.index.get(dst_point.portgroup).name))
        walk.hops.append(Hop(HopKind.VNIC if dst_point.nic_type else HopKind.HOST_NIC, dst_point.nic, dst_point.name,
                             str(dst_point.iface)))
        walk.limits += mtu_of(dst_point)
        walk.delivered = True
        return walk, src_point, dst_point

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


def behind_dfw(point: Point) -> bool:
    """Whether the NSX DFW filters at this interface (``decide.filtered_by_dfw``)."""
    return decide.filtered_by_dfw(point.nic_type)
