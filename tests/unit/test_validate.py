"""One test per validation rule: a clean design, one defect, and the problem that must name it."""

from __future__ import annotations

import pytest

from vnetbench.model import (
    VM,
    Action,
    DfwRule,
    Dlr,
    DlrInterface,
    ForwardMode,
    Forwarding,
    Host,
    HostKind,
    Link,
    MacvtapMode,
    NicType,
    PhysicalRouter,
    PhysicalSwitch,
    Place,
    PNic,
    Port,
    Portgroup,
    PortMode,
    RouterInterface,
    Rule,
    Security,
    Switch,
    SwitchKind,
    Topology,
    Uplink,
    VmRole,
    VNic,
)
from vnetbench.model.validate import Problem, validate


def design() -> Topology:
    """esx01 with vSwitch0 (VLAN 10 and a 4095 trunk), web01 and web02, uplinked to sw1; valid as it stands."""
    return Topology(
        id="t",
        hosts=[Host(id="h1", name="esx01", pnics=[PNic(id="h1n0", name="vmnic0"), PNic(id="h1n1", name="vmnic1")]),
               Host(id="h2", name="esx02", pnics=[PNic(id="h2n0", name="vmnic0")])],
        switches=[Switch(id="s1", name="vSwitch0", host="h1", uplinks=[Uplink(pnic="h1n0")], portgroups=[
            Portgroup(id="pg10", name="VLAN10", vlan=10), Portgroup(id="pgt", name="Trunk", vlan=4095)]),
            Switch(id="s2", name="vSwitch0", host="h2", uplinks=[Uplink(pnic="h2n0")], portgroups=[
                Portgroup(id="pg2", name="VLAN10", vlan=10)])],
        vms=[VM(id="v1", name="web01", host="h1", vnics=[
            VNic(id="v1n0", name="eth0", network="pg10", mac="00:50:56:00:00:01", ip="10.0.10.11/24",
                 gateway="10.0.10.1")]),
             VM(id="v2", name="web02", host="h1", vnics=[
                 VNic(id="v2n0", name="eth0", network="pg10", mac="00:50:56:00:00:02", ip="10.0.10.12/24",
                      gateway="10.0.10.1")])],
        physical_switches=[PhysicalSwitch(id="p1", name="sw1", ports=[
            Port(id="p1a", name="Gi0/1", mode=PortMode.TRUNK, allowed="10,11,20"),
            Port(id="p1b", name="Gi0/2", mode=PortMode.TRUNK, allowed="10"),
            Port(id="p1c", name="Gi0/3")])],
        physical_routers=[PhysicalRouter(id="r1", name="core", switch="p1", interfaces=[
            RouterInterface(id="r1a", name="Vlan10", ip="10.0.10.1/24", vlan=10)])],
        links=[Link(id="l1", a="h1n0", b="p1a"), Link(id="l2", a="h2n0", b="p1b")],
    )


def only(t: Topology) -> Problem:
    problems = validate(t)
    assert len(problems) == 1, problems
    return problems[0]


def test_the_base_design_is_clean():
    assert validate(design()) == []


def test_problem_is_frozen_and_errors_come_first():
    t = design()
    t.layout.places["ghost"] = Place()
    t.vms[0].vnics[0].ip = "10.0.10.300/24"
    problems = validate(t)
    assert [p.severity for p in problems] == ["error", "warning"]
    with pytest.raises(AttributeError):
        problems[0].severity = "warning"  # type: ignore[misc]


# --- VLANs -------------------------------------------------------------------------------------------

def test_vss_vlan_out_of_range_names_the_switch():
    t = design()
    t.switches[0].portgroups[0].vlan = 5000
    p = only(t)
    assert (p.severity, p.path, p.object_id) == ("error", "switches[0].portgroups[0].vlan", "pg10")
    assert "esx01/vSwitch0/VLAN10" in p.message and "5000" in p.message and "out of range" in p.message


def test_vss_takes_4095_but_not_trunk_ranges():
    t = design()
    t.switches[0].portgroups[1].vlan = "trunk 10-20"
    p = only(t)
    assert p.path == "switches[0].portgroups[1].vlan" and "4095" in p.hint


