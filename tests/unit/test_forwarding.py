"""The forwarding facts (model.forwarding) and the typed VLAN values they read."""

from __future__ import annotations

import pytest
from builders import Design

from vnetbench.model import NicType, Port, PortMode, dumps, loads
from vnetbench.model.forwarding import (
    Fabric, SegmentKey, Switching, egress, ingress, inner_mtu, overlay_overhead, returns_through, trunk_vlan,
)
from vnetbench.model.objects import Encapsulation, Switch, SwitchKind
from vnetbench.model.validate import validate
from vnetbench.model.vlan import Vlan, VlanList, VlanMode
from vnetbench.predict import Verdict


def trunk(allowed="all", native=1, **kw) -> Port:
    return Port("p", "Gi1", PortMode.TRUNK, allowed=allowed, native_vlan=native, **kw)


# --- ports ----------------------------------------------------------------------------------------------


def test_a_trunk_takes_untagged_frames_into_its_native_vlan_only_when_it_allows_it():
    assert ingress(trunk("1,10"), None) == 1
    assert ingress(trunk("10"), None) is None
    assert ingress(trunk("10"), 10) == 10 and ingress(trunk("10"), 20) is None


def test_an_access_port_takes_untagged_frames_and_drops_tagged_ones():
    port = Port("p", "Gi1", PortMode.ACCESS, access_vlan=30)
    assert ingress(port, None) == 30 and ingress(port, 30) is None
    assert egress(port, 30) == (True, None) and egress(port, 31) == (False, None)


def test_a_trunk_sends_its_native_vlan_untagged_and_the_others_tagged():
    assert egress(trunk("all", native=5), 5) == (True, None)
    assert egress(trunk("all", native=5), 7) == (True, 7)
    assert egress(trunk("7", native=5), 5) == (False, None)


def test_a_cable_joins_a_vlan_only_when_it_crosses_both_ways():
    a, b = trunk("all", native=1), Port("q", "Gi2", PortMode.TRUNK, native_vlan=99)
    assert trunk_vlan(a, b, 1) == 99 and trunk_vlan(b, a, 99) == 1     # native mismatch joins the natives
    assert trunk_vlan(a, b, 99) is None                                 # tagged 99 comes back untagged into 1
    assert trunk_vlan(a, b, 20) == 20
    assert trunk_vlan(a, trunk("10"), 20) is None
    assert trunk_vlan(a, Port("r", "Gi3", up=False), 1) is None


def test_a_port_reflects_frames_only_with_hairpin_but_a_router_may_send_back():
    assert not returns_through(trunk()) and returns_through(trunk(hairpin=True))
    assert returns_through(trunk(), routed=True)


def test_overlay_overhead_vxlan_50_geneve_54():
    vxlan = Switch("s", "ls", SwitchKind.NSX_SEGMENT, encapsulation=Encapsulation.VXLAN)
    geneve = Switch("g", "ls", SwitchKind.NSX_SEGMENT)
    assert overlay_overhead(vxlan) == 50 and overlay_overhead(geneve) == 54
    assert inner_mtu(vxlan, 1600) == 1550 and inner_mtu(geneve, 1500) == 1446


# --- segments ----------------------------------------------------------------------------------------------


def test_two_portgroups_with_one_vlan_on_one_vss_are_one_segment():
    d = Design()
    h = d.host("esx1")
    sw = d.switch(h, "vSwitch0", ["esx1.vmnic0"])
    a, b = d.vm("a", h, d.pg(sw, "web", 10), "10.0.0.1/24"), d.vm("b", h, d.pg(sw, "app", 10), "10.0.0.2/24")
    fabric = Fabric(d.t)
    key = fabric.place(a, a.vnics[0]).segment
    assert key == fabric.place(b, b.vnics[0]).segment == SegmentKey(sw.id, h.id, 10)


def test_untagged_guests_on_a_trunk_join_vlan_none_on_a_vss_and_the_native_vlan_elsewhere():
    d = Design()
    h = d.host("esx1")
    vss, vds = d.switch(h, "vSwitch0"), d.switch(None, "dvs", kind=SwitchKind.VDS, members=[h])
    pg_vds = d.pg(vds, "trunk", "trunk 10-20")
    pg_vds.native_vlan = 15
    a, b = d.vm("a", h, d.pg(vss, "all", 4095), None), d.vm("b", h, pg_vds, None)
    c = d.vm("c", h, pg_vds, None, guest_vlan=30)
    fabric = Fabric(d.t)
    assert fabric.place(a, a.vnics[0]).segment.vlan is None
    assert fabric.place(b, b.vnics[0]).segment.vlan == 15
    assert "does not carry the guest's VLAN 30" in fabric.place(c, c.vnics[0]).problem


