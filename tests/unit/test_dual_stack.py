"""IPv6 and dual stack: the file format, validation, and prediction per family through the one decision core
(the walk reads IPv6 addresses as they are, the matrix its relabelling, and both agree)."""

from __future__ import annotations

import ipaddress
import re

import pytest

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.model.families import families_in, project
from vnetbench.model.fileformat import dumps, loads
from vnetbench.model.validate import validate
from vnetbench.predict import Engine
from vnetbench.predict.family import Differing, predict

from random_designs import random_design, random_rule_design
from test_predict_matrix import assert_matrix_is_the_walk

FOUR_CASES = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"
DUAL = resources_dir() / "examples" / "esx-dual-stack.vnet.yaml"
_V4 = re.compile(r"\b(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(/\d{1,2})?\b")


def _four_cases_v6(text: str) -> str:
    """The issue's substitution: 10.30.0.X/24 -> 2001:db8:30::X/64, 10.31.0.X/24 -> 2001:db8:31::X/64,
    gateways and router interfaces likewise."""
    return re.sub(r"\b10\.(3[01])\.0\.(\d+)(/24)?\b",
                  lambda m: f"2001:db8:{m.group(1)}::{m.group(2)}" + ("/64" if m.group(3) else ""), text)


def _mapped(text: str) -> str:
    """Every IPv4 literal as the IPv6 address 2001:db8::/96 + it (prefix + 96): containment is kept."""
    def one(m: re.Match) -> str:
        address = ipaddress.IPv6Address(int(ipaddress.IPv6Address("2001:db8::")) + int(ipaddress.IPv4Address(m[1])))
        return f"{address}/{int(m[2][1:]) + 96}" if m[2] else str(address)
    return _V4.sub(one, text)


def test_an_ipv6_only_copy_of_the_four_cases_predicts_the_same_verdicts():
    text = FOUR_CASES.read_text()
    six = loads(_four_cases_v6(text))
    assert families_in(six) == [6] and "10.3" not in dumps(six).split("layout:")[0].split("hosts:")[1]
    four, v6 = Engine(loads(text)), Engine(six)
    matrix = v6.matrix()
    pairs = list(matrix.rows())
    assert len(pairs) == 25
    for src, dst, verdict in pairs:
        assert verdict is four.predict(src, dst).verdict is v6.predict(src, dst).verdict, (src, dst)
    assert "2001:db8:31::31" in " ".join(v6.predict("web01", "db01").reasons)


def test_the_dual_stack_example_differs_where_the_rules_name_ipv4_only():
    t = load(DUAL)
    assert families_in(t) == [4, 6]
    answers = predict(t, "dmz01", "app01")
    assert str(answers[4].verdict) == "blocked" and str(answers[6].verdict) == "in-host-routed"
    diff = Differing(Engine(t, 4).matrix(), Engine(t, 6).matrix())
    assert diff.pairs() == {("vm-dmz01", "vm-app01"), ("vm-app01", "vm-dmz01")} and len(diff) == 2
    assert ("vm-dmz01", "vm-app01") in diff and ("vm-web01", "vm-app01") not in diff


def test_a_link_local_gateway_names_the_router_on_the_senders_link():
    t = load(DUAL)
    seen = project(t, 6)
    web02 = next(v for v in seen.vms if v.name == "web02")
    assert web02.vnics[0].gateway == "2001:db8:10::1" and web02.vnics[0].ip == "2001:db8:10::12/64"
    assert "2001:db8:10::1" in " ".join(Engine(t, 6).predict("web02", "app01").reasons)


def test_dual_stack_fields_round_trip_and_old_files_load_unchanged():
    t = load(DUAL)
    again = loads(dumps(t))
    nic = next(v for v in again.vms if v.name == "web02").vnics[0]
    assert nic.addresses == ["2001:db8:10::12/64"] and nic.gateway6 == "fe80::1%eth0"
    old = FOUR_CASES.read_text()
    assert "addresses" not in dumps(loads(old)) and "gateway6" not in dumps(loads(old))
    assert project(loads(old), 4).vms[0].vnics[0].ip == "10.30.0.11/24"


def _problems(text: str) -> list[str]:
    return [f"{p.severity} {p.path}: {p.message} -> {p.hint}" for p in validate(loads(text))]


