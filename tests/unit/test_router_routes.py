"""Static routes on router-like VMs and NSX DLRs: the model, the file, the walk and the matrix through the one
longest-prefix table (``decide.RouteTable``), the words, validation, lint, ``show`` and the report."""

from __future__ import annotations

import json

from builders import Design, Verdict, VmRole

from vnetbench import resources_dir
from vnetbench.cli.main import main
from vnetbench.export.report import routing
from vnetbench.model import load
from vnetbench.model.fileformat import from_data, to_data
from vnetbench.model.objects import Route
from vnetbench.model.schema import json_schema
from vnetbench.model.validate import validate
from vnetbench.predict import Engine
from vnetbench.predict.lint import lint

TWO_TIER = resources_dir() / "examples" / "nsx-v-two-tier.vnet.yaml"


def _chain(r1_routes: list[Route], r2_routes: list[Route]) -> Design:
    """a (10.1.0.0/24) - r1 - transit 10.9.0.0/29 - r2 - b (10.2.0.0/24), all on one host."""
    d = Design()
    h = d.host("esx1")
    sw = d.switch(h, "vSwitch0")
    net_a, transit, net_b = d.pg(sw, "A", 11), d.pg(sw, "T", 19), d.pg(sw, "B", 12)
    d.vm("a", h, net_a, "10.1.0.10/24", "10.1.0.1")
    d.vm("b", h, net_b, "10.2.0.10/24", "10.2.0.1")
    r1 = d.fw("r1", h, [(net_a, "10.1.0.1/24"), (transit, "10.9.0.1/29")], role=VmRole.ROUTER, stateful=False)
    r2 = d.fw("r2", h, [(transit, "10.9.0.2/29"), (net_b, "10.2.0.1/24")], role=VmRole.ROUTER, stateful=False)
    r1.forwarding.routes, r2.forwarding.routes = r1_routes, r2_routes
    return d


def _agrees(d: Design) -> None:
    engine = Engine(d.t)
    for src, dst, verdict in engine.matrix().rows():
        assert verdict == engine.predict(src, dst).verdict, (src, dst)


def test_without_routes_the_routers_cannot_reach_beyond_their_legs():
    d = _chain([], [])
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("r1 has no interface in 10.2.0.10's network and no route to it" in r for r in p.reasons)


def test_static_routes_and_a_default_route_carry_both_directions():
    d = _chain([Route("10.2.0.0/16", "10.9.0.2")], [Route("default", "10.9.0.1")])
    p = d.predict("a", "b", "tcp", 22)
    assert p.verdict is Verdict.IN_HOST_ROUTED, p.reasons
    assert p.forward.routed_by == ("r1", "r2") and p.reverse.routed_by == ("r2", "r1")
    assert "passes it to the next hop 10.9.0.2 (its route to 10.2.0.0/16)" in " ".join(p.reasons)
    assert "passes it to the next hop 10.9.0.1 (its default route)" in " ".join(d.predict("b", "a").reasons)
    _agrees(d)


def test_the_longest_prefix_wins_in_the_walk_and_the_matrix():
    # the /24 points at an address nobody has: b (in it) is lost, 10.2.7.0/24 behind the /16 is not
    d = _chain([Route("10.2.0.0/16", "10.9.0.2"), Route("10.2.0.0/24", "10.9.0.6")], [Route("default", "10.9.0.1")])
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("nothing in the design has the gateway address 10.9.0.6" in r for r in p.reasons), p.reasons
    _agrees(d)
    d.t.vms[1].vnics[0].ip, d.t.vms[1].vnics[0].gateway = "10.2.7.10/24", "10.2.7.1"
    d.t.vms[3].vnics[1].ip = "10.2.7.1/24"
    assert d.verdict("a", "b") is Verdict.IN_HOST_ROUTED
    _agrees(d)


def test_a_route_out_of_the_wrong_interface_is_not_used():
    d = _chain([Route("10.2.0.0/16", "10.9.0.2", interface="eth0")], [Route("default", "10.9.0.1")])
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("r1's route to 10.2.0.0/16 points at 10.9.0.2 out of r1/eth0" in r for r in p.reasons), p.reasons
    _agrees(d)
    d.t.vms[2].forwarding.routes[0].interface = "r1.eth1"   # by id works as by name
    assert d.verdict("a", "b") is Verdict.IN_HOST_ROUTED


