"""Private VLANs on Open vSwitch (forwarding-rules.md "Private VLANs"): a per-host OVS switch may hold the map a
vDS holds, and prediction, lint and the reasons answer for it through the same rules (``forwarding.pvlan_*``,
``decide.pvlan_l2``): one OVS switch per KVM host, the roles across hosts only where the physical network carries
the VLANs each side sends on."""

from __future__ import annotations

from builders import Design
from test_predict_pvlan import MAP, agree

from vnetbench.model.objects import HostKind, Pvlan, PvlanType, SwitchKind
from vnetbench.model.validate import validate
from vnetbench.predict import Verdict


def ovs_pvlan_design(allowed: str = "all", kind: SwitchKind = SwitchKind.OVS) -> Design:
    """An OVS switch with the map on each of kvm1 and kvm2; kvm2's switch port carries ``allowed``. On each
    host a VM per role: promiscuous p, isolated i, community c (102) and d (103)."""
    d = Design("ovs-pvlan")
    tor = d.pswitch("tor")
    for n in (1, 2):
        h = d.host(f"kvm{n}", kind=HostKind.KVM)
        sw = d.switch(h, f"ovs{n}", [f"kvm{n}.vmnic0"], kind=kind, pvlans=list(MAP))
        d.plug(tor, f"kvm{n}.vmnic0", trunk=True, allowed="all" if n == 1 else allowed)
        for k, (name, vlan) in enumerate((("p", 100), ("i", 101), ("c", 102), ("d", 103))):
            pg = d.pg(sw, f"pv-{name}")
            pg.pvlan = vlan
            d.vm(f"{name}{n}", h, pg, f"10.0.0.{10 * n + k}/24")
    return d


def problems(d: Design, words: str) -> list:
    return [p for p in validate(d.t) if words in p.message]


def test_an_ovs_switch_may_hold_a_private_vlan_map_and_a_linux_bridge_may_not():
    assert not [p for p in validate(ovs_pvlan_design().t) if "private VLAN" in p.message]
    assert problems(ovs_pvlan_design(kind=SwitchKind.LINUX_BRIDGE), "only a vDS or an Open vSwitch holds")


def test_roles_on_one_ovs_switch_follow_the_map():
    d = ovs_pvlan_design()
    assert d.verdict("p1", "i1") is Verdict.IN_HOST
    assert d.verdict("c1", "p1") is Verdict.IN_HOST
    assert d.verdict("i1", "c1") is Verdict.UNREACHABLE
    assert d.verdict("c1", "d1") is Verdict.UNREACHABLE
    extra = d.vm("i9", d.t.hosts[0], d.t.switches[0].portgroups[1], "10.0.0.99/24")
    assert d.predict("i1", extra.id).verdict is Verdict.UNREACHABLE
    agree(d)


def test_across_hosts_two_ovs_switches_meet_where_the_physical_network_carries_the_vlans():
    d = ovs_pvlan_design()
    assert d.verdict("i1", "p2") is Verdict.VIA_PHYSICAL
    assert d.verdict("c1", "c2") is Verdict.VIA_PHYSICAL
    assert d.verdict("i1", "i2") is Verdict.UNREACHABLE
    assert d.verdict("c1", "d2") is Verdict.UNREACHABLE
    agree(d)


def test_a_port_that_drops_the_isolated_vlan_cuts_it_off_and_is_named():
    d = ovs_pvlan_design(allowed="100,102,103")
    p = d.predict("i1", "p2")
    assert p.verdict is Verdict.UNREACHABLE
    assert "VLAN 101" in " ".join(p.reasons)
    assert d.verdict("c1", "c2") is Verdict.VIA_PHYSICAL
    [w] = problems(d, "does not carry the")
    assert "isolated secondary VLAN 101" in w.message and w.path == "switches[1].uplinks"
    agree(d)


def test_two_ovs_switches_whose_maps_disagree_are_named():
    d = ovs_pvlan_design()
    d.t.switches[1].pvlans = [Pvlan(100, 100, PvlanType.PROMISCUOUS), Pvlan(100, 101, PvlanType.COMMUNITY),
                              Pvlan(100, 102, PvlanType.COMMUNITY), Pvlan(100, 103, PvlanType.ISOLATED)]
    ws = problems(d, "enforce different roles")
    assert len(ws) == 2, ws        # 101 and 103 swapped roles
    w = ws[0]
    assert "ovs2" in w.message and "ovs1" in w.message
    d.t.switches[1].pvlans = list(MAP)
    assert not problems(d, "enforce different roles")