def test_sriov_and_directpath_vnics_bypass_the_virtual_switch():
    d = Design()
    h = d.host("esx1", pnics=3)
    sw = d.switch(h, "vSwitch0", ["esx1.vmnic0"])
    vf = d.vm("vf", h, d.pg(sw, "v10", 10), "10.0.0.1/24", nic_type=NicType.SRIOV)
    vf.vnics[0].physical_function = "esx1.vmnic1"
    dp = d.vm("dp", h, d.pg(sw, "v20", 20), "10.0.0.2/24", nic_type=NicType.DIRECTPATH)
    dp.vnics[0].network, dp.vnics[0].physical_function = None, "esx1.vmnic2"
    fabric = Fabric(d.t)
    assert fabric.place(vf, vf.vnics[0]).segment == SegmentKey("esx1.vmnic1", h.id, 10, None, Switching.EMBEDDED)
    assert fabric.place(dp, dp.vnics[0]).segment == SegmentKey("esx1.vmnic2", h.id, None, dp.vnics[0].id,
                                                               Switching.DIRECT)
    vf.vnics[0].physical_function = None
    place = fabric.place(vf, vf.vnics[0])
    assert place.segment is None and place.invalid and "names no pNIC" in place.problem


# --- VLANs are read once, at load --------------------------------------------------------------------------


DESIGN = """format_version: 1
id: v
switches:
- id: s
  name: dvs
  kind: vds
  portgroups:
  - id: a
    name: a
    vlan: trunk 20-30,10
  - id: b
    name: b
    vlan: none
  - id: c
    name: c
    vlan: 5000
  - id: d
    name: d
    vlan: ten
physical_switches:
- id: ps
  name: sw1
  ports:
  - id: p1
    name: Gi1
    mode: trunk
    allowed: 10-x
  - id: p2
    name: Gi2
    mode: trunk
    allowed: 30,10-20
"""


def test_vlans_are_typed_values_that_save_as_written():
    t = loads(DESIGN)
    a, b, c, d = t.switches[0].portgroups
    assert isinstance(a.vlan, Vlan) and a.vlan.mode is VlanMode.TRUNK and a.vlan.ranges == ((10, 10), (20, 30))
    assert b.vlan.mode is VlanMode.NONE and c.vlan.mode is VlanMode.INVALID and d.vlan.mode is VlanMode.INVALID
    p1, p2 = t.physical_switches[0].ports
    assert isinstance(p2.allowed, VlanList) and p2.allowed.ranges == ((10, 20), (30, 30)) and not p1.allowed.valid
    assert dumps(t) == DESIGN


def test_an_unreadable_vlan_loads_and_validation_names_the_field_and_the_fix():
    problems = {p.path: p for p in validate(loads(DESIGN))}
    assert "out of range" in problems["switches[0].portgroups[2].vlan"].message
    assert "'ten' is not a VLAN" in problems["switches[0].portgroups[3].vlan"].message
    assert "trunk" in problems["switches[0].portgroups[3].vlan"].hint
    assert "10-x" in problems["physical_switches[0].ports[0].allowed"].message


def test_assigning_plain_values_reads_them():
    d = Design()
    pg = d.pg(d.switch(d.host("esx1"), "vSwitch0"), "pg")
    pg.vlan = 4095
    assert pg.vlan == 4095 and pg.vlan.mode is VlanMode.TRUNK and pg.vlan != "4095"
    pg.vlan = "nonsense"
    assert pg.vlan.mode is VlanMode.INVALID


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, 1.5, True])
def test_a_vlan_of_the_wrong_kind_is_a_load_error_naming_the_place(value):
    import yaml

    from vnetbench.model import FormatError
    data = yaml.safe_load(DESIGN)
    data["switches"][0]["portgroups"][0]["vlan"] = value
    with pytest.raises(FormatError) as err:
        loads(yaml.safe_dump(data))
    assert "switches[0].portgroups[0].vlan" in str(err.value)


# --- the native VLAN a trunk does not allow (prediction and the lab agree by construction) ------------------


def native_not_allowed() -> Design:
    d = Design()
    h = d.host("esx1")
    ps = d.pswitch("sw1")
    d.plug(ps, "esx1.vmnic0", trunk=True, allowed="10", native=1)
    sw = d.switch(h, "vSwitch0", ["esx1.vmnic0"])
    d.vm("a", h, d.pg(sw, "untagged", 0), "10.1.0.1/24")
    d.phost("srv", d.port(ps, "srv", vlan=1), "10.1.0.2/24")
    return d


def test_untagged_frames_on_a_trunk_that_leaves_out_its_native_vlan_go_nowhere():
    d = native_not_allowed()
    p = d.predict("a", "srv")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("does not allow its native VLAN 1" in r for r in p.reasons)
    from vnetbench_local.desired import desired_lab
    lab = desired_lab(d.t)
    assert lab.reasons == []
    pnic_veths = [r for r in lab.resources.values() if r.kind == "veth" and r.object_id == "esx1.vmnic0"]
    assert pnic_veths == []   # the lab does not wire the segment into VLAN 1 either
