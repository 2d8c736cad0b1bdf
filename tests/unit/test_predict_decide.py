"""The decision core (``predict.decide``): its rules, scalar and array alike, and that the walk and the matrix
cannot contradict each other on an asymmetric conversation through a firewall (issue 22)."""

from __future__ import annotations

import ast
import ipaddress
import itertools
import random
from pathlib import Path

import numpy as np
import pytest
from builders import Action, DfwRule, Design, Verdict, esx_pair

from vnetbench.model.objects import VmRole
from vnetbench.predict import Engine, decide
from vnetbench.predict.result import VERDICTS, FilterDetail, Prediction, RouteDetail, StepKind

PREDICT = Path(decide.__file__).parent


def _asymmetric(stateful: bool) -> Design:
    """a -> b through firewall fw1; b -> a through router r1 (off the host and back)."""
    d, (h1, _), (s1, _), ps = esx_pair(vlans=(10, 20))
    pg10, pg20 = s1.portgroups
    d.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")], stateful=stateful)
    trunk = d.port(ps, "r", trunk=True)
    d.router("r1", [(trunk, "10.0.10.1/24", 10), (trunk, "10.0.20.1/24", 20)])
    d.vm("a", h1, pg10, "10.0.10.5/24", "10.0.10.254")
    d.vm("b", h1, pg20, "10.0.20.5/24", "10.0.20.1")
    return d


def _ids(d: Design, *names: str) -> list[str]:
    by_name = {vm.name: vm.id for vm in d.t.vms}
    return [by_name[n] for n in names]


@pytest.mark.parametrize("stateful", [True, False])
def test_asymmetric_conversation_through_a_firewall_gets_one_verdict_everywhere(stateful: bool):
    """The two contradictions of issue 22: the walk saying unreachable instead of blocked, and the matrix not
    blocking at all. Both engines now take the verdict from ``decide.combine``; this pins what it must be."""
    d = _asymmetric(stateful)
    a, b = _ids(d, "a", "b")
    engine = Engine(d.t)
    matrix = engine.matrix()
    expected = Verdict.BLOCKED if stateful else Verdict.ROUTED_VIA_PHYSICAL
    for src, dst in ((a, b), (b, a)):
        walked = engine.predict(src, dst)
        assert walked.verdict is expected
        assert matrix.verdict(src, dst) is expected
        assert matrix.prediction(src, dst).verdict is expected
    said = " ".join(engine.predict(a, b).reasons)
    assert ("asymmetric" in said) is stateful
    # one-way protocols take the forward direction alone, even through a stateful firewall
    assert engine.predict(a, b, "udp", 53).verdict is Verdict.IN_HOST_ROUTED


#: the walk's modules (walk.py puts them together)
WALK = ("walk.py", "walkrecord.py", "walkbase.py", "capacity.py", "l2reasons.py", "legs.py", "routing.py", "answer.py")


def test_the_walk_and_the_matrix_keep_no_copy_of_a_verdict_rule():
    """A verdict is made only in ``decide``: the walk and the matrix modules name no verdict themselves (they
    read ``decide``'s codes), and the rules the issue found twice are ``decide``'s."""
    for module in (*WALK, "vector.py", "matrix.py", "routes.py", "firstmatch.py", "rulearrays.py", "rules.py"):
        tree = ast.parse((PREDICT / module).read_text())
        verdicts = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                    and isinstance(n.value, ast.Name) and n.value.id == "Verdict"]
        assert not verdicts, f"{module} decides a verdict itself: Verdict.{verdicts[0]}"
    source = {m: (PREDICT / m).read_text() for m in ("vector.py", "matrix.py", "routes.py", "firstmatch.py")}
    source["walk.py"] = "".join((PREDICT / m).read_text() for m in WALK)
    assert "decide.combine(" in source["walk.py"] and "decide.cause(" in source["walk.py"]
    assert "from .decide import combine" in source["matrix.py"] and "def combine" not in source["vector.py"]
    assert source["walk.py"].count("judges(") >= 3 and "judges(" in source["vector.py"]
    assert "decide.segment_l2(" in source["walk.py"] and "decide.Labels(" in source["vector.py"]
    assert "source_rank(" in source["walk.py"] and "source_rank(" in source["matrix.py"]
    assert "destination_rank(" in source["walk.py"] and "destination_rank(" in source["matrix.py"]
    assert "decide.inside_net(" in source["walk.py"] and "decide.inside(" in source["vector.py"]
    assert "decide.direction_code(" in source["walk.py"] and "decide.direction_code(" in source["routes.py"]
    assert "earlier(" in source["firstmatch.py"] and "route_table(" in source["walk.py"]


