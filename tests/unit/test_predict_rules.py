"""One case for every forwarding rule of SEMANTICS.md sections 2-4."""

from __future__ import annotations

from builders import Action, DfwRule, Design, ForwardMode, HostKind, MacvtapMode, Rule, SwitchKind, Verdict, esx_pair

from vnetbench.model.objects import DlrInterface, Proto, Uplink


def test_untagged_access_port_meets_tagged_portgroup_across_a_trunk():
    d = Design()
    sw1, sw2 = d.pswitch("sw1"), d.pswitch("sw2")
    h1, h2 = d.host("esx1"), d.host("esx2")
    a_sw = d.switch(h1, "vSwitch0", ["esx1.vmnic0"])
    b_sw = d.switch(h2, "vSwitch0", ["esx2.vmnic0"])
    d.plug(sw1, "esx1.vmnic0", vlan=20)                       # access port in VLAN 20
    d.plug(sw2, "esx2.vmnic0", trunk=True, allowed="1,20")    # trunk
    d.cable(d.port(sw1, "up", trunk=True, allowed="20").id, d.port(sw2, "up", trunk=True, allowed="20").id)
    d.vm("a", h1, d.pg(a_sw, "none", 0), "10.0.20.1/24")
    d.vm("b", h2, d.pg(b_sw, "v20", 20), "10.0.20.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    assert "sw1 VLAN 20" in p.forward.segments and "sw2 VLAN 20" in p.forward.segments


def test_tagged_portgroup_on_access_port_is_dropped_naming_the_port():
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
    assert any("port p1 of sw1 is an access port in VLAN 10" in r for r in p.reasons)


def test_vlan_missing_from_one_trunk_of_a_chain_is_unreachable():
    d = Design()
    sws = [d.pswitch(f"sw{i}") for i in (1, 2, 3)]
    d.cable(d.port(sws[0], "t", trunk=True).id, d.port(sws[1], "t1", trunk=True).id)
    d.cable(d.port(sws[1], "t2", trunk=True, allowed="10").id, d.port(sws[2], "t", trunk=True).id)
    h1, h3 = d.host("esx1"), d.host("esx3")
    s1, s3 = d.switch(h1, "vSwitch0", ["esx1.vmnic0"]), d.switch(h3, "vSwitch0", ["esx3.vmnic0"])
    d.plug(sws[0], "esx1.vmnic0", trunk=True)
    d.plug(sws[2], "esx3.vmnic0", trunk=True)
    for v in (10, 20):
        d.vm(f"a{v}", h1, d.pg(s1, f"v{v}", v), f"10.0.{v}.1/24")
        d.vm(f"b{v}", h3, d.pg(s3, f"v{v}", v), f"10.0.{v}.2/24")
    assert d.verdict("a10", "b10") is Verdict.VIA_PHYSICAL
    p = d.predict("a20", "b20")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("port t2 of sw2 does not allow VLAN 20" in r for r in p.reasons)


def test_teaming_uses_standby_only_when_the_active_uplink_is_down():
    d = Design()
    ps = d.pswitch("sw1")
    h1, h2 = d.host("esx1"), d.host("esx2")
    s1 = d.switch(h1, "vSwitch0", ["esx1.vmnic0"], standby=("esx1.vmnic1",))
    s2 = d.switch(h2, "vSwitch0", ["esx2.vmnic0"])
    for pnic in ("esx1.vmnic0", "esx1.vmnic1", "esx2.vmnic0"):
        d.plug(ps, pnic, trunk=True)
    d.vm("a", h1, d.pg(s1, "v10", 10), "10.0.10.1/24")
    d.vm("b", h2, d.pg(s2, "v10", 10), "10.0.10.2/24")
    assert d.predict("a", "b").forward.pnics[0] == "esx1.vmnic0"
    h1.pnics[0].up = False
    p = d.predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    assert p.forward.pnics[0] == "esx1.vmnic1"
    h1.pnics[1].up = False
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("every uplink of vSwitch0 is down" in r for r in p.reasons)


def _macvtap(mode: MacvtapMode, hairpin: bool) -> Design:
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("kvm1", kind=HostKind.KVM)
    mv = d.switch(h, "macvtap0", ["kvm1.vmnic0"], kind=SwitchKind.MACVTAP, macvtap_mode=mode)
    port = d.plug(ps, "kvm1.vmnic0", hairpin=hairpin)
    d.vm("a", h, mv, "10.0.0.1/24", nic_type="virtio")
    d.vm("b", h, mv, "10.0.0.2/24", nic_type="virtio")
    d.phost("server", d.port(ps, "srv"), "10.0.0.9/24")
    assert port
    return d


def test_macvtap_private_never_reaches_a_neighbour_even_with_hairpin():
    d = _macvtap(MacvtapMode.PRIVATE, hairpin=True)
    assert d.verdict("a", "b") is Verdict.UNREACHABLE
    assert d.verdict("a", "server") is Verdict.VIA_PHYSICAL


def test_macvtap_bridge_mode_is_in_host_and_vepa_reaches_the_wire():
    assert _macvtap(MacvtapMode.BRIDGE, hairpin=False).verdict("a", "b") is Verdict.IN_HOST
    assert _macvtap(MacvtapMode.VEPA, hairpin=False).verdict("a", "server") is Verdict.VIA_PHYSICAL


def test_hosted_nat_reaches_out_but_not_in():
    d = Design()
    ps = d.pswitch("lan")
    h = d.host("laptop", pnics=1, kind=HostKind.HOSTED)
    d.plug(ps, "laptop.vmnic0")
    nat = d.switch(h, "vmnet8", kind=SwitchKind.HOSTED_NAT, nat_gateway="192.168.8.2")
    d.vm("guest", h, nat, "192.168.8.10/24", "192.168.8.2", nic_type="e1000")
    d.vm("guest2", h, nat, "192.168.8.11/24", "192.168.8.2", nic_type="e1000")
    d.phost("nas", d.port(ps, "nas"), "10.1.1.5/24")
    out = d.predict("guest", "nas")
    assert out.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert "vmnet8 NAT" in out.forward.routed_by
    back = d.predict("nas", "guest")
    assert back.verdict is Verdict.UNREACHABLE
    assert any("NAT" in r for r in back.reasons)
    assert d.verdict("guest", "guest2") is Verdict.IN_HOST


def test_hosted_hostonly_stays_in_the_host_and_bridged_joins_the_lan():
    d = Design()
    ps = d.pswitch("lan")
    h = d.host("pc", pnics=1, kind=HostKind.HOSTED)
    d.plug(ps, "pc.vmnic0")
    only = d.switch(h, "vmnet1", kind=SwitchKind.HOSTED_HOSTONLY)
    bridged = d.switch(h, "vmnet0", kind=SwitchKind.HOSTED_BRIDGED)
    d.vm("a", h, only, "192.168.1.10/24")
    d.vm("b", h, only, "192.168.1.11/24")
    d.vm("c", h, bridged, "10.1.1.20/24")
    d.phost("nas", d.port(ps, "nas"), "10.1.1.5/24")
    assert d.verdict("a", "b") is Verdict.IN_HOST
    assert d.verdict("c", "nas") is Verdict.VIA_PHYSICAL
    assert d.verdict("a", "nas") is Verdict.UNREACHABLE


def _dfw_design(rules, default=Action.ALLOW) -> Design:
    d, (h1, h2), (s1, s2), _ = esx_pair()
    d.vm("a", h1, s1.portgroups[0], "10.0.10.1/24")
    d.vm("b", h2, s2.portgroups[0], "10.0.10.2/24")
    d.dfw(rules, default)
    return d


def test_dfw_applies_at_the_source_vnic_going_out():
    d = _dfw_design([DfwRule(Action.DENY, "a", "any", name="a-out", applied_to=["a"])])
    p = d.predict("a", "b")
    assert p.verdict is Verdict.BLOCKED
    assert any("DFW at a/eth0 (out)" in r for r in p.forward.rules)


def test_dfw_applies_at_the_destination_vnic_coming_in():
    d = _dfw_design([DfwRule(Action.DENY, "any", "b", Proto.TCP, 22, name="no-ssh", applied_to=["b"])])
    p = d.predict("a", "b", "tcp", 22)
    assert p.verdict is Verdict.BLOCKED
    assert any("DFW at b/eth0 (in): rule 'no-ssh'" in r for r in p.forward.rules)
    assert d.verdict("a", "b", "tcp", 443) is Verdict.VIA_PHYSICAL
    assert d.verdict("b", "a", "udp", 22) is Verdict.VIA_PHYSICAL  # only traffic towards b is filtered


def test_dfw_default_deny_and_replies_stateful_versus_stateless():
    d = _dfw_design([DfwRule(Action.ALLOW, "10.0.10.1/32", "any")], Action.DENY)
    assert d.verdict("a", "b", "udp") is Verdict.VIA_PHYSICAL   # only a may start flows
    assert d.verdict("b", "a", "udp") is Verdict.BLOCKED
    assert d.verdict("a", "b", "tcp", 80) is Verdict.VIA_PHYSICAL  # the stateful DFW lets the reply back
    d.t.nsx.dfw.stateful = False
    p = d.predict("a", "b", "tcp", 80)
    assert p.forward.verdict is Verdict.VIA_PHYSICAL
    assert p.reverse.verdict is Verdict.BLOCKED                 # a stateless DFW judges the reply by its rules
    assert p.verdict is Verdict.BLOCKED


def test_bridged_firewall_needs_promiscuous_and_forged_transmits():
    def build(promiscuous: bool) -> Design:
        d = Design()
        h = d.host("esx1")
        sw = d.switch(h, "vSwitch0")
        outside = d.pg(sw, "outside", 10, promiscuous=promiscuous)
        inside = d.pg(sw, "inside", 11, promiscuous=promiscuous)
        d.fw("fw1", h, [(outside, None), (inside, None)], mode=ForwardMode.BRIDGED,
             rules=[Rule(Action.DENY, "any", "any", Proto.TCP, 23, "no-telnet")])
        d.vm("a", h, outside, "10.0.0.1/24")
        d.vm("b", h, inside, "10.0.0.2/24")
        return d

    p = build(False).predict("a", "b")
    assert p.verdict is Verdict.BLOCKED
    assert any("security policy" in r for r in p.reasons)
    ok = build(True)
    p = ok.predict("a", "b")
    assert p.verdict is Verdict.IN_HOST
    assert "fw1" in [h.name for h in p.forward.hops if h.kind == "firewall"]
    assert ok.verdict("a", "b", "tcp", 23) is Verdict.BLOCKED


def test_gateway_outside_the_subnet_is_unreachable():
    d, (h1, _), (s1, _), ps = esx_pair(vlans=(10, 20))
    trunk = d.port(ps, "r", trunk=True)
    d.router("r1", [(trunk, "10.0.10.254/24", 10), (trunk, "10.0.20.254/24", 20)])
    d.vm("a", h1, s1.portgroups[0], "10.0.10.1/24", "10.0.99.254")
    d.vm("b", h1, s1.portgroups[1], "10.0.20.1/24", "10.0.20.254")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("gateway 10.0.99.254 is outside its subnet" in r for r in p.reasons)


def test_no_gateway_and_different_subnets_is_unreachable():
    d, (h1, _), (s1, _), _ = esx_pair()
    d.vm("a", h1, s1.portgroups[0], "10.0.1.1/24")
    d.vm("b", h1, s1.portgroups[0], "10.0.2.1/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("no default gateway" in r for r in p.reasons)


def _asymmetric() -> Design:
    d, (h1, _), (s1, _), ps = esx_pair(vlans=(10, 20))
    pg10, pg20 = s1.portgroups
    d.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")], stateful=True)
    trunk = d.port(ps, "r", trunk=True)
    d.router("r1", [(trunk, "10.0.10.1/24", 10), (trunk, "10.0.20.1/24", 20)])
    d.vm("a", h1, pg10, "10.0.10.5/24", "10.0.10.254")   # out through the firewall
    d.vm("b", h1, pg20, "10.0.20.5/24", "10.0.20.1")     # back through the router
    return d


def test_stateful_firewall_with_asymmetric_return_blocks_tcp():
    d = _asymmetric()
    p = d.predict("a", "b", "tcp", 80)
    assert p.forward.verdict is Verdict.IN_HOST_ROUTED
    assert p.reverse.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert p.verdict is Verdict.BLOCKED
    assert any("asymmetric" in r for r in p.reasons)
    assert d.verdict("a", "b", "udp", 53) is Verdict.IN_HOST_ROUTED


def test_firewall_rules_first_match_then_default_policy():
    d, (h1, _), (s1, _), _ = esx_pair(vlans=(10, 20))
    pg10, pg20 = s1.portgroups
    d.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")],
         rules=[Rule(Action.ALLOW, "10.0.10.0/24", "10.0.20.0/24", Proto.TCP, 443, "web"),
                Rule(Action.DENY, "any", "any", Proto.TCP, "400-500", "block-range")], default=Action.ALLOW)
    d.vm("a", h1, pg10, "10.0.10.5/24", "10.0.10.254")
    d.vm("b", h1, pg20, "10.0.20.5/24", "10.0.20.254")
    assert d.verdict("a", "b", "tcp", 443) is Verdict.IN_HOST_ROUTED
    p = d.predict("a", "b", "tcp", 444)
    assert p.verdict is Verdict.BLOCKED
    assert p.forward.rules == ("fw1: rule 'block-range' (drop tcp/400-500 any -> any)",)   # an old deny is a drop
    assert d.verdict("a", "b") is Verdict.IN_HOST_ROUTED


def test_vds_same_portgroup_on_two_hosts_is_via_physical():
    d = Design()
    ps = d.pswitch("sw1")
    h1, h2 = d.host("esx1"), d.host("esx2")
    vds = d.switch(None, "dvs1", ["esx1.vmnic0", "esx2.vmnic0"], kind=SwitchKind.VDS, members=[h1, h2])
    for pnic in ("esx1.vmnic0", "esx2.vmnic0"):
        d.plug(ps, pnic, trunk=True)
    pg = d.pg(vds, "dv-10", 10)
    d.vm("a", h1, pg, "10.0.10.1/24")
    d.vm("b", h2, pg, "10.0.10.2/24")
    d.vm("c", h1, pg, "10.0.10.3/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    assert p.forward.segments == ("esx1/dvs1 VLAN 10", "sw1 VLAN 10", "esx2/dvs1 VLAN 10")
    assert d.verdict("a", "c") is Verdict.IN_HOST


def test_guest_tagging_on_a_trunk_portgroup_joins_that_vlan():
    d, (h1, _), (s1, _), _ = esx_pair()
    trunk = d.pg(s1, "all", 4095)
    d.vm("tagger", h1, trunk, "10.0.10.7/24", guest_vlan=10)
    d.vm("plain", h1, s1.portgroups[0], "10.0.10.8/24")
    d.vm("untagged", h1, trunk, "10.0.10.9/24")
    assert d.verdict("tagger", "plain") is Verdict.IN_HOST
    p = d.predict("untagged", "plain")     # untagged frames join the VLAN none segment (native VLAN 1 outside)
    assert p.verdict is Verdict.UNREACHABLE
    assert any("esx1/vSwitch0 untagged" in r for r in p.reasons)


def test_physical_host_endpoint_and_port_down():
    d, (h1, _), (s1, _), ps = esx_pair()
    srv_port = d.port(ps, "srv", vlan=10)
    d.phost("server", srv_port, "10.0.10.50/24")
    d.vm("a", h1, s1.portgroups[0], "10.0.10.1/24", nic_type="e1000")
    p = d.predict("a", "server")
    assert p.verdict is Verdict.VIA_PHYSICAL
    assert p.forward.hops[-1].kind == "host_nic"
    assert p.forward.estimate.bottleneck == "esx1/vmnic0"
    srv_port.up = False
    p = d.predict("a", "server")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("port srv of sw1 is down" in r for r in p.reasons)


def test_linux_bridge_on_a_vlan_subinterface_carries_that_vlan():
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("kvm1", kind=HostKind.KVM)
    br = d.switch(h, "br10", kind=SwitchKind.LINUX_BRIDGE)
    br.uplinks = [Uplink("kvm1.vmnic0", vlan=10)]
    d.plug(ps, "kvm1.vmnic0", trunk=True, allowed="10")
    d.vm("g", h, br, "10.0.10.3/24", nic_type="virtio")
    d.phost("server", d.port(ps, "srv", vlan=10), "10.0.10.50/24")
    assert d.verdict("g", "server") is Verdict.VIA_PHYSICAL


def test_unknown_endpoint_suggests_close_names():
    d, (h1, _), (s1, _), _ = esx_pair()
    d.vm("web01", h1, s1.portgroups[0], "10.0.10.1/24")
    try:
        d.predict("web1", "web01")
    except LookupError as exc:
        assert "web01" in str(exc)
    else:
        raise AssertionError("an unknown name must raise LookupError")


def test_hostonly_gateway_is_the_host_which_does_not_route():
    d = Design()
    ps = d.pswitch("lan")
    h = d.host("pc", pnics=1, kind=HostKind.HOSTED)
    d.plug(ps, "pc.vmnic0")
    only = d.switch(h, "vmnet1", kind=SwitchKind.HOSTED_HOSTONLY, host_address="192.168.1.1")
    d.vm("a", h, only, "192.168.1.10/24", "192.168.1.1")
    d.phost("nas", d.port(ps, "nas"), "10.1.1.5/24")
    p = d.predict("a", "nas")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("pc's own address on vmnet1" in r for r in p.reasons)


def test_vlan_backed_dlr_interface_on_a_distributed_portgroup():
    d = Design()
    ps = d.pswitch("sw1")
    h1, h2 = d.host("esx1"), d.host("esx2")
    for h in (h1, h2):
        d.plug(ps, f"{h.name}.vmnic0", trunk=True)
    vds = d.switch(None, "dvs", ["esx1.vmnic0", "esx2.vmnic0"], kind=SwitchKind.VDS, members=[h1, h2])
    web = d.switch(None, "web-ls", kind=SwitchKind.NSX_SEGMENT, members=[h1, h2])
    pg = d.pg(vds, "dv-30", 30)
    d.dlr("dlr1", [(web, "172.16.1.1/24")])
    d.t.nsx.dlrs[0].interfaces.append(DlrInterface("dlr1.lif9", "vlan30", pg.id, "10.30.0.1/24"))
    d.vm("web1", h1, web, "172.16.1.10/24", "172.16.1.1")
    d.vm("db1", h1, pg, "10.30.0.5/24", "10.30.0.1")
    d.vm("db2", h2, pg, "10.30.0.6/24", "10.30.0.1")
    assert d.verdict("web1", "db1") is Verdict.IN_HOST_ROUTED
    assert d.verdict("web1", "db2") is Verdict.ROUTED_VIA_PHYSICAL


def test_same_subnet_in_two_vlans_names_where_each_lands():
    d, (h1, h2), (s1, s2), _ = esx_pair(vlans=(10, 20))
    d.vm("a", h1, s1.portgroups[0], "10.0.0.1/24")
    d.vm("b", h2, s2.portgroups[1], "10.0.0.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert p.reasons[-1] == "esx1/vSwitch0 VLAN 10 reaches sw1 VLAN 10 but esx2/vSwitch0 VLAN 20 reaches sw1 VLAN 20."