def test_routes_survive_the_file_and_old_files_load_without_them():
    d = _chain([Route("10.2.0.0/16", "10.9.0.2", "eth1")], [Route("default", "10.9.0.1")])
    data = to_data(d.t)
    assert data["vms"][2]["forwarding"]["routes"] == [{"prefix": "10.2.0.0/16", "via": "10.9.0.2", "interface": "eth1"}]
    assert from_data(json.loads(json.dumps(data))).vms[3].forwarding.routes == [Route("default", "10.9.0.1")]
    old = load(resources_dir() / "examples" / "nsx-dfw.vnet.yaml")
    assert old.nsx.dlrs[0].routes == [] and all(vm.forwarding.routes == [] for vm in old.vms)
    defs = json_schema()["$defs"]
    assert defs["Forwarding"]["properties"]["routes"]["items"] == {"$ref": "#/$defs/Route"}
    assert defs["Dlr"]["properties"]["routes"]["items"] == {"$ref": "#/$defs/Route"}
    assert "interface" in defs["Route"]["properties"] and defs["Route"]["required"] == ["prefix", "via"]


def test_validation_names_a_bad_prefix_next_hop_and_interface():
    d = _chain([Route("10.2.0.1/16", "10.9.0.2"), Route("10.2.0.0/16", "nine"), Route("default", "10.9.0.2", "eth7")],
               [])
    problems = {p.path: p.message for p in validate(d.t)}
    assert "r1 has a route to '10.2.0.1/16', which is not a network" in problems["vms[2].forwarding.routes[0].prefix"]
    assert "vms[2].forwarding.routes[1].via" in problems
    assert "leaves by 'eth7', which is not one of its interfaces (eth0, eth1)" in \
        problems["vms[2].forwarding.routes[2].interface"]


def test_lint_finds_a_router_with_no_route_back():
    d = _chain([Route("10.2.0.0/16", "10.9.0.2")], [])
    found = [p for p in lint(d.t) if "no route back" in p.message]
    assert len(found) == 1 and found[0].path == "vms[3].forwarding.routes"
    assert "r2 has no route back to 10.1.0.0/24: r1 forwards traffic from there to r2 (r1's route to 10.2.0.0/16)" \
        in found[0].message
    assert found[0].hint == "add a route on r2 to 10.1.0.0/24 via 10.9.0.1"
    d.t.vms[3].forwarding.routes.append(Route("10.1.0.0/24", "10.9.0.1"))
    assert not [p for p in lint(d.t) if "no route back" in p.message]


def test_lint_finds_a_next_hop_a_router_cannot_reach():
    d = _chain([Route("10.2.0.0/16", "10.9.0.2"), Route("10.7.0.0/16", "10.9.0.5")], [Route("default", "10.9.0.1")])
    found = [p for p in lint(d.t) if p.path == "vms[2].forwarding.routes[1].via"]
    assert found and "nothing in the design has the address 10.9.0.5" in found[0].message


def test_the_two_tier_example_routes_through_dlr_and_edge():
    t = load(TWO_TIER)
    engine = Engine(t)
    p = engine.predict("web01", "db01")
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert p.forward.routed_by == ("dlr-01", "esg-01") and p.reverse.routed_by == ("esg-01", "dlr-01")
    text = " ".join(p.reasons)
    assert "passes it to the next hop 192.168.10.1 (its default route)" in text
    assert not [x for x in validate(t) + lint(t)]
    esg = next(vm for vm in t.vms if vm.name == "esg-01")
    esg.forwarding.routes.clear()          # the classic mistake: the edge cannot route the DLR's networks back
    assert Engine(t).predict("web01", "db01").verdict is Verdict.UNREACHABLE
    assert any("esg-01 has no route back to 172.16.10.0/24" in x.message for x in lint(t))


def test_show_and_report_list_the_routes(capsys):
    assert main(["show", str(TWO_TIER)]) == 0
    out = capsys.readouterr().out
    assert "route 172.16.0.0/16 via 192.168.10.2 out of transit" in out and "route default via 192.168.10.1" in out
    rows = {r["name"]: r["routes"] for r in routing(load(TWO_TIER))}
    assert {"prefix": "0.0.0.0/0 (default)", "via": "192.168.10.1"} in rows["dlr-01"]
    assert {"prefix": "172.16.0.0/16", "via": "192.168.10.2 (transit)"} in rows["esg-01"]