@pytest.mark.parametrize("value, ok", [(4095, False), (4094, True), ("trunk 10-20,30", True), ("trunk 0-5", False)])
def test_vds_vlans(value, ok):
    t = design()
    t.switches.append(Switch(id="d1", name="dvs1", kind=SwitchKind.VDS, members=["h1", "h2"], portgroups=[
        Portgroup(id="dpg", name="dpg", vlan=value)]))
    problems = validate(t)
    assert (problems == []) is ok, problems
    if not ok:
        assert problems[0].path == "switches[2].portgroups[0].vlan"


def test_ovs_trunk_list_and_native_vlan():
    t = design()
    t.hosts.append(Host(id="k1", name="kvm01", kind=HostKind.KVM))
    t.switches.append(Switch(id="o1", name="ovsbr0", kind=SwitchKind.OVS, host="k1", portgroups=[
        Portgroup(id="o1p", name="trunk", vlan="trunk 10,20-30,5000", native_vlan=4095)]))
    problems = validate(t)
    assert {p.path for p in problems} == {"switches[2].portgroups[0].vlan", "switches[2].portgroups[0].native_vlan"}


def test_native_vlan_only_on_a_trunk():
    t = design()
    t.switches[0].portgroups[0].native_vlan = 5
    assert "not a trunk" in only(t).message


def test_port_vlans_out_of_range():
    t = design()
    t.physical_switches[0].ports[2].access_vlan = 4095
    t.physical_switches[0].ports[0].allowed = "10,4100"
    paths = {p.path for p in validate(t)}
    assert paths == {"physical_switches[0].ports[2].access_vlan", "physical_switches[0].ports[0].allowed"}


def test_guest_vlan_out_of_range():
    t = design()
    t.vms[0].vnics[0].network = "pgt"
    t.vms[0].vnics[0].guest_vlan = 4096
    p = only(t)
    assert p.path == "vms[0].vnics[0].guest_vlan" and "4096" in p.message


def test_guest_vlan_on_a_non_trunk_portgroup():
    t = design()
    t.vms[0].vnics[0].guest_vlan = 20
    p = only(t)
    assert p.path == "vms[0].vnics[0].guest_vlan" and "web01/eth0" in p.message and "not a trunk" in p.message


def test_guest_vlan_not_carried_by_the_trunk():
    t = design()
    t.hosts.append(Host(id="k1", name="kvm01", kind=HostKind.KVM))
    t.switches.append(Switch(id="o1", name="ovsbr0", kind=SwitchKind.OVS, host="k1", portgroups=[
        Portgroup(id="o1p", name="trunk", vlan="trunk 10-20")]))
    t.vms.append(VM(id="k", name="kvmvm", host="k1", vnics=[
        VNic(id="kn", name="eth0", type=NicType.VIRTIO, network="o1p", guest_vlan=30, ip="10.0.30.5/24")]))
    assert "does not carry" in only(t).message


def test_a_vm_without_any_address_is_said_so():
    """An imported guest whose address could not be read (no agent, no lease): prediction can reach nothing,
    and validation says why instead of 'no problems'."""
    t = design()
    t.vms.append(VM(id="q", name="quiet", host=t.hosts[0].id, vnics=[
        VNic(id="qn", name="eth0", type=NicType.VMXNET3, network=t.vms[0].vnics[0].network)]))
    problem = only(t)
    assert problem.severity == "warning" and problem.path == f"vms[{len(t.vms) - 1}].vnics"
    assert "quiet has no address on any vNIC" in problem.message and "ip" in problem.hint


# --- identities and names --------------------------------------------------------------------------

def test_duplicate_ids():
    t = design()
    t.vms[1].id = "v1"
    problems = validate(t)
    assert any(p.path == "vms[1]" and "used twice" in p.message for p in problems)


@pytest.mark.parametrize("mutate, path", [
    (lambda t: setattr(t.vms[1], "name", "WEB01"), "vms[1]"),
    (lambda t: setattr(t.hosts[1], "name", "esx01"), "hosts[1]"),
    (lambda t: setattr(t.switches[0].portgroups[1], "name", "VLAN10"), "switches[0].portgroups[1]"),
    (lambda t: t.switches.append(Switch(id="s3", name="vSwitch0", host="h1")), "switches[2]"),
    (lambda t: setattr(t.hosts[0].pnics[1], "name", "vmnic0"), "hosts[0].pnics[1]"),
])
def test_duplicate_names_per_scope(mutate, path):
    t = design()
    mutate(t)
    p = only(t)
    assert p.path == path and "named" in p.message


