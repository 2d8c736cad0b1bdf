"""A walk turned into an answer: each direction's ``Trace`` (estimate, largest packet, reasons), and both
directions combined into the flow's ``Prediction``."""

from __future__ import annotations

from dataclasses import replace

from ..model.families import IPV6_MIN_MTU
from . import decide
from .explain import Narrator, asymmetry
from .network import Network
from .result import VERDICTS, Estimate, Flow, Prediction, Trace
from .walkbase import WalkerBase
from .walkrecord import Walk


class AnsweringWalker(WalkerBase):
    """Traces from walks, and the mirrored walk of a NATed flow's replies."""

    def trace(self, walk: Walk) -> Trace:
        """One direction's answer: verdict, hops, reasons, the estimate and the largest packet."""
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
        if mtu is not None and self._ipv6(walk.src) and (walk.routed_by or mtu < IPV6_MIN_MTU):
            reasons.append(ipv6_packet_note(mtu, limit))
        return Trace(walk.src, walk.dst, verdict, tuple(walk.hops), tuple(walk.pnics), tuple(walk.routed_by),
                     tuple(walk.rules), tuple(walk.segments), tuple(reasons), estimate, mtu,
                     limit,
                     tuple(walk.steps), walk.blocked and walk.refused, entry(walk))

    def _ipv6(self, endpoint: str) -> bool:
        """Whether the walk is an IPv6 one (the design projected onto IPv6: ``model.families``)."""
        return any(p.ip is not None and p.ip.version == 6 for p in self.net.points.get(endpoint, ()))

    def _explain(self, walk: Walk) -> str:
        where = "inside the host" if not walk.pnics else f"through {len(walk.pnics)} pNIC crossing(s)"
        if walk.routed_by:
            return f"routed by {', '.join(walk.routed_by)}, delivered {where}"
        if not walk.pnics and len(walk.segments) <= 1:
            return f"both sit on {walk.segments[0] if walk.segments else 'one segment'}: one virtual switch delivers it"
        return f"delivered at L2 {where}"

    def _mirror(self, walk: Walk) -> Walk:
        """Replies to a NATed flow return through the NAT's connection tracking, along the same path."""
        rev = Walk(walk.dst, walk.src, hops=walk.hops[::-1], pnics=walk.pnics[::-1], routed_by=walk.routed_by[::-1],
                   rules=list(walk.rules), segments=walk.segments[::-1], stateful=list(walk.stateful),
                   capacity=list(walk.capacity), latency=walk.latency, delivered=True, nat=True, steps=walk.steps[::-1],
                   events=[] if walk.events is not None else None)
        rev.reasons.append("replies return through the NAT's connection tracking")
        return rev


def entry(walk: Walk) -> tuple[str, int | None] | None:
    """Where the sender sent a flow that a destination NAT translated: its outside address and port."""
    via = walk.via
    return (str(via.rule.address), via.outside_port) if via is not None and via.done else None


def combine(forward: Trace, reverse: Trace, fwd: Walk, rev: Walk, flow: Flow, net: Network) -> Prediction:
    """``decided``, and for a blocked flow how it fails as the sender sees it (``decide.symptom``), told
    after the reason that blocks it."""
    prediction = decided(forward, reverse, fwd, rev, flow, net)
    words = decide.symptom_of(VERDICTS.index(prediction.verdict), prediction.refused, flow.proto)
    if words is None or not prediction.reasons:
        return prediction
    *story, last = prediction.reasons
    return replace(prediction, reasons=(*story, f"{last.rstrip('.')}: {words}."))


def decided(forward: Trace, reverse: Trace, fwd: Walk, rev: Walk, flow: Flow, net: Network) -> Prediction:
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
        asym: tuple[str, ...] = (f"stateful firewall {names} sees only one direction of the conversation (asymmetric "
                f"return path), so it drops it",)
        if fwd.events is not None:
            asym = (asymmetry(net, fwd, rev, one_way), asym[0][:1].upper() + asym[0][1:] + ".")
        return Prediction(forward, reverse, verdict, story + asym, flow)
    return Prediction(forward, reverse, verdict, forward.reasons, flow)


def ipv6_packet_note(mtu: int, where: str) -> str:
    """What the largest packet means for IPv6: routers never fragment, and no link carries less than 1280."""
    if mtu < IPV6_MIN_MTU:
        return (f"The path takes only {mtu} bytes at {where}, below IPv6's minimum link MTU of {IPV6_MIN_MTU}: "
                f"IPv6 does not work across it; raise that MTU to at least {IPV6_MIN_MTU}.")
    return (f"IPv6 routers never fragment: a packet over {mtu} bytes is dropped and its sender told by an ICMPv6 "
            "Packet Too Big, so path MTU discovery must get through.")