def test_combine_truth_table_for_scalars_and_arrays():
    codes = range(len(VERDICTS))
    cases = list(itertools.product(codes, codes, (0, 1)))
    fwd = np.array([c[0] for c in cases], dtype=np.int8)
    rev = np.array([c[1] for c in cases], dtype=np.int8)
    differ = np.array([c[2] for c in cases], dtype=np.int8)
    block = decide.combine(fwd.copy(), np.zeros_like(differ), rev, differ)
    for i, (f, r, s) in enumerate(cases):
        if f >= decide.BLOCKED:
            want, why = f, decide.FORWARD_FAILED
        elif r >= decide.BLOCKED:
            want, why = r, decide.REPLY_FAILED
        elif s:
            want, why = decide.BLOCKED, decide.ONE_SIDED_STATE
        else:
            want, why = f | r, decide.BOTH_DELIVERED
        assert decide.combine(f, 0, r, s) == want == block[i], (f, r, s)
        assert decide.cause(f, 0, r, s) == why
    # delivered codes are 2 * crossed + routed: the or takes a pNIC or routing from either direction
    assert VERDICTS[decide.combine(decide.HOST_R, None, decide.PHYS, None)] is Verdict.ROUTED_VIA_PHYSICAL


def test_direction_code_and_judging_rules():
    for delivered, blocked, crossed, routed in itertools.product((False, True), repeat=4):
        code = decide.direction_code(delivered, blocked, crossed, routed)
        want = Verdict.BLOCKED if blocked else Verdict.UNREACHABLE if not delivered else \
            [[Verdict.IN_HOST, Verdict.IN_HOST_ROUTED], [Verdict.VIA_PHYSICAL, Verdict.ROUTED_VIA_PHYSICAL]][crossed][routed]
        assert VERDICTS[code] is want
        arr = decide.direction_code(np.array([delivered]), np.array([blocked]), np.array([crossed]), np.array([routed]))
        assert int(arr[0]) == code
    assert [decide.judges(a, s, r) for a, s, r in itertools.product((False, True), repeat=3)] == \
        [False, False, False, False, True, True, True, False]
    assert decide.reply_port(443, True) is None and decide.reply_port(443, False) == 443


def test_l2_code_scalar_equals_arrays():
    rng = np.random.default_rng(7)
    la, lb, da, db = (rng.integers(0, 3, 400) for _ in range(4))
    aa, ab = (rng.integers(-1, 2, 400) for _ in range(2))
    block = decide.l2_code(la, lb, da, db, aa, ab)
    for i in range(400):
        one = decide.l2_code(int(la[i]), int(lb[i]), int(da[i]), int(db[i]), int(aa[i]), int(ab[i]))
        want = decide.IN_HOST if la[i] == lb[i] else decide.PHYSICAL \
            if da[i] == db[i] and not (aa[i] != -1 and aa[i] == ab[i]) else decide.NO_L2
        assert one == want == block[i]
        assert decide.l2_verdict(one) == {0: decide.UNREACH, 1: decide.HOST, 2: decide.PHYS}[one]


def test_interface_choice_of_multi_homed_endpoints():
    # source: the interface in the destination's subnet, else the first with a gateway, else the first usable
    assert decide.first_of_lowest([decide.source_rank(u, g, n) for u, g, n in
                                   [(False, True, True), (True, False, False), (True, True, False)]]) == 2
    assert decide.first_of_lowest([decide.source_rank(u, g, n) for u, g, n in
                                   [(True, True, False), (True, False, True)]]) == 1
    assert decide.first_of_lowest([decide.source_rank(u, g, n) for u, g, n in
                                   [(False, False, False), (True, False, False)]]) == 1
    # destination: delivered in a shared subnet, else delivered elsewhere, else the first tried
    assert decide.first_of_lowest([decide.destination_rank(d, s) for d, s in [(True, False), (True, True)]]) == 1
    assert decide.first_of_lowest([decide.destination_rank(d, s) for d, s in [(False, True), (True, False)]]) == 1
    assert decide.first_of_lowest([decide.destination_rank(d, s) for d, s in [(False, False), (False, True)]]) == 1
    assert decide.first_of_lowest([decide.destination_rank(d, s) for d, s in [(False, False), (False, False)]]) == 0
    # blocks rank alike
    delivered = np.array([[False, True], [True, True]])
    same = np.array([[True, False], [False, True]])
    assert decide.destination_rank(delivered, same).argmin(axis=0).tolist() == [1, 1]