def test_blank_names():
    t = design()
    t.vms[0].vnics[0].name = " "
    p = only(t)
    assert p.path == "vms[0].vnics[0].name" and "'v1n0' has no name" in p.message


def test_same_switch_name_on_two_hosts_is_fine():
    assert validate(design()) == []  # both hosts have a vSwitch0 and a portgroup VLAN10


def test_standard_portgroup_names_unique_per_host():
    t = design()
    t.switches.append(Switch(id="s3", name="vSwitch1", host="h1", portgroups=[Portgroup(id="x", name="VLAN10")]))
    p = only(t)
    assert p.path == "switches[2].portgroups[0]" and "standard portgroups on esx01" in p.message


# --- references --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mutate, path", [
    (lambda t: setattr(t.vms[0], "host", "nope"), "vms[0].host"),
    (lambda t: setattr(t.vms[0].vnics[0], "network", "nope"), "vms[0].vnics[0].network"),
    (lambda t: setattr(t.switches[0], "host", "nope"), "switches[0].host"),
    (lambda t: setattr(t.switches[0].uplinks[0], "pnic", "nope"), "switches[0].uplinks[0].pnic"),
    (lambda t: setattr(t.links[0], "b", "nope"), "links[0].b"),
    (lambda t: setattr(t.physical_routers[0], "switch", "nope"), "physical_routers[0].switch"),
])
def test_missing_references(mutate, path):
    t = design()
    mutate(t)
    problems = validate(t)
    assert any(p.path == path and "does not exist" in p.message for p in problems), problems


def test_reference_to_the_wrong_kind_of_object():
    t = design()
    t.vms[0].vnics[0].network = "h1"
    p = only(t)
    assert "esx01" in p.message and "a host" in p.message


def test_vds_member_missing():
    t = design()
    t.switches.append(Switch(id="d1", name="dvs1", kind=SwitchKind.VDS, members=["h1", "gone"]))
    p = only(t)
    assert p.path == "switches[2].members[1]"


def test_dlr_interface_network_and_dfw_applied_to():
    t = design()
    t.nsx.dlrs.append(Dlr(id="dlr", name="dlr-01", interfaces=[
        DlrInterface(id="li", name="lif", network="missing", ip="10.0.10.1/24")]))
    t.nsx.dfw.rules.append(DfwRule(action=Action.DENY, applied_to=["v1", "gone"], name="r1"))
    paths = {p.path for p in validate(t)}
    assert paths == {"nsx.dlrs[0].interfaces[0].network", "nsx.dfw.rules[0].applied_to[1]"}


def test_firewall_rule_with_an_unknown_match():
    t = design()
    t.nsx.dfw.rules.append(DfwRule(src="web-servers"))
    assert only(t).path == "nsx.dfw.rules[0].src"


@pytest.mark.parametrize("port, ok", [(5201, True), ("5201-5210", True), (0, False), (70000, False),
                                      ("http", False), ("20-10", False)])
def test_firewall_rule_ports(port, ok):
    t = design()
    t.nsx.dfw.rules.append(DfwRule(action=Action.DENY, proto="tcp", port=port))
    problems = validate(t)
    assert (problems == []) is ok
    if not ok:
        assert problems[0].path == "nsx.dfw.rules[0].port"


def test_stale_layout_place_is_a_warning():
    t = design()
    t.layout.places["gone"] = Place()
    p = only(t)
    assert p.severity == "warning" and p.path == "layout.places.gone"


# --- uplinks and cables ---------------------------------------------------------------------------

def test_uplink_pnic_of_another_host():
    t = design()
    t.switches[0].uplinks.append(Uplink(pnic="h2n0", standby=True))
    problems = validate(t)
    assert any(p.path == "switches[0].uplinks[1].pnic" and "not on its host" in p.message for p in problems)


def test_vds_uplink_must_be_on_a_member():
    t = design()
    t.hosts.append(Host(id="h3", name="esx03", pnics=[PNic(id="h3n0", name="vmnic0")]))
    t.switches.append(Switch(id="d1", name="dvs1", kind=SwitchKind.VDS, members=["h1"], uplinks=[
        Uplink(pnic="h1n1"), Uplink(pnic="h3n0")]))
    p = only(t)
    assert p.path == "switches[2].uplinks[1].pnic" and "member" in p.message


def test_only_standby_uplinks_warns():
    t = design()
    t.switches[0].uplinks[0].standby = True
    p = only(t)
    assert p.severity == "warning" and "no active uplink" in p.message


