"""SEMANTICS.md section 6: the cases the seed articles make concrete, one test each."""

from __future__ import annotations

from builders import Design, MacvtapMode, SwitchKind, Verdict, esx_pair


def test_same_vswitch_same_portgroup_is_in_host():
    d, (h1, _), (sw1, _), _ = esx_pair()
    pg = sw1.portgroups[0]
    d.vm("a", h1, pg, "10.0.10.1/24")
    d.vm("b", h1, pg, "10.0.10.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.IN_HOST
    assert p.forward.pnics == ()
    assert [h.kind for h in p.forward.hops] == ["vnic", "portgroup", "switch", "portgroup", "vnic"]


def test_same_vswitch_two_portgroups_same_vlan_is_in_host():
    d, (h1, _), (sw1, _), _ = esx_pair()
    other = d.pg(sw1, "VLAN10-bis", 10)
    d.vm("a", h1, sw1.portgroups[0], "10.0.10.1/24")
    d.vm("b", h1, other, "10.0.10.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.IN_HOST
    assert len(set(p.forward.segments)) == 1
    assert p.forward.estimate.throughput_mbps == 20900  # as fast as the same portgroup: the vNIC is the limit


def test_different_vlans_physical_router_is_routed_via_physical():
    d, (h1, _), (sw1, _), ps = esx_pair(vlans=(10, 20))
    trunk = d.port(ps, "gi0/24", trunk=True)
    d.router("r1", [(trunk, "10.0.10.254/24", 10), (trunk, "10.0.20.254/24", 20)])
    d.vm("a", h1, sw1.portgroups[0], "10.0.10.1/24", "10.0.10.254")
    d.vm("b", h1, sw1.portgroups[1], "10.0.20.1/24", "10.0.20.254")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert p.forward.routed_by == ("r1",)
    assert p.forward.pnics == ("esx1.vmnic0", "esx1.vmnic0")  # out and back in the same pNIC, routed on a stick


def test_different_vlans_firewall_vm_on_host_is_in_host_routed():
    d, (h1, _), (sw1, _), _ = esx_pair(vlans=(10, 20))
    pg10, pg20 = sw1.portgroups
    d.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")])
    d.vm("a", h1, pg10, "10.0.10.1/24", "10.0.10.254")
    d.vm("b", h1, pg20, "10.0.20.1/24", "10.0.20.254")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.IN_HOST_ROUTED
    assert p.forward.routed_by == ("fw1",)
    assert p.forward.pnics == ()


def test_different_vswitches_same_vlan_one_physical_switch_is_via_physical():
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("esx1")
    sw0 = d.switch(h, "vSwitch0", ["esx1.vmnic0"])
    sw1 = d.switch(h, "vSwitch1", ["esx1.vmnic1"])
    d.plug(ps, "esx1.vmnic0", vlan=10)
    d.plug(ps, "esx1.vmnic1", vlan=10)
    d.vm("a", h, d.pg(sw0, "A", 0), "10.0.0.1/24")
    d.vm("b", h, d.pg(sw1, "B", 0), "10.0.0.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    assert p.forward.pnics == ("esx1.vmnic0", "esx1.vmnic1")
    assert p.forward.estimate.throughput_mbps == 920  # 92% of the 1 GbE line rate
    assert p.forward.estimate.bottleneck == "esx1/vmnic0"


def test_different_vswitches_one_without_uplinks_is_unreachable():
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("esx1")
    sw0 = d.switch(h, "vSwitch0", ["esx1.vmnic0"])
    sw2 = d.switch(h, "vSwitch2")
    d.plug(ps, "esx1.vmnic0")
    d.vm("a", h, d.pg(sw0, "A", 0), "10.0.0.1/24")
    d.vm("b", h, d.pg(sw2, "B", 0), "10.0.0.2/24")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("vSwitch2 has no uplink" in r for r in p.reasons)
    assert p.forward.estimate.throughput_mbps is None


def test_same_vlan_different_subnets_routed_by_physical_gateway_leaves_host():
    d, (h1, _), (sw1, _), ps = esx_pair()
    trunk = d.port(ps, "gi0/24", trunk=True)
    d.router("r1", [(trunk, "10.0.1.254/24", 10), (trunk, "10.0.2.254/24", 10)])
    pg = sw1.portgroups[0]
    d.vm("a", h1, pg, "10.0.1.1/24", "10.0.1.254")
    d.vm("b", h1, pg, "10.0.2.1/24", "10.0.2.254")
    p = d.predict("a", "b")
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert "esx1.vmnic0" in p.forward.pnics


def _macvtap(mode: MacvtapMode, hairpin: bool) -> Design:
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("kvm1")
    mv = d.switch(h, "macvtap0", ["kvm1.vmnic0"], kind=SwitchKind.MACVTAP, macvtap_mode=mode)
    d.plug(ps, "kvm1.vmnic0", hairpin=hairpin)
    d.vm("a", h, mv, "10.0.0.1/24", nic_type="virtio")
    d.vm("b", h, mv, "10.0.0.2/24", nic_type="virtio")
    return d


def test_macvtap_vepa_without_hairpin_is_unreachable():
    p = _macvtap(MacvtapMode.VEPA, hairpin=False).predict("a", "b")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("hairpin" in r for r in p.reasons)


def test_macvtap_vepa_with_hairpin_is_via_physical():
    p = _macvtap(MacvtapMode.VEPA, hairpin=True).predict("a", "b")
    assert p.verdict is Verdict.VIA_PHYSICAL
    assert p.forward.pnics == ("kvm1.vmnic0", "kvm1.vmnic0")


def test_nsx_dlr_same_host_in_host_routed_and_two_hosts_routed_via_physical():
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
    same = d.predict("web1", "app1")
    assert same.verdict is Verdict.IN_HOST_ROUTED
    assert same.forward.routed_by == ("dlr1",)
    other = d.predict("web1", "app2")
    assert other.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert any(h.kind == "overlay" for h in other.forward.hops)
    assert other.forward.pnics == ("esx1.vmnic0", "esx2.vmnic0")
