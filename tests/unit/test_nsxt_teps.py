"""Tunnel endpoints over a routed transport (SEMANTICS.md section 9): per-rack TEP subnets joined by a physical
router carry the overlay; the walk, the matrix, the words, the largest packet and the lint follow the TEP path."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.model.validate import validate
from vnetbench.predict import Engine, Verdict
from vnetbench.predict.lint import lint

T1_T0 = resources_dir() / "examples" / "nsx-t-t1-t0.vnet.yaml"


def _agree(engine: Engine) -> dict:
    cells = {}
    for src, dst, verdict in engine.matrix().rows():
        assert verdict == engine.predict(src, dst).verdict, (src, dst)
        cells[src, dst] = verdict
    return cells


def test_the_overlay_crosses_racks_through_the_routed_tep_subnets():
    engine = Engine(load(T1_T0))
    p = engine.predict("web01", "app02")
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert p.forward.pnics == ("pnic-comp01-vmnic0", "pnic-comp02-vmnic0")
    assert any("the tunnel from esx-comp01's endpoint 10.51.0.11 to 10.52.0.12 is routed by tor01-l3" in r
               for r in p.reasons)
    assert p.mtu[0] == 1500
    _agree(engine)
    assert [x for x in lint(load(T1_T0)) if "tunnel" in x.message] == []


def test_without_the_routers_leg_in_rack_2_the_racks_overlay_breaks_and_lint_says_where():
    t = load(T1_T0)
    router = t.physical_routers[0]
    router.interfaces = [i for i in router.interfaces if i.name != "Vlan52"]
    engine = Engine(t)
    p = engine.predict("web01", "app02")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("the tunnel endpoints cannot reach each other: from esx-comp01 to esx-comp02, tor01-l3 has no "
               "route to esx-comp02's tunnel endpoint 10.52.0.12" in r for r in p.reasons), p.reasons
    assert engine.predict("web01", "app01").verdict is Verdict.IN_HOST_ROUTED   # rack 1 is whole
    cells = _agree(engine)
    assert cells["vm-app01", "vm-app02"] is Verdict.UNREACHABLE
    found = [x for x in lint(t) if "tunnel endpoints of" in x.message]
    assert found and found[0].path.endswith(".tep") and "cannot reach each other" in found[0].message


def test_a_small_mtu_on_the_routed_way_limits_the_overlay_and_lint_warns():
    t = load(T1_T0)
    trunk = next(p for ps in t.physical_switches if ps.name == "tor02" for p in ps.ports if p.name == "Te1/0/48")
    trunk.mtu = 1500
    p = Engine(t).predict("web01", "app02", "icmp")
    assert p.mtu[0] == 1500 - 54 and "Te1/0/48 of tor02" in p.mtu[1]
    [warning] = [x for x in lint(t) if "tunnel path" in x.message and "esx-comp01 to esx-comp02" in x.message]
    assert "at most 1500 bytes" in warning.message and "geneve adds 54" in warning.message
    assert "1554" in warning.hint


def test_a_tep_gateway_outside_its_subnet_is_refused():
    t = load(T1_T0)
    t.hosts[0].tep.gateway = "10.52.0.1"
    assert any(p.path == "hosts[0].tep.gateway" and "outside its subnet 10.51.0.0/24" in p.message
               for p in validate(t))
    t.hosts[0].tep.ip = "10.51.0.11"
    assert any(p.path == "hosts[0].tep.ip" for p in validate(t))
