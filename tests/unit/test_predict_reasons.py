"""The plain-language reasons: every decision of the walk leaves a sentence naming objects by name.

Each SEMANTICS.md section-6 case and each special rule is checked for the facts an admin needs (the subnet
and gateway, the uplink and its role, why the frame leaves the host, the router, the rule that matched, the
hairpin, the standby uplink), not for whole sentences.
"""

from __future__ import annotations

import re

from builders import Action, DfwRule, Design, ForwardMode, HostKind, MacvtapMode, Rule, SwitchKind, Verdict, esx_pair

from vnetbench import resources_dir
from vnetbench.cli.main import main
from vnetbench.model import load
from vnetbench.model.objects import Proto
from vnetbench.predict import Engine, Prediction

FOUR = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"


def story(p: Prediction) -> str:
    return " ".join(p.reasons)


def has(text: str, *facts: str) -> None:
    missing = [f for f in facts if f not in text]
    assert not missing, f"{missing} not in: {text}"


def in_order(text: str, *facts: str) -> None:
    """The facts appear in this order (the sentences follow the walk)."""
    at = [text.find(f) for f in facts]
    assert -1 not in at and at == sorted(at), f"{facts} not in order in: {text}"


def no_ids(p: Prediction, design: Design) -> None:
    """Reasons name objects by name: no vNIC, pNIC, port or portgroup id of the design appears."""
    t = design.t
    ids = [n.id for h in t.hosts for n in h.pnics] + [pg.id for s in t.switches for pg in s.portgroups]
    ids += [p.id for s in t.physical_switches for p in s.ports] + [n.id for vm in t.vms for n in vm.vnics]
    text = story(p) + " ".join(p.reverse.reasons)
    assert not [i for i in ids if re.search(rf"(?<![\w/]){re.escape(i)}(?![\w])", text)], text


# --- SEMANTICS.md section 6 -----------------------------------------------------------------------------


def test_same_portgroup_names_subnet_portgroup_switch_and_host():
    d, (h1, _), (sw1, _), _ = esx_pair()
    pg = sw1.portgroups[0]
    d.vm("a", h1, pg, "10.0.10.1/24")
    d.vm("b", h1, pg, "10.0.10.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.IN_HOST
    has(story(p), "10.0.10.0/24", "portgroup VLAN10", "vSwitch0", "VLAN 10", "without leaving esx1")
    no_ids(p, d)


def test_two_portgroups_same_vlan_are_one_segment():
    d, (h1, _), (sw1, _), _ = esx_pair()
    other = d.pg(sw1, "VLAN10-bis", 10)
    d.vm("a", h1, sw1.portgroups[0], "10.0.10.1/24")
    d.vm("b", h1, other, "10.0.10.2/24")
    p = d.predict("a", "b")
    has(story(p), "VLAN10", "VLAN10-bis", "VLAN 10", "one segment", "without leaving esx1")


def router_on_a_stick() -> tuple[Prediction, Design]:
    """a (VLAN 10) to b (VLAN 20) on one host, routed by r1 on one trunk port of the switch."""
    d, (h1, _), (sw1, _), ps = esx_pair(vlans=(10, 20))
    trunk = d.port(ps, "gi0/24", trunk=True)
    d.router("r1", [(trunk, "10.0.10.254/24", 10), (trunk, "10.0.20.254/24", 20)])
    d.vm("a", h1, sw1.portgroups[0], "10.0.10.1/24", "10.0.10.254")
    d.vm("b", h1, sw1.portgroups[1], "10.0.20.1/24", "10.0.20.254")
    return d.predict("a", "b"), d


def test_physical_router_says_subnet_gateway_uplink_router_and_the_routed_u_turn():
    p, d = router_on_a_stick()
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
    text = story(p)
    has(text, "outside a's subnet 10.0.10.0/24", "gateway 10.0.10.254", "r1's interface if0", "outside the host",
        "vmnic0, vSwitch0's active uplink", "tagged VLAN 10", "r1 routes it from VLAN 10 to VLAN 20",
        "r1 routes it from VLAN 10 to VLAN 20; sw1 sends the routed frame back out of p1, the port the frame came "
        "in on: a routed frame is a new frame", "portgroup VLAN20 delivers it to b")
    # the u-turn is the switch's (the router sends on its own interface): never the router "back out of" a port
    assert "r1 routes it from VLAN 10 to VLAN 20 and sends it back" not in text
    in_order(text, "outside a's subnet", "vmnic0", "routes it", "delivers it to b")
    no_ids(p, d)


def test_firewall_vm_in_host_names_its_legs_and_the_rule_that_matched():
    d, (h1, _), (sw1, _), _ = esx_pair(vlans=(10, 20))
    pg10, pg20 = sw1.portgroups
    d.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")],
         rules=[Rule(Action.ALLOW, "any", "any", Proto.TCP, 80, "allow-web")], default=Action.DENY)
    d.vm("a", h1, pg10, "10.0.10.1/24", "10.0.10.254")
    d.vm("b", h1, pg20, "10.0.20.1/24", "10.0.20.254")
    p = d.predict("a", "b", "tcp", 80)
    assert p.verdict is Verdict.IN_HOST_ROUTED
    text = story(p)
    has(text, "gateway 10.0.10.254", "fw1's leg eth0", "fw1 has legs in VLAN 10 and VLAN 20 on esx1",
        "inside the host", "rule 'allow-web' (allow tcp/80", "matches", "delivers it to b")
    assert "vmnic" not in text                  # nothing leaves the host
    back = " ".join(p.reverse.reasons)
    has(back, "fw1", "the reply passes on the connection's state")