def _scan(points: list[ipaddress.IPv4Network | None], routes: list, usable: list[bool], ip: ipaddress.IPv4Address):
    """The linear scan the route table replaced (``Walker._out`` before issue 22)."""
    for i, n in enumerate(points):
        if n is not None and ip in n and usable[i]:
            return i, -1
    best = None
    for r, (prefix, _) in enumerate(routes):
        if ip in prefix and (best is None or prefix.prefixlen > routes[best][0].prefixlen):
            best = r
    if best is None:
        return -1, -1
    for i, n in enumerate(points):
        if n is not None and routes[best][1] in n and usable[i]:
            return i, best
    return -1, best


@pytest.mark.parametrize("seed", range(6))
def test_route_table_answers_as_the_linear_scan(seed: int):
    rng = random.Random(seed)

    def net(length: int) -> ipaddress.IPv4Network:
        return ipaddress.ip_network(f"10.{rng.randrange(4)}.{rng.randrange(4)}.{rng.randrange(256)}/{length}",
                                    strict=False)

    points = [None if rng.random() < 0.1 else net(rng.choice((16, 22, 24, 24, 28))) for _ in range(12)]
    routes = [(net(rng.choice((0, 8, 16, 20, 24, 24, 30, 32))), ipaddress.ip_address(
        f"10.{rng.randrange(4)}.{rng.randrange(4)}.{rng.randrange(256)}")) for _ in range(40)]
    usable = [rng.random() < 0.8 for _ in points]
    table = decide.RouteTable(points, routes)
    for _ in range(400):
        ip = ipaddress.ip_address(f"10.{rng.randrange(4)}.{rng.randrange(4)}.{rng.randrange(256)}")
        assert table.lookup(int(ip), lambda i: usable[i]) == _scan(points, routes, usable, ip), ip
    values = np.array([int(ipaddress.ip_address(f"10.{rng.randrange(4)}.{rng.randrange(4)}.{rng.randrange(256)}"))
                       for _ in range(200)] + [-1], dtype=np.int64)
    longest = table.prefixes.longest(values)
    for v, n in zip(values.tolist(), longest.tolist()):
        held = table.prefixes.holding(v) if v >= 0 else []
        assert n == (held[0] if held else -1)


def test_first_match_rules():
    assert decide.first_rule([False, True, True]) == 1
    assert decide.first_rule([False, False]) == 2
    assert decide.first_rule(np.array([False, False, True])) == 2
    assert decide.first_rule(np.zeros(0, dtype=bool)) == 0
    allow = np.array([True, False, True])            # two rules, then the default policy
    assert decide.permits(allow, decide.earlier(np.array([2, 1]), np.array([0, 2]))).tolist() == [True, False]
    allowed = np.zeros((2, 2), dtype=bool)
    decide.unenforced(allowed, np.array([False, True]), np.array([0, 1]))
    assert allowed.tolist() == [[True, True], [False, False]]


def test_steps_are_typed_data_and_round_trip():
    """The answer carries its decisions as typed steps: the firewall's rule and the routes, not words."""
    d = _asymmetric(stateful=True)
    a, b = _ids(d, "a", "b")
    p = Engine(d.t).predict(a, b, "tcp", 80)
    filters = [s for s in p.forward.steps if s.kind is StepKind.FILTER]
    routes = [s for s in p.forward.steps if s.kind is StepKind.ROUTE]
    assert [s.name for s in routes] == ["fw1"] and isinstance(routes[0].detail, RouteDetail)
    assert routes[0].detail.next_hop is None and routes[0].detail.out_interface is not None
    assert filters == [] or all(isinstance(s.detail, FilterDetail) for s in filters)
    back = Prediction.from_dict(p.to_dict())
    assert back.forward.steps == p.forward.steps and back.reverse.steps == p.reverse.steps
    # a reply passing a stateful firewall on state is a typed step too
    d2, (h1, _), (s1, _), _ = esx_pair(vlans=(10, 20))
    pg10, pg20 = s1.portgroups
    d2.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")], stateful=True, default=Action.DENY)
    d2.vm("a", h1, pg10, "10.0.10.5/24", "10.0.10.254")
    d2.vm("b", h1, pg20, "10.0.20.5/24", "10.0.20.254")
    a2, b2 = _ids(d2, "a", "b")
    p2 = Engine(d2.t).predict(a2, b2, "tcp", 80)
    assert p2.verdict is Verdict.BLOCKED
    (dropped,) = [s.detail for s in p2.forward.steps if s.kind is StepKind.FILTER]
    assert not dropped.permitted and dropped.rule is None and dropped.default_policy == "drop"  # DENY is drop



