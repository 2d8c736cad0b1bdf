"""Destination NAT (port forwarding) on router and edge VMs (SEMANTICS.md section 9): the walk from outside to the
published address, the replies through the translation, the matrix, validation, the overlap lint, the lab's
nftables and the verifier's probe target."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.model.objects import Dnat, Proto
from vnetbench.model.validate import validate
from vnetbench.predict import Engine, Verdict
from vnetbench.predict.lint import lint

T1_T0 = resources_dir() / "examples" / "nsx-t-t1-t0.vnet.yaml"


def _edge(t):
    return next(vm for vm in t.vms if vm.name == "en01")


def _agree(engine: Engine) -> None:
    for src, dst, verdict in engine.matrix().rows():
        assert verdict == engine.predict(src, dst).verdict, (src, dst)


def test_the_outside_reaches_the_published_port_at_the_outside_address_and_the_replies_come_back():
    engine = Engine(load(T1_T0))
    p = engine.predict("srv01", "db01", "tcp", 5432)
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert p.forward.entry == ("10.100.0.2", 15432)
    assert any("en01 translates the destination 10.100.0.2 port 15432 to 172.16.30.11 port 5432 (DNAT rule db-in), "
               "and replies come back through that translation" in r for r in p.reasons)
    kinds = [(h.kind.value, h.name) for h in p.forward.hops]
    assert kinds.index(("nat", "en01")) < kinds.index(("dlr", "t1-tenant-b"))   # translated, then routed inside
    assert p.reverse.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert any("replies return through the NAT" in r for r in p.reverse.reasons)


def test_what_the_rule_does_not_forward_stays_out_and_says_so():
    engine = Engine(load(T1_T0))
    for proto, port, words in (("tcp", 80, "not tcp port 80"), (None, None, "not a flow without a protocol"),
                               ("udp", 5432, "not udp port 5432")):
        p = engine.predict("srv01", "db01", proto, port)
        assert p.verdict is Verdict.UNREACHABLE, (proto, port)
        assert p.forward.entry is None
        assert any("tor01-l3 has no interface in 172.16.30.11's network" in r for r in p.reasons)
        assert any("the way in through en01's destination NAT (10.100.0.2 port 15432) fails too: en01's DNAT rule "
                   f"db-in forwards only tcp port 15432 there, {words}" in r for r in p.reasons), p.reasons


def test_a_sender_that_reaches_the_inside_address_is_not_sent_round_through_the_nat():
    engine = Engine(load(T1_T0))
    p = engine.predict("web01", "db01", "tcp", 5432)
    assert p.verdict is Verdict.IN_HOST_ROUTED and p.forward.entry is None
    assert not any("translates the destination" in r for r in p.reasons)


def test_a_one_to_one_dnat_publishes_every_protocol_and_the_matrix_agrees():
    t = load(T1_T0)
    _edge(t).forwarding.dnat = [Dnat("10.100.0.2", "172.16.30.11", name="all-in")]
    engine = Engine(t)
    p = engine.predict("srv01", "db01")
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL and p.forward.entry == ("10.100.0.2", None)
    assert engine.matrix().verdict("phy-srv01", "vm-db01") is Verdict.ROUTED_VIA_PHYSICAL
    _agree(engine)


def test_a_firewall_on_the_translating_edge_judges_the_inside_destination():
    from vnetbench.model.objects import Action, Rule

    t = load(T1_T0)
    edge = _edge(t)
    edge.forwarding.rules = [Rule(Action.REJECT, dst="172.16.30.11", proto=Proto.TCP, port=5432, name="no-db")]
    engine = Engine(t)
    p = engine.predict("srv01", "db01", "tcp", 5432)
    assert p.verdict is Verdict.BLOCKED and p.refused and p.forward.entry == ("10.100.0.2", 15432)
    assert any("en01 translates the destination 10.100.0.2 port 15432 to 172.16.30.11 port 5432" in r
               for r in p.reasons)
    assert "en01 rejects it (rule 'no-db'" in p.reasons[-1]
    assert engine.predict("srv01", "db01", "tcp", 80).verdict is Verdict.UNREACHABLE   # not published: no way in
    assert engine.predict("db01", "srv01", "tcp", 5432).verdict is Verdict.ROUTED_VIA_PHYSICAL   # the way out


def test_validation_names_an_address_the_vm_lacks_bad_ports_and_a_vm_that_does_not_route():
    t = load(T1_T0)
    edge = _edge(t)
    edge.forwarding.dnat = [Dnat("10.100.0.99", "172.16.30.300", Proto.ANY, 80, None, "bad"),
                            Dnat("10.100.0.2", "172.16.30.11", Proto.TCP, None, 22, "half")]
    found = {p.path: p.message for p in validate(t)}
    assert "listens on 10.100.0.99, which is not an address of en01's vNICs (10.100.0.2, 169.254.0.2)" in \
        found["vms[0].forwarding.dnat[0].address"]
    assert "not an IPv4 address" in found["vms[0].forwarding.dnat[0].to"]
    assert "forwards a port but protocol any" in found["vms[0].forwarding.dnat[0].proto"]
    assert "translates to port 22 but forwards every port" in found["vms[0].forwarding.dnat[1].to_port"]
    web = next(vm for vm in t.vms if vm.name == "web01")
    web.forwarding.dnat = [Dnat("172.16.10.11", "172.16.30.11")]
    assert any("web01 does not route" in p.message and "DNAT" in p.message for p in validate(t))


def test_lint_finds_a_dnat_rule_an_earlier_one_hides():
    t = load(T1_T0)
    _edge(t).forwarding.dnat.insert(0, Dnat("10.100.0.2", "172.16.20.11", Proto.TCP, name="all-tcp"))
    [warning] = [p for p in lint(t) if "DNAT" in p.message]
    assert warning.path == "vms[0].forwarding.dnat[1]"
    assert "en01's DNAT rule db-in overlaps its DNAT rule all-tcp: the earlier rule already forwards tcp to " \
           "10.100.0.2" in warning.message
    assert not [p for p in lint(load(T1_T0)) if "DNAT" in p.message]


def test_the_lab_forwards_with_nftables_dnat_beside_the_snat():
    from vnetbench_local.desired import desired_lab

    lab = desired_lab(load(T1_T0))
    [nat] = [r for r in lab.resources.values() if r.kind == "nft" and r.spec["family"] == "ip"]
    text = nat.spec["text"]
    assert "type nat hook prerouting priority dstnat" in text
    assert "ip daddr 10.100.0.2 tcp dport 15432 dnat to 172.16.30.11:5432" in text
    assert 'ip saddr 172.16.30.0/24 oifname "uplink1" snat to 10.100.0.2' in text


def test_the_verifier_probes_the_rule_port_at_the_outside_address():
    from vnetbench.measure.verify import _target, rule_flows

    t = load(T1_T0)
    flows, _ = rule_flows(t)
    assert ("tcp", 5432) in flows
    p = Engine(t).predict("srv01", "db01", "tcp", 5432)

    class _Endpoint:
        def address(self, nic: str | None = None) -> str:
            return "172.16.30.11"

    assert _target(p, _Endpoint()) == "10.100.0.2"


def test_the_report_lists_the_edge_nat_rules_beside_its_routes(tmp_path):
    from lxml import html as lxml_html

    from vnetbench.export import report_html

    text = report_html(load(T1_T0), tmp_path / "t1t0.html").path.read_text()
    doc = lxml_html.fromstring(text)
    device = next(h for h in doc.iter("h3") if (h.text or "").startswith("en01")).getparent()
    nat = [[" ".join(td.text_content().split()) for td in tr] for tr in device.findall(".//table")[2].find("tbody")]
    assert nat == [["SNAT", "db-out", "from 172.16.30.0/24, leaving by uplink1", "source 10.100.0.2"],
                   ["DNAT", "db-in", "to 10.100.0.2 tcp port 15432", "destination 172.16.30.11 port 5432"]]


def test_an_address_the_vm_forwards_whole_is_not_where_it_is_reached_itself():
    from vnetbench.model.objects import VNic

    t = load(T1_T0)
    edge = _edge(t)
    edge.vnics.insert(0, VNic("nic-en01-uplink2", "uplink2", network="pg-edge-uplink", ip="10.100.0.3/24"))
    edge.forwarding.dnat = [Dnat("10.100.0.3", "172.16.30.11", name="all-in")]
    engine = Engine(t)
    to_edge = engine.predict("srv01", "en01")
    assert to_edge.verdict.delivered and to_edge.forward.hops[-1].name == "en01/uplink1"
    to_db = engine.predict("srv01", "db01")
    assert to_db.verdict.delivered and to_db.forward.entry == ("10.100.0.3", None)
    _agree(engine)


def test_the_random_nat_designs_cover_snat_dnat_and_port_forwards_and_walk_and_matrix_agree():
    """The recorded agreement (test_predict_matrix) holds ``random_nat_design`` too: these draws are what it guards."""
    from random_designs import random_nat_design

    seen: set[str] = set()
    for seed in range(30):
        t = random_nat_design(seed).t
        en = next(vm for vm in t.vms if vm.name == "en")
        seen |= {"snat" for _ in en.forwarding.snat}
        seen |= {"dnat port" if r.port else "dnat one-to-one" for r in en.forwarding.dnat}
        seen |= {"port forward" for sw in t.switches for _ in sw.port_forwards}
        if seed < 8:
            engine = Engine(t)
            _agree(engine)
            seen |= {"in through dnat" for a, b, _ in engine.matrix().rows()
                     if engine.predict(a, b, "tcp", 443).forward.entry}
    assert seen == {"snat", "dnat port", "dnat one-to-one", "port forward", "in through dnat"}
