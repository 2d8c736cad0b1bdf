"""What the KVM backend plans for the fabric as admins build it (issue 23), without libvirt or a kernel: a
VLAN-filtering Linux bridge's ports as libvirt ``<vlan>`` on Open vSwitch, bonds of uplinks in the mode the
teaming policy maps to, and the plain refusals where a bond could not reproduce what the prediction answers.
The real deploy is tests/backends/kvm/test_kvm_fabric.py."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from vnetbench import resources_dir
from vnetbench.model import LacpMode, LoadBalancing, SwitchKind, load
from vnetbench.model.objects import BridgeVlans, Portgroup, Teaming, Uplink

EXAMPLES = resources_dir() / "examples"


def _desired(design, emulate: bool = True):
    from vnetbench_kvm.desired import Boot, desired

    return desired(design, {h.id: Boot("/k", "/i") for h in design.hosts}, emulate)


def _bonded():
    return load(EXAMPLES / "kvm-bonded-vlan-filtering-bridge.vnet.yaml")


def _bonds(want) -> list:
    return sorted((w for w in want.wants.values() if w.kind == "bond"), key=lambda w: w.spec["tag"])


@pytest.mark.parametrize("vlans, expected", [
    (BridgeVlans("10", 10, "10"), {"tags": [10], "trunk": True, "native": 10, "native_mode": "untagged"}),
    (BridgeVlans("10,20", 10, ""), {"tags": [10, 20], "trunk": True, "native": 10, "native_mode": "tagged"}),
    (BridgeVlans("10-12", None, ""), {"tags": [10, 11, 12], "trunk": True, "native": None, "native_mode": None}),
    (None, {"tags": [1], "trunk": True, "native": 1, "native_mode": "untagged"}),   # the kernel's default port
])
def test_a_filtering_bridge_port_becomes_libvirt_vlan_on_ovs(vlans, expected):
    from vnetbench_kvm.desired_fabric import filtering_port

    assert filtering_port(vlans, "web01's port") == (expected, "")


def test_a_port_sending_other_vlans_untagged_than_its_pvid_is_refused_with_why():
    from vnetbench_kvm.desired_fabric import filtering_port

    port, why = filtering_port(BridgeVlans("10,20", 10, "10,20"), "web01's port on br0")
    assert port is None and why.startswith("web01's port on br0 sends VLAN 20 untagged besides its PVID")


def test_the_filtering_bridge_is_an_ovs_network_with_one_portgroup_per_port_configuration():
    from vnetbench_kvm.xml import Mark, network_xml

    want = _desired(_bonded())
    assert want.reasons == []
    [br0] = [w for w in want.wants.values() if w.kind == "ovs"]
    assert br0.description.startswith("VLAN-filtering bridge br0")
    groups = {tuple(g["tags"]): g for g in br0.spec["portgroups"]}
    assert set(groups) == {(10,), (20,), (10, 20)}
    guests = {w.spec["name"].rsplit("-", 1)[1]: w.spec["nics"][0] for w in want.wants.values() if w.kind == "domain"}
    assert guests["web01"]["portgroup"] == groups[(10,)]["name"]
    assert guests["tools01"]["portgroup"] == groups[(10, 20)]["name"]
    assert {n["network"] for n in guests.values()} == {br0.spec["network"]}
    net = ET.fromstring(network_xml("ovs", br0.spec, Mark("d", br0.key, br0.mark)))
    assert net.find("virtualport").get("type") == "openvswitch"
    tags = {pg.get("name"): [(t.get("id"), t.get("nativeMode")) for t in pg.iter("tag")] for pg in net.iter("portgroup")}
    assert tags[groups[(20,)]["name"]] == [("20", "untagged")]
    assert tags[groups[(10, 20)]["name"]] == [("10", None), ("20", None)]     # no pvid: untagged frames dropped


def test_ip_hash_over_a_static_port_channel_bonds_both_uplinks_per_vlan_in_balance_slb():
    want = _desired(_bonded())
    bonds = _bonds(want)
    assert [(b.spec["tag"], b.spec["mode"], b.spec["lacp"]) for b in bonds] == [(10, "balance-slb", "off"),
                                                                                 (20, "balance-slb", "off")]
    wires = {w["host_if"]: (pnic.spec["pnic"], w["phys"], w["attach"]["kind"])
             for pnic in want.wants.values() if pnic.kind == "pnic" for w in pnic.spec["wires"]}
    for bond in bonds:        # one veth per (pNIC, VLAN), not attached by the pNIC but by the bond
        assert sorted(wires[m] for m in bond.spec["members"]) == [("eno1", bond.spec["tag"], "none"),
                                                                 ("eno2", bond.spec["tag"], "none")]
        assert {d.split("/")[0] for d in bond.deps} == {"ovs", "pnic"}


def test_a_lacp_port_channel_is_refused_on_the_emulated_switch():
    design = _bonded()
    design.physical_switches[0].port_channels[0].mode = LacpMode.ACTIVE
    want = _desired(design)
    assert _bonds(want) == []
    assert any("LACP, which needs a partner" in r for r in want.reasons), want.reasons


def test_uplinks_leading_to_different_networks_are_refused_not_bonded():
    design = _bonded()
    design.physical_switches[0].ports[1].allowed = "10,30"      # eno2's port no longer carries VLAN 20
    design.physical_switches[0].port_channels = []
    design.switches[0].teaming = Teaming(LoadBalancing.PORT_ID)
    want = _desired(design)
    assert [b.spec["tag"] for b in _bonds(want)] == [10]           # VLAN 10 still lands in one place
    assert any("lead to different networks" in r and "VLAN 20" in r for r in want.reasons), want.reasons


def test_a_plain_linux_bridge_with_two_active_uplinks_is_refused():
    design = _bonded()
    br0 = design.switches[0]
    br0.vlan_filtering = False
    for vm in design.vms:
        vm.vnics[0].bridge_vlans = None
        vm.vnics[0].guest_vlan = None
    for up in br0.uplinks:
        up.bridge_vlans = None
    want = _desired(design)
    assert any("bonds uplinks on Open vSwitch only" in r for r in want.reasons), want.reasons


@pytest.mark.parametrize("lacp, mode", [(LacpMode.STATIC, ("balance-slb", "off")),
                                         (LacpMode.ACTIVE, ("balance-tcp", "active"))])
def test_with_real_pnics_the_uplinks_are_one_bond_trunking_the_bridge_vlans(lacp, mode):
    design = _bonded()
    design.physical_switches[0].port_channels[0].mode = lacp      # a real switch answers LACP
    want = _desired(design, emulate=False)
    assert want.reasons == []
    [bond] = _bonds(want)
    assert (bond.spec["members"], bond.spec["tag"], (bond.spec["mode"], bond.spec["lacp"])) == (["eno1", "eno2"],
                                                                                                None, mode)
    assert bond.spec["vlan"] == {"tags": [10, 20], "trunk": True, "native": None, "native_mode": None}
    pnics = [w.spec for w in want.wants.values() if w.kind == "pnic"]
    assert [(p["pnic"], p["real"], [x["attach"]["kind"] for x in p["wires"]]) for p in pnics] == [
        ("eno1", True, ["none"]), ("eno2", True, ["none"])]


def test_with_real_pnics_uplinks_leading_to_different_networks_are_refused_too():
    design = _bonded()
    design.physical_switches[0].ports[1].allowed = "10,30"
    design.physical_switches[0].port_channels = []
    design.switches[0].teaming = Teaming(LoadBalancing.MAC_HASH)
    want = _desired(design, emulate=False)
    assert _bonds(want) == []
    assert any("spreads VLAN 20 over eno1, eno2, which lead to different networks" in r for r in want.reasons)


def test_a_single_real_uplink_of_an_ovs_switch_trunks_the_vlans_of_its_segments():
    t = load(EXAMPLES / "kvm-nic-models.vnet.yaml")
    want = _desired(t, emulate=False)
    ovs = {w.spec["bridge"] for w in want.wants.values() if w.kind == "ovs"}
    attaches = [x["attach"] for w in want.wants.values() if w.kind == "pnic" for x in w.spec["wires"]
                if x["attach"].get("bridge") in ovs]
    assert attaches and all(a["vlan"]["trunk"] and a["vlan"]["tags"] and "tag" not in a for a in attaches)


@pytest.mark.parametrize("vlan, columns", [
    ({"tags": [10, 20], "trunk": True, "native": None, "native_mode": None}, ["trunks=10,20", "vlan_mode=trunk"]),
    ({"tags": [10, 20], "trunk": True, "native": 10, "native_mode": "tagged"},
     ["trunks=10,20", "tag=10", "vlan_mode=native-tagged"]),
    (None, []),
])
def test_the_ovs_columns_of_a_trunk_port(vlan, columns):
    from vnetbench_kvm.hostside import vlan_columns

    assert vlan_columns(vlan) == columns


def test_an_explicit_failover_order_on_ovs_is_an_active_backup_bond_with_the_active_uplink_first():
    design = _bonded()
    br0 = design.switches[0]
    br0.kind, br0.vlan_filtering = SwitchKind.OVS, False
    br0.teaming = Teaming(LoadBalancing.FAILOVER_ORDER)
    br0.uplinks = [Uplink("pnic-kvm01-eno2"), Uplink("pnic-kvm01-eno1", standby=True)]
    br0.portgroups = [Portgroup("pg-10", "VLAN10", 10)]
    for vm in design.vms:
        vm.vnics[0].network, vm.vnics[0].bridge_vlans, vm.vnics[0].guest_vlan = "pg-10", None, None
    want = _desired(design)
    [bond] = _bonds(want)
    eno = {w["host_if"]: pnic.spec["pnic"] for pnic in want.wants.values() if pnic.kind == "pnic"
           for w in pnic.spec["wires"]}
    assert bond.spec["mode"] == "active-backup"
    assert [eno[m] for m in bond.spec["members"]] == ["eno2", "eno1"]       # bond-primary: the active one


def test_designs_without_a_teaming_policy_get_no_bond():
    want = _desired(load(EXAMPLES / "kvm-nic-models.vnet.yaml"))
    assert want.reasons == [] and _bonds(want) == []
