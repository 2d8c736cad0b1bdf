"""The private VLAN checks (``model.pvlan_checks``), each able to fail: the problem on a broken design, gone on
the fixed one."""

from __future__ import annotations

from builders import Design
from test_predict_pvlan import MAP, pvlan_design

from vnetbench.model.objects import Pvlan, PvlanType
from vnetbench.model.validate import validate


def said(d: Design, words: str) -> list:
    return [p for p in validate(d.t) if words in p.message]


def vds(d: Design):
    return next(sw for sw in d.t.switches if sw.name == "dvs")


def test_a_clean_private_vlan_design_has_no_private_vlan_findings():
    assert not [p for p in validate(pvlan_design().t) if "private VLAN" in p.message]


def test_an_uplink_port_that_drops_a_vlan_of_the_private_vlan_is_named():
    [p] = said(pvlan_design(allowed="100,102,103"), "does not carry the")
    assert "port p2 of tor" in p.message and "the isolated secondary VLAN 101 of private VLAN 100" in p.message
    assert p.path == "switches[0].uplinks"
    assert "100, 101, 102, 103" in p.hint


def test_the_map_must_be_one_vsphere_takes():
    d = pvlan_design()
    vds(d).pvlans = [Pvlan(100, 101, PvlanType.ISOLATED), Pvlan(100, 102, PvlanType.ISOLATED),
                     Pvlan(100, 102, PvlanType.COMMUNITY), Pvlan(100, 103, PvlanType.PROMISCUOUS)]
    assert said(d, "has no promiscuous entry")
    assert said(d, "isolated secondaries (101, 102)")
    assert said(d, "lists VLAN 102 twice")
    assert said(d, "the primary itself is the promiscuous one")
    vds(d).pvlans = list(MAP)
    assert not said(d, "private VLAN map") and not said(d, "promiscuous entry")


def test_portgroups_name_a_secondary_of_the_map_and_plain_ones_keep_off_it():
    d = pvlan_design()
    pg = vds(d).portgroups[1]
    pg.pvlan = 999
    [p] = said(d, "names private VLAN 999")
    assert p.path == "switches[0].portgroups[1].pvlan" and "101" in p.hint
    pg.pvlan = 101
    plain = d.pg(vds(d), "plain", 102)
    [p] = said(d, "uses VLAN 102, which is a private VLAN")
    assert p.object_id == plain.id


def test_only_a_vds_holds_private_vlans():
    d = Design("vss")
    h = d.host("esx1")
    sw = d.switch(h, "vSwitch0", ["esx1.vmnic0"], pvlans=list(MAP))
    assert said(d, "only a vDS or an Open vSwitch holds private VLANs")
    sw.pvlans = []
    assert not said(d, "only a vDS or an Open vSwitch holds private VLANs")


def test_a_physical_switch_map_that_disagrees_with_the_vds():
    d = pvlan_design()
    tor = d.t.physical_switches[0]
    tor.pvlans = [Pvlan(100, 101, PvlanType.COMMUNITY)]
    [p] = said(d, "enforce different roles")
    assert "tor holds VLAN 101 as community" in p.message and "dvs as isolated" in p.message
    tor.pvlans = [Pvlan(100, 101, PvlanType.ISOLATED)]
    assert not said(d, "enforce different roles")
