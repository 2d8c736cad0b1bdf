"""Invalid designs get answers with reasons, never a crash."""

from __future__ import annotations

import random

from hypothesis import given
from model_strategies import topologies
from random_designs import random_design

from vnetbench.model.objects import Link, Route, Uplink
from vnetbench.predict import Engine, Verdict


def _answer_everything(topology) -> None:
    engine = Engine(topology)
    matrix = engine.matrix()
    for src, dst, verdict in matrix.rows():
        p = engine.predict(src, dst)
        assert p.verdict is verdict
        if not p.verdict.delivered:
            assert p.reasons and all(isinstance(r, str) and r for r in p.reasons)


@given(topologies())
def test_arbitrary_topologies_never_crash(topology):
    _answer_everything(topology)


def _corrupt(seed: int):
    d = random_design(seed)
    t, rnd = d.t, random.Random(seed)
    nics = [n for vm in t.vms for n in vm.vnics]
    pgs = [pg for sw in t.switches for pg in sw.portgroups]
    ports = [p for ps in t.physical_switches for p in ps.ports]
    for _ in range(4):
        what = rnd.randrange(9)
        if what == 0 and nics:
            rnd.choice(nics).network = "nowhere"
        elif what == 1 and pgs:
            rnd.choice(pgs).vlan = rnd.choice([5000, "trunk 30-10", "banana", -1, 4095])
        elif what == 2 and nics:
            rnd.choice(nics).ip = rnd.choice(["10.0.0.300/24", "fe80::1/64", "", None, "10.1.1.1/40"])
        elif what == 3 and nics:
            rnd.choice(nics).gateway = rnd.choice(["x", "10.9.9.9", "::1"])
        elif what == 4 and t.switches:
            a, b = rnd.choice(t.switches), rnd.choice(t.switches)
            t.links.append(Link(f"bad{seed}", a.id, b.id))  # vSwitch to vSwitch: invalid on ESXi
        elif what == 5 and ports:
            rnd.choice(ports).allowed = rnd.choice(["nonsense", "", "5-1"])
        elif what == 6 and t.vms:
            rnd.choice(t.vms).host = "ghost-host"
        elif what == 7 and t.physical_routers:
            t.physical_routers[0].routes.append(Route("0.0.0.0/0", "10.99.99.99"))
        elif what == 8 and t.switches:
            rnd.choice(t.switches).uplinks.insert(0, Uplink("no-such-pnic"))
    return t


def test_corrupted_designs_answer_with_reasons():
    seen = set()
    for seed in range(80):
        t = _corrupt(seed)
        _answer_everything(t)
        engine = Engine(t)
        seen |= {v for _, _, v in engine.matrix().rows()}
    assert Verdict.UNREACHABLE in seen


def test_routing_loop_is_reported_not_followed_forever():
    from builders import esx_pair
    d, (h1, _), (s1, _), ps = esx_pair(vlans=(10, 20))
    trunk = d.port(ps, "r", trunk=True)
    d.router("r1", [(trunk, "10.0.10.1/24", 10)], routes=[("10.5.0.0/16", "10.0.10.2")])
    d.router("r2", [(trunk, "10.0.10.2/24", 10)], routes=[("10.5.0.0/16", "10.0.10.1")])
    d.vm("a", h1, s1.portgroups[0], "10.0.10.7/24", "10.0.10.1")
    d.phost("far", d.port(ps, "far", vlan=20), "10.5.0.9/16")
    p = d.predict("a", "far")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("loop" in r for r in p.reasons)