@pytest.mark.parametrize("stateful", [True, False])
def test_walk_and_matrix_agree_on_asymmetric_multi_homed_designs(stateful: bool):
    """Every pair of a design mixing what the random designs lacked: an asymmetric way through a (stateful or
    stateless) firewall, multi-homed VMs on both sides of it, a second host reached through the physical
    switch, and a stateful DFW with a rule naming one VM."""
    d = _asymmetric(stateful)
    (h1, h2) = d.t.hosts[:2]
    s1, s2 = d.t.switches[:2]
    pg10, pg20 = s1.portgroups[:2]
    m = d.vm("m", h1, pg10, "10.0.10.7/24", "10.0.10.254")
    d.nic(m, pg20, "10.0.20.7/24")                                 # in both subnets
    n = d.vm("n", h1, pg20, "10.0.20.8/24", "10.0.20.254")
    d.nic(n, pg10, "10.0.10.8/24", "10.0.10.1")                     # gateway on its second interface
    d.vm("far", h2, d.pg(s2, "v10", 10), "10.0.10.9/24", "10.0.10.1")
    d.dfw([DfwRule(Action.DENY, "any", "n", name="no-n", applied_to=["n"])])
    d.t.nsx.dfw.default_policy = Action.ALLOW
    engine = Engine(d.t)
    matrix = engine.matrix()
    ids = [vm.id for vm in d.t.vms if vm.role is VmRole.VM]
    seen = set()
    for src, dst in itertools.product(ids, ids):
        if src == dst:
            continue
        walked = engine.predict(src, dst).verdict
        assert matrix.verdict(src, dst) is walked, (src, dst)
        seen.add(walked)
    assert Verdict.BLOCKED in seen and len(seen) >= 3


@pytest.mark.parametrize("seed", range(6))
def test_route_lookup_of_many_addresses_answers_like_one_at_a_time(seed: int):
    """``RouteTable.lookup_many`` (the matrix's route keys, a router at a time) gives each address the
    interface and route ``lookup`` gives it: nested subnets, nested and equal route prefixes, pinned routes,
    next hops on no interface or on an unusable one, addresses nothing holds."""
    rnd = random.Random(seed)

    def net(length: int) -> ipaddress.IPv4Network:
        return ipaddress.ip_network(f"10.{rnd.randrange(4)}.{rnd.randrange(4)}.{rnd.randrange(256)}/{length}",
                                    strict=False)

    subnets = [net(rnd.choice([16, 22, 24, 24, 26])) if rnd.random() > 0.1 else None for _ in range(12)]
    hops = [ipaddress.ip_address(f"10.{rnd.randrange(4)}.{rnd.randrange(4)}.{rnd.randrange(256)}") for _ in range(8)]
    hops += [n.network_address + 1 for n in subnets if n is not None]    # next hops the router reaches
    routes = [(net(rnd.choice([0, 8, 16, 20, 24, 26, 28, 32])), rnd.choice(hops)) for _ in range(rnd.randrange(1, 60))]
    pinned = [rnd.choice([None, None, rnd.randrange(-1, 12)]) for _ in routes]
    table = decide.RouteTable(subnets, routes, pinned)
    down = set(rnd.sample(range(12), 3))
    ips = np.array([rnd.randrange(0x0A000000 - 512, 0x0A040000 + 512) for _ in range(3000)], dtype=np.int64)
    iface, route = table.lookup_many(ips, lambda i: i not in down)
    assert [table.lookup(int(ip), lambda i: i not in down) for ip in ips] == list(zip(iface.tolist(), route.tolist()))
    assert (iface >= 0).any() and ((iface >= 0) & (route >= 0)).any()