def test_validation_reads_both_families():
    text = FOUR_CASES.read_text()
    assert _problems(_four_cases_v6(text)) == []
    bad = text.replace("ip: 10.30.0.11/24", "ip: 2001:db8:30::zz/64")
    assert any("not in address/prefix form" in p and "2001:db8:1::10/64" in p and "10.0.1.10/24" in p
               for p in _problems(bad))
    outside = _four_cases_v6(text).replace("gateway: 2001:db8:30::1\n", "gateway: 2001:db8:99::1\n", 1)
    assert any("outside its subnet 2001:db8:30::/64" in p for p in _problems(outside))
    v4_as_v6 = text.replace("gateway: 10.30.0.1\n", "gateway: 10.30.0.1\n    gateway6: 10.30.0.1\n", 1)
    assert any("as IPv6 gateway" in p for p in _problems(v4_as_v6))
    no_v6 = text.replace("gateway: 10.30.0.1\n", "gateway: 10.30.0.1\n    gateway6: 2001:db8:30::1\n", 1)
    assert any("IPv6 gateway 2001:db8:30::1 but no IPv6 address" in p for p in _problems(no_v6))
    long_form = _four_cases_v6(text).replace("ip: 2001:db8:30::11/64", "ip: 2001:0db8:30:0::11/64")
    assert any(p.startswith("warning") and "short form (RFC 5952): 2001:db8:30::11/64" in p
               for p in _problems(long_form))
    dup = DUAL.read_text().replace("- 2001:db8:10::12/64", "- 2001:db8:10::11/64")
    assert any("the address 2001:db8:10::11" in p for p in _problems(dup))


@pytest.mark.parametrize("seed", range(30))
def test_an_ipv6_copy_of_a_random_design_answers_like_it_and_its_matrix_is_the_walk(seed: int):
    d = (random_rule_design if seed % 2 else random_design)(seed)
    text = dumps(d.t)
    six = loads(_mapped(text))
    if families_in(six) != [6]:
        pytest.skip("a design without addresses")
    four, v6 = Engine(loads(text)), Engine(six)
    assert_matrix_is_the_walk(v6, seed)
    for src, dst, verdict in v6.matrix().rows():
        assert verdict is four.matrix().verdict(src, dst), (seed, src, dst)


def dual_stack(design) -> None:  # noqa: ANN001 - a Topology
    """Give every addressed vNIC and router interface its IPv6 twin (``_mapped``), and every gateway too."""
    for vm in design.vms:
        for nic in vm.vnics:
            if nic.ip:
                nic.addresses.append(_mapped(nic.ip))
            if nic.gateway:
                nic.gateway6 = _mapped(nic.gateway)
    for router in design.physical_routers:
        for itf in router.interfaces:
            if itf.ip:
                itf.addresses.append(_mapped(itf.ip))


@pytest.mark.parametrize("seed", range(20))
def test_dual_stack_random_designs_agree_per_family(seed: int):
    """IPv6 addresses beside the IPv4 ones (rules stay IPv4): each family's matrix is its walk."""
    d = random_rule_design(seed) if seed % 2 else random_design(seed)
    dual_stack(d.t)
    for fam in families_in(d.t):
        assert_matrix_is_the_walk(Engine(d.t, fam), seed)


def test_validation_of_a_dual_stack_design_names_what_one_family_lacks():
    text = DUAL.read_text()
    found = _problems(text)
    assert found == [p for p in found if "fw01's rules name IPv4 networks only" in p and p.startswith("warning")]
    assert len(found) == 1
    covered = text.replace("      name: dmz-to-app\n", "      name: dmz-to-app\n"
                           "    - action: deny\n      src: 2001:db8:30::/64\n      dst: 2001:db8:20::/64\n")
    assert _problems(covered) == []
    stuck = text.replace("    gateway6: 2001:db8:20::1\n", "")
    assert any("app01/eth0 has the IPv6 address 2001:db8:20::21/64 but no IPv6 gateway" in p for p in _problems(stuck))
    small = text.replace("    gateway6: 2001:db8:20::1\n", "    gateway6: 2001:db8:20::1\n    mtu: 1200\n")
    assert any("below IPv6's minimum link MTU of 1280" in p for p in _problems(small))
    mixed = FOUR_CASES.read_text().replace(
        "    vlan: 301\nlinks:", "    vlan: 301\n  routes:\n  - prefix: 2001:db8:40::/48\n    via: 10.31.0.9\nlinks:")
    assert any("an address of the other family" in p for p in _problems(mixed))


