"""The matrix walks the routed way on from a gateway once for every start reaching it with the same route
keys, then joins that to what each start's way met before (``routes.RoutedWay._suffix``). Where the way on
meets a gateway the start's way already passed, or would pass more gateways than the loop guard allows, the
join would be wrong and the way is walked for that start itself: these designs make both happen, from many
starts, and the matrix must still answer every pair like the walk."""

from __future__ import annotations

import pytest
from builders import Design, Verdict, VmRole

from vnetbench.model.objects import Action, Proto, Route, Rule
from vnetbench.predict import Engine


def _ring(routers: int, firewall: int | None) -> Design:
    """``routers`` routers in a ring on one transit VLAN, router i holding 10.i.0.0/24 with a VM in it and
    sending the rest of 10.0.0.0/8 to the next one (so every way runs around the ring, and a way to an
    address nobody holds runs round until the loop guard stops it); router ``firewall`` is a stateful
    firewall refusing SSH to the next router's subnet. One more VM sits on a VLAN no router holds."""
    d = Design()
    h = d.host("esx1")
    sw = d.switch(h, "vSwitch0")
    transit = d.pg(sw, "T", 99)
    for i in range(routers):
        lan = d.pg(sw, f"L{i}", 10 + i)
        d.vm(f"a{i}", h, lan, f"10.{i}.0.10/24", f"10.{i}.0.1")
        role = VmRole.FIREWALL if i == firewall else VmRole.ROUTER
        r = d.fw(f"r{i}", h, [(lan, f"10.{i}.0.1/24"), (transit, f"10.200.0.{i + 1}/24")], role=role,
                 stateful=i == firewall)
        r.forwarding.routes = [Route("10.0.0.0/8", f"10.200.0.{(i + 1) % routers + 1}")]
        if i == firewall:
            r.forwarding.rules = [Rule(Action.DENY, "any", f"10.{(i + 1) % routers}.0.0/24", Proto.TCP, 22)]
    d.vm("lost", h, d.pg(sw, "X", 98), "10.77.0.10/24", "10.77.0.1")
    return d


@pytest.mark.parametrize(("routers", "firewall"), [(4, None), (4, 2), (11, None), (11, 5)])
def test_ways_round_a_ring_of_routers_answer_like_the_walk(routers: int, firewall: int | None):
    d = _ring(routers, firewall)
    engine = Engine(d.t)
    seen = set()
    for src, dst, verdict in engine.matrix().rows():
        walked = engine.predict(src, dst).verdict
        assert verdict is walked, (src, dst)
        seen.add(walked)
    assert Verdict.IN_HOST_ROUTED in seen and Verdict.UNREACHABLE in seen
    if routers > 8 and firewall is None:   # round a ring longer than the loop guard: too many gateways one way
        assert engine.predict("a0", "a1").verdict is Verdict.UNREACHABLE      # the reply: 10 gateways
        assert engine.predict("a0", "a4").verdict is Verdict.IN_HOST_ROUTED   # 5 there, 7 back
