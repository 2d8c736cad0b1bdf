"""NSX-T Tier-1 / Tier-0 gateways (SEMANTICS.md section 9): distributed routers in every transport node, the
Tier-0 service router on an edge node, in the walk, the matrix, the words, the file and validation."""

from __future__ import annotations

import copy

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.model.fileformat import from_data, to_data
from vnetbench.model.objects import VmRole
from vnetbench.model.validate import validate
from vnetbench.predict import Engine, Verdict

T1_T0 = resources_dir() / "examples" / "nsx-t-t1-t0.vnet.yaml"


def _problems(t) -> list[str]:
    return [f"{p.severity} {p.path}: {p.message}" for p in validate(t)]


def test_east_west_on_the_tier1_stays_in_the_host_and_names_the_tier():
    p = Engine(load(T1_T0)).predict("web01", "app01")
    assert p.verdict is Verdict.IN_HOST_ROUTED and not p.forward.pnics
    assert any("t1-tenant-a (the Tier-1 gateway's distributed router) routes it" in r
               and "in esx-comp01's kernel" in r for r in p.reasons)


def test_tier1_to_tier1_goes_through_the_tier0_distributed_router_not_the_edge():
    p = Engine(load(T1_T0)).predict("web01", "db01")
    assert p.verdict is Verdict.IN_HOST_ROUTED and not p.forward.pnics
    assert [r for r in p.reasons if "Tier-0 gateway's distributed router) routes it" in r]
    assert not [r for r in p.reasons if "en01" in r]


def test_north_south_leaves_through_the_tier0_service_router_on_the_edge_node():
    engine = Engine(load(T1_T0))
    for src, dst in (("web01", "srv01"), ("srv01", "web01")):
        p = engine.predict(src, dst)
        assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
        assert "pnic-edge01-vmnic1" in p.forward.pnics   # the edge node's uplink to the physical router
        assert any("edge node en01 (running t0-provider's Tier-0 service router)" in r for r in p.reasons)
    for src, dst, verdict in engine.matrix().rows():
        assert verdict == engine.predict(src, dst).verdict, (src, dst)


def test_without_the_service_routers_default_route_north_south_is_unreachable():
    t = load(T1_T0)
    edge = next(vm for vm in t.vms if vm.name == "en01")
    edge.forwarding.routes = [r for r in edge.forwarding.routes if r.prefix != "default"]
    engine = Engine(t)
    p = engine.predict("web01", "srv01")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("en01 has no interface in 10.200.0.10's network and no route to it" in r for r in p.reasons)
    assert dict(((s, d), v) for s, d, v in engine.matrix().rows())[("vm-web01", "phy-srv01")] is Verdict.UNREACHABLE


def test_tier_and_service_router_survive_the_file_and_old_files_have_none():
    t = load(T1_T0)
    data = to_data(t)
    assert [(d.get("tier"), d.get("service_router")) for d in data["nsx"]["dlrs"]] == \
        [(0, "vm-en01"), (1, None), (1, None)]
    assert from_data(data) == t
    old = copy.deepcopy(data)
    for d in old["nsx"]["dlrs"]:
        d.pop("tier", None)
        d.pop("service_router", None)
    assert all(d.tier is None and d.service_router is None for d in from_data(old).nsx.dlrs)


def test_validation_names_a_bad_tier_and_a_service_router_that_is_no_edge():
    t = load(T1_T0)
    assert _problems(t) == []
    t0 = t.nsx.dlrs[0]
    t0.tier = 2
    assert any("nsx.dlrs[0].tier" in p and "tier 2, which NSX-T has not" in p for p in _problems(t))
    t0.tier = None
    assert any("nsx.dlrs[0].service_router" in p and "NSX-V DLR, which has no service router" in p
               for p in _problems(t))
    t0.tier = 0
    next(vm for vm in t.vms if vm.name == "en01").role = VmRole.ROUTER
    assert any("service router en01 is a VM of role router, not an edge node" in p for p in _problems(t))


def test_validation_warns_of_a_service_router_off_the_transit_and_refuses_tier1s_linked_directly():
    t = load(T1_T0)
    edge = next(vm for vm in t.vms if vm.name == "en01")
    edge.vnics[1].network = "pg-seg-db"
    assert any(p.startswith("warning nsx.dlrs[0].service_router") and "no leg on any segment" in p
               for p in _problems(t))
    t = load(T1_T0)
    t.nsx.dlrs[0].interfaces = [i for i in t.nsx.dlrs[0].interfaces if i.name != "router-link"]
    assert any("Tier-1 gateways t1-tenant-a and t1-tenant-b share router-link" in p
               and "links a Tier-1 only to a Tier-0" in p for p in _problems(t))
