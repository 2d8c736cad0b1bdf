"""The walk's side of destination NAT (``dnat``): the published ways it tries when the direct way does not
deliver, and the last stretch of such a way, onto the outside address of the VM that translates."""

from __future__ import annotations

from collections.abc import Callable

from .dnat import Via, taken, ways
from .events import FromEndpoint, FromGateway, LegWalked, ToGateway
from .network import Point
from .routing import RoutingWalker
from .rules import Party
from .walkrecord import Walk

#: A direction's answer: the walk, and the source and destination interfaces it chose.
Answer = tuple[Walk, Point | None, Point | None]


class DnatWalker(RoutingWalker):
    """Ways to a destination through the DNAT rules that publish it."""

    def through_dnat(self, direct: Answer, dst_id: str, port: int | None, party: Callable[[Point], Party],
                     walk_to: Callable[[Point, Via], Answer]) -> Answer:
        """The first published way to ``dst_id`` (``walk_to`` walks one) that delivers; else the first that a
        firewall blocks once translated (where the direct way is not blocked: the sender meets that firewall);
        else the ``direct`` answer, told why the first published way fails too."""
        tried: Answer | None = None
        for p in self.net.points.get(dst_id, []):
            if p.ip is None:
                continue
            for via in ways(self.net, p, party(p), port):
                found = walk_to(p, via)
                if found[0].delivered:
                    return found
                if tried is None or (found[0].blocked and via.done and not tried[0].blocked):
                    tried = found
        if tried is not None and tried[0].blocked and tried[0].via is not None and tried[0].via.done \
                and not direct[0].blocked:
            via = tried[0].via
            tried[0].reasons.insert(len(tried[0].reasons) - 1, via.rule.describe(self.net.name_of(via.device), port))
            return tried
        if tried is not None and tried[0].reasons and tried[0].via is not None:
            via = tried[0].via
            direct[0].reasons.append(f"the way in through {self.net.name_of(via.device)}'s destination NAT "
                                     f"({via.rule.outside(port)}) fails too: {tried[0].reasons[-1]}")
        return direct

    def own_points(self, dst_id: str, proto: str | None, port: int | None) -> list[Point]:
        """The destination's interfaces a flow reaches it at: not an address its own DNAT rules forward on
        for this flow (all of them when every one is)."""
        points = self.net.points.get(dst_id, [])
        return [p for p in points if not taken(self.net, p, proto, port)] or points

    def into_dnat(self, walk: Walk, seg: int, sender: FromEndpoint | FromGateway, src: Party, proto: str | None,
                  reply: bool) -> int | None:
        """From ``seg``, where the packet to the outside address of ``walk.via`` travels, to that VM, which
        translates and routes it on: the segment it leaves on towards the inside address, or None."""
        via = walk.via
        assert via is not None
        if via.done:      # the translating VM was a gateway on the way
            return seg
        device = next(d for d in self.net.devices if d.id == via.device)
        point, address = via.point, via.rule.address
        assert point.segment is not None   # ``dnat.ways`` takes only such points
        outside = Party(address, frozenset())
        leg = self.leg(seg, point.segment, src, outside, proto, via.outside_port, reply)
        walk.add_leg(leg)
        walk.note(LegWalked(leg, sender, ToGateway(device, point, address, isinstance(sender, FromEndpoint))))
        if leg.blocked or not leg.ok:
            walk.blocked, walk.refused = leg.blocked, leg.refused
            walk.reasons.append(f"{leg.reason} (on the way to {device.name} {address})")
            return None
        return self.route(walk, device, point, point.segment, address, src, outside, proto, via.outside_port, reply)