def test_different_vswitches_say_why_the_frame_leaves_and_how_it_comes_back():
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("esx1")
    sw0 = d.switch(h, "vSwitch0", ["esx1.vmnic0"])
    sw1 = d.switch(h, "vSwitch1", ["esx1.vmnic1"])
    d.plug(ps, "esx1.vmnic0", trunk=True)
    d.plug(ps, "esx1.vmnic1", trunk=True)
    d.vm("a", h, d.pg(sw0, "A", 30), "10.0.0.1/24")
    d.vm("b", h, d.pg(sw1, "B", 30), "10.0.0.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    text = story(p)
    has(text, "10.0.0.0/24", "VLAN 30", "vSwitch0", "vSwitch1", "never link to each other",
        "vmnic0, vSwitch0's active uplink", "crosses sw1 in VLAN 30", "comes back in through vmnic1")
    in_order(text, "vmnic0", "sw1", "vmnic1", "delivers it to b")


def test_vswitch_without_uplinks_keeps_the_failure_after_the_decision():
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("esx1")
    d.plug(ps, "esx1.vmnic0")
    d.vm("a", h, d.pg(d.switch(h, "vSwitch0", ["esx1.vmnic0"]), "A", 0), "10.0.0.1/24")
    d.vm("b", h, d.pg(d.switch(h, "vSwitch2"), "B", 0), "10.0.0.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    has(p.reasons[0], "inside a's subnet 10.0.0.0/24")
    has(p.reasons[-1], "vSwitch2 has no uplink")


def test_same_vlan_different_subnets_names_both_subnets_and_the_router():
    d, (h1, _), (sw1, _), ps = esx_pair()
    trunk = d.port(ps, "gi0/24", trunk=True)
    d.router("r1", [(trunk, "10.0.1.254/24", 10), (trunk, "10.0.2.254/24", 10)])
    pg = sw1.portgroups[0]
    d.vm("a", h1, pg, "10.0.1.1/24", "10.0.1.254")
    d.vm("b", h1, pg, "10.0.2.1/24", "10.0.2.254")
    p = d.predict("a", "b")
    has(story(p), "outside a's subnet 10.0.1.0/24", "r1 routes it from 10.0.1.0/24 to 10.0.2.0/24", "vmnic0")


def _macvtap(mode: MacvtapMode, hairpin: bool) -> Design:
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("kvm1", kind=HostKind.KVM)
    mv = d.switch(h, "macvtap0", ["kvm1.vmnic0"], kind=SwitchKind.MACVTAP, macvtap_mode=mode)
    d.plug(ps, "kvm1.vmnic0", hairpin=hairpin)
    d.vm("a", h, mv, "10.0.0.1/24", nic_type="virtio")
    d.vm("b", h, mv, "10.0.0.2/24", nic_type="virtio")
    return d


def test_macvtap_vepa_names_the_pnic_and_the_hairpin():
    p = _macvtap(MacvtapMode.VEPA, hairpin=True).predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    has(story(p), "VEPA mode sends every frame out of vmnic0", "port p1 of sw1 has hairpin on",
        "reflects it back", "macvtap0 delivers it to b")
    without = _macvtap(MacvtapMode.VEPA, hairpin=False).predict("a", "b")
    has(without.reasons[-1], "p1", "no hairpin")


def test_macvtap_bridge_mode_stays_in_the_host():
    p = _macvtap(MacvtapMode.BRIDGE, hairpin=False).predict("a", "b")
    has(story(p), "macvtap macvtap0 in bridge mode", "without leaving kvm1")


def _nsx() -> Design:
    d = Design()
    ps = d.pswitch("sw1")
    h1, h2 = d.host("esx1"), d.host("esx2")
    for h in (h1, h2):
        d.plug(ps, f"{h.name}.vmnic0", trunk=True)
    web = d.switch(None, "web-ls", kind=SwitchKind.NSX_SEGMENT, members=[h1, h2])
    app = d.switch(None, "app-ls", kind=SwitchKind.NSX_SEGMENT, members=[h1, h2])
    d.dlr("dlr1", [(web, "172.16.1.1/24"), (app, "172.16.2.1/24")])
    d.vm("web1", h1, web, "172.16.1.10/24", "172.16.1.1")
    d.vm("app1", h1, app, "172.16.2.10/24", "172.16.2.1")
    d.vm("app2", h2, app, "172.16.2.11/24", "172.16.2.1")
    return d


def test_dlr_same_host_routes_in_the_kernel():
    p = _nsx().predict("web1", "app1")
    assert p.verdict is Verdict.IN_HOST_ROUTED
    has(story(p), "gateway 172.16.1.1", "dlr1", "esx1's kernel", "routing does not leave esx1",
        "from 172.16.1.0/24 to 172.16.2.0/24")


def test_dlr_other_host_crosses_the_overlay():
    p = _nsx().predict("web1", "app2")
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
    text = story(p)
    has(text, "esx1's kernel", "(Geneve)", "app-ls", "transport pNIC vmnic0", "esx2 takes it in on vmnic0",
        "delivers it to app2")
    in_order(text, "dlr1 routes", "encapsulates", "esx2 takes it in")


# --- special rules ------------------------------------------------------------------------------------------


def _teaming() -> tuple[Design, object]:
    d = Design()
    ps = d.pswitch("sw1")
    h1, h2 = d.host("esx1"), d.host("esx2")
    s1 = d.switch(h1, "vSwitch0", ["esx1.vmnic0"], standby=("esx1.vmnic1",))
    s2 = d.switch(h2, "vSwitch0", ["esx2.vmnic0"])
    for pnic in ("esx1.vmnic0", "esx1.vmnic1", "esx2.vmnic0"):
        d.plug(ps, pnic, trunk=True)
    d.vm("a", h1, d.pg(s1, "v10", 10), "10.0.10.1/24")
    d.vm("b", h2, d.pg(s2, "v10", 10), "10.0.10.2/24")
    return d, h1


def test_teaming_names_the_active_uplink_and_the_standby_taking_over():
    d, h1 = _teaming()
    text = story(d.predict("a", "b"))
    has(text, "vmnic0, vSwitch0's active uplink", "run on different hosts (esx1, esx2)", "enters esx2 through vmnic0")
    assert "standby" not in text
    h1.pnics[0].up = False
    text = story(d.predict("a", "b"))
    has(text, "vmnic0 (active) is down, so vSwitch0 uses its standby uplink vmnic1",
        "vmnic1, vSwitch0's standby uplink")
    in_order(text, "is down", "standby uplink vmnic1", "enters esx2")


def test_teaming_words_an_uplink_fault_from_its_data_whatever_the_names():
    """The words come from the fault's data (``Fabric.uplink_fault``), not from another sentence, so names with
    spaces do not change them."""
    d, h1 = _teaming()
    h1.name = "esx 1 (rack A)"
    h1.pnics[0].up = False
    has(story(d.predict("a", "b")), "vmnic0 (active) is down, so vSwitch0 uses its standby uplink vmnic1")
    h1.pnics[0].up = True
    d.t.physical_switches[0].name = "core sw"
    d.t.physical_switches[0].ports[0].up = False
    has(story(d.predict("a", "b")),
        "vmnic0 (active) plugs into port p1 of core sw, which is down, so vSwitch0 uses its standby uplink vmnic1")


def test_untagged_portgroup_on_a_trunk_port_joins_the_native_vlan():
    d, (h1, h2), (s1, s2), ps = esx_pair()
    d.vm("a", h1, d.pg(s1, "none", 0), "10.0.1.1/24")
    d.vm("b", h2, d.pg(s2, "none", 0), "10.0.1.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    has(story(p), "untagged", "trunk port p1 carries in its native VLAN 1")


def test_untagged_portgroup_on_an_access_port_joins_its_vlan():
    d = Design()
    ps = d.pswitch("sw1")
    h1, h2 = d.host("esx1"), d.host("esx2")
    s1, s2 = d.switch(h1, "vSwitch0", ["esx1.vmnic0"]), d.switch(h2, "vSwitch0", ["esx2.vmnic0"])
    d.plug(ps, "esx1.vmnic0", vlan=20)
    d.plug(ps, "esx2.vmnic0", trunk=True)
    d.vm("a", h1, d.pg(s1, "none", 0), "10.0.20.1/24")
    d.vm("b", h2, d.pg(s2, "v20", 20), "10.0.20.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    has(story(p), "untagged, into access port p1's VLAN 20", "enters esx2 through vmnic0")


def test_access_port_drops_a_tagged_frame_after_the_l3_decision():
    d = Design()
    ps = d.pswitch("sw1")
    h1, h2 = d.host("esx1"), d.host("esx2")
    s1, s2 = d.switch(h1, "vSwitch0", ["esx1.vmnic0"]), d.switch(h2, "vSwitch0", ["esx2.vmnic0"])
    d.plug(ps, "esx1.vmnic0", vlan=10)
    d.plug(ps, "esx2.vmnic0", trunk=True)
    d.vm("a", h1, d.pg(s1, "v10", 10), "10.0.10.1/24")
    d.vm("b", h2, d.pg(s2, "v10", 10), "10.0.10.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    has(p.reasons[0], "10.0.10.0/24")
    has(p.reasons[-1], "port p1 of sw1 is an access port in VLAN 10", "tagged VLAN 10")


def test_trunk_chain_names_every_switch_and_the_trunk():
    d = Design()
    sws = [d.pswitch(f"sw{i}") for i in (1, 2)]
    d.cable(d.port(sws[0], "t", trunk=True).id, d.port(sws[1], "t1", trunk=True).id)
    h1, h3 = d.host("esx1"), d.host("esx3")
    s1, s3 = d.switch(h1, "vSwitch0", ["esx1.vmnic0"]), d.switch(h3, "vSwitch0", ["esx3.vmnic0"])
    d.plug(sws[0], "esx1.vmnic0", trunk=True)
    d.plug(sws[1], "esx3.vmnic0", trunk=True)
    d.vm("a", h1, d.pg(s1, "v10", 10), "10.0.10.1/24")
    d.vm("b", h3, d.pg(s3, "v10", 10), "10.0.10.2/24")
    has(story(d.predict("a", "b")), "crosses sw1 and sw2 in VLAN 10 over the trunk t/t1")


def test_bridged_firewall_names_itself_its_segments_and_the_rule():
    def build(promiscuous: bool) -> Design:
        d = Design()
        h = d.host("esx1")
        sw = d.switch(h, "vSwitch0")
        outside = d.pg(sw, "outside", 10, promiscuous=promiscuous)
        inside = d.pg(sw, "inside", 11, promiscuous=promiscuous)
        d.fw("fw1", h, [(outside, None), (inside, None)], mode=ForwardMode.BRIDGED,
             rules=[Rule(Action.ALLOW, "any", "any", Proto.TCP, 80, "web")], default=Action.DENY)
        d.vm("a", h, outside, "10.0.0.1/24")
        d.vm("b", h, inside, "10.0.0.2/24")
        return d

    p = build(True).predict("a", "b", "tcp", 80)
    assert p.verdict is Verdict.IN_HOST
    has(story(p), "bridged firewall fw1 joins esx1/vSwitch0 VLAN 10 and esx1/vSwitch0 VLAN 11",
        "promiscuous mode", "rule 'web' (allow tcp/80", "portgroup inside delivers it to b")
    blocked = build(False).predict("a", "b", "tcp", 80)
    has(blocked.reasons[-1], "security policy", "portgroup outside rejects promiscuous mode")


def test_dfw_sentences_name_the_vnic_direction_and_rule():
    d, (h1, h2), (s1, s2), _ = esx_pair()
    d.vm("a", h1, s1.portgroups[0], "10.0.10.1/24")
    d.vm("b", h2, s2.portgroups[0], "10.0.10.2/24")
    d.dfw([DfwRule(Action.ALLOW, "any", "b", Proto.TCP, 443, name="https-in")], Action.DENY)
    p = d.predict("a", "b", "tcp", 443)
    assert p.verdict is Verdict.VIA_PHYSICAL
    text = story(p)
    has(text, "checks a/eth0 on the way out", "checks b/eth0 on the way in", "rule 'https-in' (allow tcp/443")
    in_order(text, "on the way out", "enters esx2", "on the way in")


def test_hosted_nat_says_it_translates_and_leaves_through_the_host():
    d = Design()
    ps = d.pswitch("lan")
    h = d.host("laptop", pnics=1, kind=HostKind.HOSTED)
    d.plug(ps, "laptop.vmnic0")
    nat = d.switch(h, "vmnet8", kind=SwitchKind.HOSTED_NAT, nat_gateway="192.168.8.2")
    d.vm("guest", h, nat, "192.168.8.10/24", "192.168.8.2", nic_type="e1000")
    d.phost("nas", d.port(ps, "nas"), "10.1.1.5/24")
    d.phost("gw", d.port(ps, "gw"), "10.1.1.1/24")
    p = d.predict("guest", "nas")
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
    has(story(p), "gateway 192.168.8.2", "vmnet8 NAT", "translates the source address", "laptop",
        "lan delivers it to nas on port nas")
    has(" ".join(p.reverse.reasons), "connection tracking")


def test_asymmetric_return_says_which_way_the_reply_goes():
    d, (h1, _), (s1, _), ps = esx_pair(vlans=(10, 20))
    pg10, pg20 = s1.portgroups
    d.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")], stateful=True)
    trunk = d.port(ps, "r", trunk=True)
    d.router("r1", [(trunk, "10.0.10.1/24", 10), (trunk, "10.0.20.1/24", 20)])
    d.vm("a", h1, pg10, "10.0.10.5/24", "10.0.10.254")
    d.vm("b", h1, pg20, "10.0.20.5/24", "10.0.20.1")
    p = d.predict("a", "b", "tcp", 80)
    assert p.verdict is Verdict.BLOCKED
    text = story(p)
    has(text, "fw1 has legs in VLAN 10 and VLAN 20", "The request passes fw1, but the reply goes through r1",
        "asymmetric")
    in_order(text, "fw1 has legs", "the reply goes through r1", "asymmetric")


def test_reply_failure_follows_the_forward_story():
    d, (h1, h2), (s1, s2), _ = esx_pair()
    d.vm("a", h1, s1.portgroups[0], "10.0.10.1/24")
    d.vm("b", h2, s2.portgroups[0], "10.0.10.2/24")
    d.dfw([DfwRule(Action.ALLOW, "10.0.10.1/32", "any")], Action.DENY)
    d.t.nsx.dfw.stateful = False
    p = d.predict("a", "b", "tcp", 80)
    assert p.verdict is Verdict.BLOCKED
    has(p.reasons[0], "a/eth0")
    has(p.reasons[-1], "the reply cannot come back", "b/eth0")


# --- where the sentences are built, and where not ---------------------------------------------------------


def test_matrix_and_what_if_walks_do_not_narrate():
    engine = Engine(load(FOUR))
    quiet = engine.walker.flow("vm-web01", "vm-db01")
    told = engine.predict("vm-web01", "vm-db01")
    assert quiet.verdict is told.verdict
    assert len(quiet.reasons) == 1 and "subnet" not in quiet.reasons[0]
    assert len(told.reasons) >= 4
    assert engine.matrix().prediction("vm-web01", "vm-db01").reasons == told.reasons


def test_examples_name_objects_never_ids():
    topology = load(FOUR)
    engine = Engine(topology)
    ids = {n.id for h in topology.hosts for n in h.pnics} | {vm.id for vm in topology.vms}
    ids |= {p.id for s in topology.physical_switches for p in s.ports}
    for a in ("web01", "bak01", "db01"):
        for b in ("web02", "app01", "db01", "bak01"):
            if a != b:
                text = " ".join(engine.predict(a, b).reasons)
                assert not [i for i in ids if i in text], text


def test_cli_lists_pnics_by_name_and_the_reasons_as_bullets(capsys):
    assert main(["predict", str(FOUR), "--from", "web01", "--to", "bak01"]) == 0
    out = capsys.readouterr().out
    assert "pNICs crossed: esx01/vmnic0, esx01/vmnic1" in out
    lines = out.splitlines()
    assert lines[1].startswith("  - web01 and bak01 share subnet 10.30.0.0/24")
    why = lines.index("  why:")
    assert lines[why + 1].startswith("    - bak01 and web01 share subnet")


def test_macvtap_private_mode_says_private_even_with_hairpin():
    p = _macvtap(MacvtapMode.PRIVATE, hairpin=True).predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    has(p.reasons[-1], "macvtap0 is in private mode", "never reach each other", "port p1 of sw1")


def test_static_route_names_the_next_hop_and_its_route():
    d, (h1, h2), (s1, s2), ps = esx_pair(vlans=(10, 20, 30))
    t = d.port(ps, "r", trunk=True)
    d.router("r1", [(t, "10.0.10.1/24", 10), (t, "10.0.20.1/24", 20)], routes=[("10.0.30.0/24", "10.0.20.2")])
    d.router("r2", [(t, "10.0.20.2/24", 20), (t, "10.0.30.1/24", 30)])
    d.vm("a", h1, s1.portgroups[0], "10.0.10.5/24", "10.0.10.1")
    d.vm("c", h2, s2.portgroups[2], "10.0.30.5/24", "10.0.30.1")
    text = story(d.predict("a", "c", "udp"))
    has(text, "next hop 10.0.20.2 (its route to 10.0.30.0/24)", "r2's interface if0", "r2 routes it from VLAN 20 "
        "to VLAN 30", "VLAN 30 reaches esx2's vSwitch0 through vmnic0")
    in_order(text, "r1 routes", "r2 routes", "delivers it to c")


def test_guest_tagging_on_a_trunk_portgroup_is_told():
    d, (h1, h2), (s1, s2), _ = esx_pair()
    d.vm("tagger", h1, d.pg(s1, "all", 4095), "10.0.10.7/24", guest_vlan=10)
    d.vm("plain", h2, s2.portgroups[0], "10.0.10.8/24")
    p = d.predict("tagger", "plain")
    assert p.verdict is Verdict.VIA_PHYSICAL
    has(p.reasons[0], "tagger tags its frames VLAN 10 itself on trunk portgroup all")


# --- exact wording (issue 11) ---------------------------------------------------------------------------------


def test_a_pnic_crossed_out_and_back_is_named_once():
    from vnetbench.predict.printer import pnic_names
    p, _ = router_on_a_stick()
    assert p.forward.pnics == ("esx1.vmnic0", "esx1.vmnic0")       # the data keeps both crossings
    assert pnic_names(p.forward) == ["esx1/vmnic0 (out and back)"]
    assert "pNICs crossed: esx1/vmnic0 (out and back)" in str(p)


def test_an_unreachable_pair_on_different_subnets_is_not_said_to_be_one_segment():
    from vnetbench.predict.printer import details
    d, (h1, _), (sw1, _), _ = esx_pair(vlans=(10, 20))
    d.vm("a", h1, sw1.portgroups[0], "10.0.10.1/24", "10.0.10.254")   # a gateway nobody owns
    d.vm("b", h1, sw1.portgroups[1], "10.0.20.1/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    text = str(p) + " ".join(f"{k}: {v}" for k, v in details(p))
    assert "one segment" not in text and "routed by: nothing" not in text and "routed by" not in dict(details(p))


def test_an_untagged_guest_on_a_trunk_portgroup_is_told_its_vlan_not_a_missing_uplink():
    d = Design()
    h = d.host("esx1")
    sw = d.switch(h, "vSwitch0")                                        # no uplink at all
    d.vm("guest", h, d.pg(sw, "all", 4095), "10.0.0.1/24")
    d.vm("web", h, d.pg(sw, "v10", 10), "10.0.0.2/24")
    p = d.predict("guest", "web")
    assert p.verdict is Verdict.UNREACHABLE
    first_cause = next(r for r in p.reasons if "guest/eth0" in r)
    assert "untagged frames on trunk portgroup all, so it is in VLAN none (untagged) of vSwitch0, not in VLAN 10" \
        in first_cause
    assert p.reasons.index(first_cause) < next(i for i, r in enumerate(p.reasons) if "no uplink" in r)
    assert "guest/eth0 sends untagged frames" in " ".join(d.predict("web", "guest").reasons)