def test_pnic_shared_by_two_switches():
    t = design()
    t.switches.append(Switch(id="s3", name="vSwitch1", host="h1", uplinks=[Uplink(pnic="h1n0")]))
    assert "uplink of both" in only(t).message


def test_pnic_plugged_into_two_ports():
    t = design()
    t.links.append(Link(id="l3", a="h1n0", b="p1c"))
    p = only(t)
    assert p.path == "links[2].a" and "esx01/vmnic0" in p.message and "plugged in twice" in p.message


def test_two_virtual_switches_linked_is_an_error():
    t = design()
    t.links.append(Link(id="l3", a="s1", b="s2"))
    p = only(t)
    assert p.path == "links[2]" and "virtual switches" in p.message and "ESXi" in p.hint


def test_ovs_and_bridge_on_one_kvm_host_may_be_patched():
    t = design()
    t.hosts.append(Host(id="k1", name="kvm01", kind=HostKind.KVM))
    t.switches += [Switch(id="o1", name="ovsbr0", kind=SwitchKind.OVS, host="k1"),
                   Switch(id="b1", name="br0", kind=SwitchKind.LINUX_BRIDGE, host="k1")]
    t.links.append(Link(id="patch", a="o1", b="b1"))
    assert validate(t) == []


@pytest.mark.parametrize("a, b", [("h1n1", "h2n0"), ("v1", "p1c"), ("p1", "p1c"), ("h1n1", "pg10")])
def test_link_between_things_that_cannot_be_cabled(a, b):
    t = design()
    t.links.append(Link(id="bad", a=a, b=b))
    p = only(t)
    assert p.path == "links[2]" and "cannot be cabled" in p.message


def test_switch_kind_on_the_wrong_host_kind():
    t = design()
    t.switches.append(Switch(id="b1", name="br0", kind=SwitchKind.LINUX_BRIDGE, host="h1"))
    assert "kvm hosts" in only(t).hint


def test_macvtap_mode_missing():
    t = design()
    t.hosts.append(Host(id="k1", name="kvm01", kind=HostKind.KVM, pnics=[PNic(id="k1n0", name="eth0")]))
    t.switches.append(Switch(id="m1", name="macvtap0", kind=SwitchKind.MACVTAP, host="k1",
                             uplinks=[Uplink(pnic="k1n0")]))
    p = only(t)
    assert p.path == "switches[2].macvtap_mode" and "without a mode" in p.message
    t.switches[2].macvtap_mode = MacvtapMode.VEPA
    assert validate(t) == []


def test_hosted_networks_bridged_to_one_pnic_and_host_only_to_none():
    t = design()
    t.hosts.append(Host(id="x", name="xp-host", kind=HostKind.HOSTED, pnics=[PNic(id="xn", name="onboard")]))
    t.switches += [Switch(id="b", name="VMnet0", kind=SwitchKind.HOSTED_BRIDGED, host="x"),
                   Switch(id="o", name="VMnet1", kind=SwitchKind.HOSTED_HOSTONLY, host="x",
                          uplinks=[Uplink(pnic="xn")])]
    assert {(p.path, "bridged" in p.message or "host-only" in p.message) for p in validate(t)} == {
        ("switches[2].uplinks", True), ("switches[3].uplinks", True)}
    t.switches[2].uplinks, t.switches[3].uplinks = t.switches[3].uplinks, []
    assert validate(t) == []


# --- VMs and vNICs -----------------------------------------------------------------------------------

def test_vnic_on_another_hosts_switch():
    t = design()
    t.vms[1].vnics[0].network = "pg2"
    p = only(t)
    assert p.path == "vms[1].vnics[0].network" and "esx02/vSwitch0" in p.message


def test_debian_cannot_use_e1000e():
    t = design()
    t.vms[0].vnics[0].type = NicType.E1000E
    p = only(t)
    assert p.path == "vms[0].vnics[0].type" and "e1000e" in p.message and "Debian" in p.message
    assert "vmxnet3" in p.hint and "e1000" in p.hint


@pytest.mark.parametrize("nic", [NicType.E1000, NicType.VMXNET3, NicType.FLEXIBLE, NicType.VLANCE])
def test_debian_can_use_e1000_vmxnet3_and_flexible(nic):
    t = design()
    t.vms[0].vnics[0].type = nic
    assert validate(t) == []


