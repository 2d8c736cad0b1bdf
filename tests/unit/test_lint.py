"""Lint an admin wants before deploying (``vnetbench validate`` and the Problems dock): one test each."""

from __future__ import annotations

import json

from builders import Design, ForwardMode, SwitchKind, Uplink, Verdict, VmRole

from vnetbench.cli.main import main
from vnetbench.model import NicType, save
from vnetbench.model.objects import Encapsulation, Route
from vnetbench.predict.lint import check


def two_vlans() -> Design:
    """esx1's vSwitch0 uplinked to a trunk carrying 10 and 20, a router on a stick for both."""
    d = Design()
    h = d.host("esx1", pnics=3)
    ps = d.pswitch("sw1")
    d.plug(ps, "esx1.vmnic0", trunk=True, allowed="10,20")
    sw = d.switch(h, "vSwitch0", ["esx1.vmnic0"])
    d.router("r1", [(d.port(ps, "r", trunk=True), "10.0.10.1/24", 10), (None, "10.0.20.1/24", 20)], switch=ps)
    d.vm("a", h, d.pg(sw, "v10", 10), "10.0.10.11/24", "10.0.10.1")
    d.vm("b", h, d.pg(sw, "v20", 20), "10.0.20.11/24", "10.0.20.1")
    return d


def found(d: Design, words: str) -> list:
    return [p for p in check(d.t) if words in p.message]


def test_the_base_design_is_clean():
    assert check(two_vlans().t) == []


def test_a_gateway_nothing_owns():
    d = two_vlans()
    d.t.vms[0].vnics[0].gateway = "10.0.10.254"
    (p,) = found(d, "nothing in the design owns")
    assert (p.severity, p.path, p.object_id) == ("warning", "vms[0].vnics[0].gateway", "a.eth0")
    assert "10.0.10.254" in p.hint


def test_a_portgroup_vlan_the_active_uplinks_port_does_not_carry():
    d = two_vlans()
    d.t.switches[0].portgroups[1].vlan = 30
    d.t.vms[1].vnics[0].ip, d.t.vms[1].vnics[0].gateway = "10.0.30.11/24", None
    (p,) = found(d, "does not carry it")
    assert p.path == "switches[0].portgroups[1].vlan" and "port p1 of sw1" in p.message
    assert "allow VLAN 30 on p1" in p.hint


def test_a_vm_whose_subnet_differs_from_the_rest_of_its_segment():
    d = two_vlans()
    h, pg10 = d.t.hosts[0], d.t.switches[0].portgroups[0]
    d.vm("c", h, pg10, "10.0.10.12/24", "10.0.10.1")
    d.vm("odd", h, pg10, "10.9.9.9/24")
    (p,) = found(d, "but the rest of its layer-2 domain")
    assert p.path == "vms[3].vnics[0].ip" and "10.0.10.0/24" in p.message and p.severity == "warning"


def test_two_addresses_colliding_in_one_l2_domain():
    d = two_vlans()
    h2 = d.host("esx2")
    d.plug(d.t.physical_switches[0], "esx2.vmnic0", trunk=True, allowed="10,20")
    sw2 = d.switch(h2, "vSwitch0", ["esx2.vmnic0"])
    d.vm("twin", h2, d.pg(sw2, "v10", 10), "10.0.10.11/24", "10.0.10.1")   # a's address, on another host
    (p,) = found(d, "which a/eth0 has too")
    assert (p.severity, p.path) == ("error", "vms[2].vnics[0].ip") and "layer-2 domain" in p.message


def test_a_route_whose_next_hop_is_unreachable():
    d = two_vlans()
    d.t.physical_routers[0].routes.append(Route("192.168.0.0/16", "10.0.20.99"))
    (p,) = found(d, "cannot reach")
    assert p.path == "physical_routers[0].routes[0].via" and "nothing in the design has the address" in p.message