def test_ipv6_answers_say_routers_never_fragment():
    reasons = " ".join(Engine(load(DUAL), 6).predict("web01", "app01").reasons)
    assert "IPv6 routers never fragment" in reasons and "Packet Too Big" in reasons
    assert "fragment" not in " ".join(Engine(load(DUAL), 4).predict("web01", "app01").reasons)


@pytest.mark.parametrize("seed", range(12))
def test_a_dual_stack_engine_follows_edits_like_a_fresh_one(seed: int):
    """Edits of a dual-stack design reach its projection in place (a VLAN, a vNIC's network, a rule) or make
    it anew (an address): the matrix after them is a fresh engine's."""
    from vnetbench.model import Document
    from vnetbench.model.objects import Action, Rule

    d = random_rule_design(seed)
    dual_stack(d.t)
    doc = Document(d.t)
    engines = {f: Engine(d.t, f) for f in families_in(d.t)}
    for engine in engines.values():
        engine.matrix()
        doc.subscribe(engine.changed)
    pgs = [pg for sw in d.t.switches for pg in sw.portgroups]
    nics = [n for vm in d.t.vms if vm.role.value == "vm" for n in vm.vnics if n.network]
    firewalls = [vm for vm in d.t.vms if vm.role.value == "firewall"]
    if pgs:
        doc.set(pgs[0], "vlan", 77)
    if nics and len(pgs) > 1:
        doc.set(nics[0], "network", pgs[-1].id)
    if firewalls:
        doc.insert(firewalls[0].forwarding, "rules", Rule(Action.DENY, "any", _mapped("10.0.0.0/8")), 0)
    for f, engine in engines.items():
        fresh = Engine(d.t, f).matrix()
        assert list(engine.matrix().rows()) == list(fresh.rows()), (seed, f)
    if nics:
        doc.set(nics[-1], "addresses", [])
        for f, engine in engines.items():
            assert list(engine.matrix().rows()) == list(Engine(d.t, f).matrix().rows()), (seed, f)


def test_the_report_lists_both_families_of_each_interface(tmp_path):
    from vnetbench.export import report_html

    html = report_html(load(DUAL), tmp_path / "dual.html").path.read_text()
    assert "10.20.0.21/24, 2001:db8:20::21/64" in html and "10.20.0.1, 2001:db8:20::1" in html
    assert "2001:db8:30::/64" in html and "fe80::1/64" not in html


