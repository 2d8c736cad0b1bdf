"""Source NAT on router and edge VMs (SEMANTICS.md section 9): the walk, the matrix, the words from both sides,
validation, the overlap lint and the lab's nftables."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.model.objects import Snat
from vnetbench.model.validate import validate
from vnetbench.predict import Engine, Verdict
from vnetbench.predict.lint import lint

T1_T0 = resources_dir() / "examples" / "nsx-t-t1-t0.vnet.yaml"


def _edge(t):
    return next(vm for vm in t.vms if vm.name == "en01")


def _agree(engine: Engine) -> None:
    for src, dst, verdict in engine.matrix().rows():
        assert verdict == engine.predict(src, dst).verdict, (src, dst)


def test_snat_lets_an_unrouted_network_out_and_replies_come_back_but_nothing_comes_in():
    engine = Engine(load(T1_T0))
    out = engine.predict("db01", "srv01")
    assert out.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert any("en01 translates the source address to 10.100.0.2 (SNAT rule db-out, for 172.16.30.0/24), and "
               "replies come back through that translation" in r for r in out.reasons)
    assert [h.name for h in out.forward.hops if h.kind.value == "nat"] == ["en01"]
    inward = engine.predict("srv01", "db01")
    assert inward.verdict is Verdict.UNREACHABLE
    assert any("tor01-l3 has no interface in 172.16.30.11's network and no route to it" in r for r in inward.reasons)
    assert not any("translates" in r for r in engine.predict("web01", "srv01").reasons)   # tenant a is routed
    _agree(engine)


def test_without_the_snat_rule_the_replies_are_lost():
    t = load(T1_T0)
    _edge(t).forwarding.snat = []
    engine = Engine(t)
    p = engine.predict("db01", "srv01")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("no route to it" in r for r in p.reasons)
    _agree(engine)


def test_a_rule_on_another_interface_does_not_translate():
    t = load(T1_T0)
    _edge(t).forwarding.snat[0].interface = "transit"
    assert Engine(t).predict("db01", "srv01").verdict is Verdict.UNREACHABLE


def test_validation_names_bad_sources_addresses_interfaces_and_a_vm_that_does_not_route():
    t = load(T1_T0)
    edge = _edge(t)
    edge.forwarding.snat = [Snat("172.16.30.0/33", "10.100.0.300", "eth9", "bad")]
    found = {p.path: p.message for p in validate(t)}
    assert "not a network" in found["vms[0].forwarding.snat[0].source"]
    assert "not an IPv4 address" in found["vms[0].forwarding.snat[0].to"]
    assert "'eth9', which is not one of en01's vNICs (uplink1, transit)" in found["vms[0].forwarding.snat[0].interface"]
    web = next(vm for vm in t.vms if vm.name == "web01")
    web.forwarding.snat = [Snat("172.16.10.0/24", "10.100.0.9")]
    assert any("web01 does not route" in p.message for p in validate(t))


def test_lint_finds_a_hidden_rule_and_an_address_two_nats_claim():
    t = load(T1_T0)
    edge = _edge(t)
    edge.forwarding.snat.append(Snat("172.16.30.128/25", "10.100.0.3", "uplink1", "hidden"))
    [warning] = [p for p in lint(t) if "SNAT" in p.message]
    assert warning.path == "vms[0].forwarding.snat[1]"
    assert "hidden overlaps en01's rule db-out: 172.16.30.0/24 of the earlier rule holds 172.16.30.128/25" in \
        warning.message
    t = load(T1_T0)
    app = next(vm for vm in t.vms if vm.name == "app01")
    app.role = _edge(t).role
    app.forwarding.snat = [Snat("172.16.20.0/24", "10.100.0.2", name="twin")]
    assert any("both translate to 10.100.0.2" in p.message for p in lint(t))


def test_the_lab_translates_with_nftables_on_the_edge_namespace():
    from vnetbench_local.desired import desired_lab

    lab = desired_lab(load(T1_T0))
    [nat] = [r for r in lab.resources.values() if r.kind == "nft" and r.spec["family"] == "ip"]
    assert 'ip saddr 172.16.30.0/24 oifname "uplink1" snat to 10.100.0.2' in nat.spec["text"]