def test_a_bridged_firewall_without_the_security_policy_it_needs():
    d = two_vlans()
    h = d.t.hosts[0]
    pg10, pg20 = d.t.switches[0].portgroups
    d.fw("fw", h, [(pg10, None), (pg20, None)], mode=ForwardMode.BRIDGED)
    problems = found(d, "so the firewall will drop traffic")
    assert all("rejects promiscuous mode," in p.message for p in problems)   # forged transmits: accepted
    assert {p.path for p in problems} == {"vms[2].vnics[0].network", "vms[2].vnics[1].network"}


def test_a_flow_whose_two_directions_take_different_routers():
    d = two_vlans()
    h, (pg10, pg20) = d.t.hosts[0], d.t.switches[0].portgroups
    d.fw("fw", h, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")], role=VmRole.ROUTER)
    d.t.vms[0].vnics[0].gateway = "10.0.10.254"        # a leaves through the router VM, b replies via r1
    (p,) = found(d, "asymmetric path")
    assert p.severity == "warning" and "fw" in p.message and "r1" in p.message


def test_an_asymmetric_path_through_a_stateless_firewall_is_no_problem():
    """Only a stateful firewall that sees one direction drops the conversation; predict agrees."""
    d = two_vlans()
    h, (pg10, pg20) = d.t.hosts[0], d.t.switches[0].portgroups
    d.fw("fw", h, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")], stateful=False)
    d.t.vms[0].vnics[0].gateway = "10.0.10.254"
    assert not found(d, "asymmetric path")
    a, b = d.t.vms[0].id, d.t.vms[1].id
    assert d.verdict(a, b) is Verdict.ROUTED_VIA_PHYSICAL


def test_the_overlay_transport_mtu_must_carry_a_1500_byte_guest_packet():
    d = two_vlans()
    h2 = d.host("esx2")
    d.plug(d.t.physical_switches[0], "esx2.vmnic0", trunk=True)
    d.plug(d.t.physical_switches[0], "esx1.vmnic1", trunk=True)
    ls = d.switch(None, "ls", kind=SwitchKind.NSX_SEGMENT, members=[d.t.hosts[0], h2],
                  encapsulation=Encapsulation.VXLAN)
    ls.uplinks = [Uplink("esx1.vmnic1"), Uplink("esx2.vmnic0")]
    problems = found(d, "cannot carry a 1500-byte guest packet")
    assert [p.message.split(": ")[0][-4:] for p in problems] == ["esx1", "esx2"]     # one per member host
    assert all("vxlan adds 50 bytes" in p.message and "1550" in p.hint for p in problems)
    for pnic in (d.t.hosts[0].pnics[1], h2.pnics[0]):
        pnic.mtu = 1600
    for port in d.t.physical_switches[0].ports:
        port.mtu = 1600
    assert found(d, "cannot carry") == []


def test_a_single_host_nsx_segment_encapsulates_nothing_so_its_transport_mtu_does_not_matter():
    d = two_vlans()
    d.plug(d.t.physical_switches[0], "esx1.vmnic1", trunk=True)
    ls = d.switch(None, "ls", kind=SwitchKind.NSX_SEGMENT, members=[d.t.hosts[0]], encapsulation=Encapsulation.VXLAN)
    ls.uplinks = [Uplink("esx1.vmnic1")]
    assert found(d, "cannot carry") == []


def test_sriov_and_directpath_adapters_are_checked():
    d = two_vlans()
    h, pg10 = d.t.hosts[0], d.t.switches[0].portgroups[0]
    d.vm("vf", h, pg10, "10.0.10.50/24", nic_type=NicType.SRIOV)
    dp = d.vm("dp", h, pg10, "10.0.10.51/24", nic_type=NicType.DIRECTPATH)
    dp.vnics[0].physical_function = "esx1.vmnic0"                 # the vSwitch's uplink
    problems = {p.path: p.message for p in check(d.t)}
    assert "names no pNIC" in problems["vms[2].vnics[0].physical_function"]
    assert "takes no network" in problems["vms[3].vnics[0].network"]
    assert "also an uplink of esx1/vSwitch0" in problems["vms[3].vnics[0].physical_function"]


def test_validate_on_the_command_line_shows_the_lint(tmp_path, capsys):
    d = two_vlans()
    d.t.vms[0].vnics[0].gateway = "10.0.10.254"
    path = tmp_path / "d.vnet.yaml"
    save(d.t, path)
    assert main(["validate", str(path), "--json"]) == 0      # warnings only
    out = json.loads(capsys.readouterr().out)
    assert out["warnings"] == 1 and "nothing in the design owns" in out["problems"][0]["message"]


# --- issue 33: validate never tracebacks; each check fails alone ---------------------------------------------


def test_a_router_vm_whose_upstream_gateway_is_not_drawn_yet(tmp_path):
    """A normal sketch: the router VM's uplink gateway belongs to a router not drawn yet. It used to raise
    AttributeError in next_hops; now validation says the gateway is nobody's and lint adds nothing."""
    d = two_vlans()
    h = d.t.hosts[0]
    sw = d.t.switches[0]
    d.fw("edge1", h, [(sw.portgroups[0], "10.0.10.2/24", "10.0.10.254"), (sw.portgroups[1], "10.0.20.2/24")],
         role=VmRole.ROUTER)
    (p,) = found(d, "nothing in the design owns")
    assert p.object_id == "edge1.eth0" and p.path.endswith(".gateway")
    assert not found(d, "could not run")
    save(d.t, tmp_path / "d.vnet.yaml")
    assert main(["validate", str(tmp_path / "d.vnet.yaml")]) == 0


def test_a_router_vm_whose_gateway_is_owned_but_out_of_reach():
    """The gateway belongs to an interface in another layer-2 domain: reported on the router VM's vNIC."""
    d = two_vlans()
    h, sw = d.t.hosts[0], d.t.switches[0]
    d.fw("edge1", h, [(sw.portgroups[0], "10.0.10.2/24", "10.0.10.99")], role=VmRole.ROUTER)
    d.vm("far", h, d.pg(sw, "v30", 30), "10.0.10.99/24")
    problems = found(d, "edge1's route to 0.0.0.0/0")
    assert problems and all(p.object_id == "edge1.eth0" and p.path.endswith(".gateway") for p in problems)
    assert not found(d, "could not run")


def test_a_negative_hardware_version_with_an_adapter_that_has_no_minimum(tmp_path, capsys):
    """e1000 has no minimum hardware version: a negative version used to raise KeyError in check_nic_type."""
    d = two_vlans()
    d.t.vms[0].hardware_version = -1
    d.t.vms[0].vnics[0].type = NicType.E1000
    (p,) = found(d, "hardware version -1")
    assert (p.severity, p.path) == ("error", "vms[0].hardware_version")
    assert not found(d, "could not run")
    save(d.t, tmp_path / "d.vnet.yaml")
    assert main(["validate", str(tmp_path / "d.vnet.yaml")]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_each_check_fails_alone(monkeypatch):
    """A bug in one check (validation or lint) is one problem naming it; every other check still reports."""
    from vnetbench.model import validate as validation
    from vnetbench.predict import lint as linting

    d = two_vlans()
    d.t.vms[0].vnics[0].gateway = "10.0.10.254"   # found by validation's gateway check
    d.t.vms[1].vnics[0].ip = "10.0.10.11/24"       # on VLAN 20 with VLAN 10's subnet: found by lint's subnet check
    d.t.vms[1].cpus = 0                            # found by validation's VM check
    expected = {p.message for p in check(d.t)}
    assert len(expected) >= 3

    def check_names(self, *args):
        raise RuntimeError("boom")

    monkeypatch.setattr(validation._Checker, "check_names", check_names)
    monkeypatch.setattr(linting._Linter, "next_hops", check_names)
    problems = check(d.t)
    messages = {p.message for p in problems}
    assert expected <= messages
    failed = sorted(p.message for p in problems if "could not run" in p.message)
    assert failed == ["the check of names could not run (RuntimeError: boom)",
                      "the lint of route next hops could not run (RuntimeError: boom)"]

    monkeypatch.setattr(linting, "Engine", check_names)  # the engine itself fails: validation still reports all
    problems = check(d.t)
    assert {p.message for p in validation.validate(d.t)} <= {p.message for p in problems}
    assert any(p.message.startswith("the prediction's lint could not run") for p in problems)