def test_the_cli_predicts_per_family_and_flags_a_difference(capsys):
    import json

    from vnetbench.cli.main import main

    assert main(["predict", str(DUAL), "--from", "dmz01", "--to", "app01"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("!! IPv4 and IPv6 differ: IPv4 blocked, IPv6 in-host-routed")
    assert "--- IPv4 ---" in out and "--- IPv6 ---" in out and "2001:db8:20::21" in out
    assert main(["predict", str(DUAL), "--from", "dmz01", "--to", "app01", "--family", "6", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "in-host-routed"
    assert main(["matrix", str(DUAL), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["family"] == 4 and sorted(map(tuple, data["families_differ"])) == [("vm-app01", "vm-dmz01"),
                                                                                   ("vm-dmz01", "vm-app01")]
    assert main(["matrix", str(DUAL), "--family", "6"]) == 0
    assert "!HR" in capsys.readouterr().out
    assert main(["matrix", str(FOUR_CASES), "--family", "6"]) != 0
    assert "has no IPv6 address" in capsys.readouterr().err
    assert main(["demo", str(DUAL)]) == 0
    assert "ok  dmz01 -> app01 (IPv6): in-host-routed" in capsys.readouterr().out


def test_the_lab_deploys_each_rule_for_the_families_it_names():
    """A rule naming networks of one family becomes nft statements of that family only (``ip`` or ``ip6``), so
    IPv6 passes a rule set written for IPv4; ``any`` covers both in one statement; routes of both families are
    deployed, a link-local next hop leaving by its interface."""
    from vnetbench.backends.nftables import rule_lines
    from vnetbench.model.objects import Action, Proto, Route, Rule
    from vnetbench_local.desired_base import static_routes

    def resolve(name):
        return {"vm-web01": ["10.10.0.11", "2001:db8:10::11"]}.get(name)

    assert rule_lines(Rule(Action.DENY, "2001:db8:30::/64", "any"), resolve, "r") == \
        ['ip6 saddr 2001:db8:30::/64 drop comment "r"']
    assert rule_lines(Rule(Action.DENY, "10.30.0.0/24", "2001:db8:20::/64"), resolve, "r") == []
    assert rule_lines(Rule(Action.DENY, "10.30.0.0/24", "any"), resolve, "r") == ['ip saddr 10.30.0.0/24 drop comment "r"']
    assert rule_lines(Rule(Action.DENY, "any", "vm-web01", Proto.ICMP), resolve, "r") == [
        'ip daddr 10.10.0.11 meta l4proto icmp drop comment "r"',
        'ip6 daddr 2001:db8:10::11 meta l4proto ipv6-icmp drop comment "r"']
    assert rule_lines(Rule(Action.DENY, "any", "any", Proto.ICMP), resolve, "r") == [
        'meta l4proto { icmp, ipv6-icmp } drop comment "r"']
    routes = [Route("2001:db8:40::/48", "2001:db8:30::9"), Route("default", "fe80::1%eth0"), Route("10.40.0.0/16", "10.30.0.9")]
    assert static_routes(routes, [["default", "10.30.0.1"], ["::/0", "2001:db8:30::1"]], {"eth0": "e0"}) == [
        ["2001:db8:40::/48", "2001:db8:30::9"], ["::/0", "fe80::1", "e0"], ["10.40.0.0/16", "10.30.0.9"],
        ["default", "10.30.0.1"]]


def test_an_ipv6_plan_nested_past_the_matrix_labels_is_one_line_and_the_ipv4_grid_still_shows(tmp_path, capsys):
    """The IPv6 matrix labels networks in 32 bits (predict/relabel.py); a plan nested deeper is said plainly,
    with the way out, and does not cost the IPv4 matrix."""
    from vnetbench.cli.main import main
    from vnetbench.model import Route, save

    design = load(DUAL)
    fw = next(vm for vm in design.vms if vm.name == "fw01")
    start = int(ipaddress.IPv6Address("2001:db8::")) | 1 << 95
    fw.forwarding.routes += [Route(str(ipaddress.IPv6Network((start | k << (128 - length), length))), "2001:db8:10::1")
                             for length in range(36, 128, 4) for k in range(3)]
    path = tmp_path / "deep.vnet.yaml"
    save(design, path)
    assert main(["matrix", str(path), "--family", "6"]) == 2
    err = capsys.readouterr().err
    assert "nests too many networks" in err and "vnetbench predict --family 6" in err and "Traceback" not in err
    assert main(["matrix", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "web01" in out and "IPv6 not compared" in err


def test_an_ipv4_underlay_carries_the_ipv6_overlay_between_racks():
    """nsx-t-t1-t0's tunnel endpoints are IPv4, routed by tor01-l3 between the racks' TEP subnets. Its IPv6
    view drops IPv4 addresses, but the overlay still rides the IPv4 underlay: app02 (the other rack) is reached
    over IPv6 exactly as over IPv4 (the tunnels are judged on the design's IPv4 view, ``Network.tep_net``)."""
    from vnetbench.model.families import interfaces

    design = load(resources_dir() / "examples" / "nsx-t-t1-t0.vnet.yaml")
    for part in interfaces(design):
        if part.ip and "." in part.ip:
            part.addresses.append(_mapped(part.ip))
        if getattr(part, "gateway", None):
            part.gateway6 = _mapped(part.gateway)
    for owner in [*design.physical_routers, *design.nsx.dlrs, *(vm.forwarding for vm in design.vms)]:
        owner.routes += [type(r)(**{**vars(r), "prefix": r.prefix if r.prefix == "default" else _mapped(r.prefix),
                                    "via": _mapped(r.via)}) for r in owner.routes if "." in (r.via or "")]
    four, six = Engine(design, 4), Engine(design, 6)
    assert_matrix_is_the_walk(six, "nsx-t ipv6")
    app02 = next(vm.id for vm in design.vms if vm.name == "app02")
    pairs = [(a, b) for a, b, _ in four.matrix().rows() if app02 in (a, b) and a != b]
    assert pairs and all(six.matrix().verdict(a, b) is four.matrix().verdict(a, b) for a, b in pairs)
    assert any(four.matrix().verdict(a, b).delivered for a, b in pairs)