def test_e1000e_needs_windows_8_and_hardware_version_8():
    t = design()
    t.vms[0].guest_os = "windows-2012"
    t.vms[0].vnics[0].type = NicType.E1000E
    assert validate(t) == []
    t.vms[0].hardware_version = 7
    p = only(t)
    assert "hardware version 8" in p.message
    t.vms[0].hardware_version = 11
    t.vms[0].guest_os = "windows-2008r2"
    assert "Windows Server 2008 R2" in only(t).message


def test_debian_cannot_use_vmxnet2():
    t = design()
    t.vms[0].vnics[0].type = NicType.VMXNET2
    assert "vmxnet2" in only(t).message


def test_plain_strings_for_enums_are_understood():
    """Code that builds objects by hand (a generator, a quick GUI edit) may pass plain strings."""
    t = design()
    t.hosts[0].kind = "esxi"
    t.switches[0].kind = "vss"
    t.switches[0].portgroups[1].vlan = 4095
    t.vms[0].vnics[0].type = "e1000e"
    p = only(t)
    assert p.path == "vms[0].vnics[0].type" and "e1000e" in p.message


def test_kvm_adapter_on_esxi():
    t = design()
    t.vms[0].vnics[0].type = NicType.VIRTIO
    assert "does not offer" in only(t).message


@pytest.mark.parametrize("ip", ["10.0.10.11", "10.0.10.11/33", "ten/24", "10.0.10.0/24", "10.0.10.255/24"])
def test_addresses_not_in_prefix_form(ip):
    t = design()
    t.vms[0].vnics[0].ip = ip
    p = only(t)
    assert p.path == "vms[0].vnics[0].ip"


def test_gateway_outside_the_subnet():
    t = design()
    t.vms[0].vnics[0].gateway = "10.0.20.1"
    p = only(t)
    assert p.path == "vms[0].vnics[0].gateway" and "outside its subnet 10.0.10.0/24" in p.message


def test_duplicate_ip_in_one_segment():
    t = design()
    t.vms[1].vnics[0].ip = "10.0.10.11/24"
    p = only(t)
    assert p.path == "vms[1].vnics[0].ip" and "web01/eth0" in p.message


def test_same_ip_in_another_vlan_is_fine():
    t = design()
    t.switches[0].portgroups.append(Portgroup(id="pg20", name="VLAN20", vlan=20))
    t.vms[1].vnics[0].network = "pg20"
    t.vms[1].vnics[0].ip = "10.0.10.11/24"
    assert validate(t) == []


def test_duplicate_mac_in_one_segment():
    t = design()
    t.vms[1].vnics[0].mac = "00:50:56:00:00:01"
    assert only(t).path == "vms[1].vnics[0].mac"


def test_malformed_and_multicast_macs():
    t = design()
    t.vms[0].vnics[0].mac = "00:50:56:zz:00:01"
    t.vms[1].vnics[0].mac = "01:00:5e:00:00:01"
    assert {p.path for p in validate(t)} == {"vms[0].vnics[0].mac", "vms[1].vnics[0].mac"}


def _bridged_firewall(t: Topology, security: Security) -> None:
    t.switches[0].portgroups.append(Portgroup(id="pgx", name="VLAN11", vlan=11, security=security))
    t.vms.append(VM(id="fw", name="fw01", host="h1", role=VmRole.FIREWALL,
                    forwarding=Forwarding(mode=ForwardMode.BRIDGED, rules=[Rule(src="10.0.10.0/24")]),
                    vnics=[VNic(id="fw0", name="eth0", network="pg10"), VNic(id="fw1", name="eth1", network="pgx")]))
    t.switches[0].portgroups[0].security = security


def test_bridged_firewall_without_promiscuous_mode_warns():
    t = design()
    _bridged_firewall(t, Security(promiscuous=False))
    problems = validate(t)
    assert [p.severity for p in problems] == ["warning", "warning"]
    assert all("promiscuous" in p.message and "drop traffic" in p.message for p in problems)


def test_bridged_firewall_with_promiscuous_and_forged_transmits_is_clean():
    t = design()
    _bridged_firewall(t, Security(promiscuous=True, forged_transmits=True))
    assert validate(t) == []
    t.switches[0].portgroups[0].security = Security(promiscuous=True, forged_transmits=False)
    assert "forged transmits" in only(t).message
