"""The probe guest's kernel command line carries both families (``vnetbench_kvm.cmdline``): every address of a
vNIC, the IPv4 and IPv6 gateways (a link-local one with the guest's interface), and import reads them back. An
IPv4-only design gets exactly the words of the images made before IPv6, so those images keep working."""

from __future__ import annotations

import pytest

from vnetbench import resources_dir
from vnetbench.model import (VM, ForwardMode, Host, HostKind, Portgroup, Switch, SwitchKind, Topology, VmRole, VNic,
                             load)
from vnetbench.model.objects import Forwarding, Route


def _domains(design: Topology) -> dict[str, dict]:
    from vnetbench_kvm.desired import Boot, desired

    want = desired(design, {h.id: Boot("/k", "/i") for h in design.hosts})
    assert want.reasons == []
    return {w.spec["name"].rsplit("-", 1)[1]: w.spec for w in want.wants.values() if w.kind == "domain"}


def _dual() -> Topology:
    sw = Switch("sw", "ovs0", SwitchKind.OVS, host="h", portgroups=[Portgroup("pg", "trunk", "trunk")])
    rt = VM("vm-rt", "rt", host="h", role=VmRole.ROUTER,
            vnics=[VNic("rt0", "lan", network="pg", guest_vlan=10, ip="10.1.0.1/24",
                        addresses=["2001:db8:1::1/64", "fe80::1/64"]),
                   VNic("rt1", "wan", network="pg", guest_vlan=20, ip="2001:db8:2::1/64")],
            forwarding=Forwarding(ForwardMode.ROUTED, routes=[Route("default", "fe80::99%wan"),
                                                              Route("10.9.0.0/16", "10.1.0.9")]))
    vm = VM("vm-a", "a", host="h",
            vnics=[VNic("a0", "eth0", network="pg", guest_vlan=10, ip="10.1.0.5/24",
                        addresses=["2001:db8:1::5/64", "2001:db8:1::6/64"], gateway="10.1.0.1",
                        gateway6="fe80::1%eth0", mac="52:54:00:AA:00:05")])
    return Topology("dual", "dual", hosts=[Host("h", "kvm01", HostKind.KVM)], switches=[sw], vms=[rt, vm])


def test_every_address_and_both_gateways_go_on_the_command_line():
    specs = _domains(_dual())
    words = specs["a"]["cmdline"].split()
    assert [w for w in words if w.startswith("vnb.") and not w.startswith("vnb.name")] == [
        "vnb.nic=52:54:00:aa:00:05,10.1.0.5/24,10,eth0", "vnb.addr=52:54:00:aa:00:05,2001:db8:1::5/64",
        "vnb.addr=52:54:00:aa:00:05,2001:db8:1::6/64", "vnb.gw=10.1.0.1",
        "vnb.gw6=fe80::1%eth0.10"]                     # link-local: by the guest's own interface (its VLAN's)
    rt, rt_words = specs["rt"], specs["rt"]["cmdline"].split()
    assert [w.split(",", 1)[1] for w in rt_words if w.startswith(("vnb.nic=", "vnb.addr="))] == [
        "10.1.0.1/24,10,eth0", "2001:db8:1::1/64", "fe80::1/64", "2001:db8:2::1/64,20,eth1"]   # an IPv6 first one
    assert not [w for w in rt_words if w.startswith("vnb.gw")]
    # static routes of both families; a link-local next hop leaves by the guest's interface of its vNIC
    assert rt["routes"] == [["::/0", "fe80::99", "eth1.20"], ["10.9.0.0/16", "10.1.0.9"]]


def test_an_ipv4_design_keeps_the_words_old_images_read():
    spec = _domains(load(resources_dir() / "examples" / "kvm-nic-models.vnet.yaml"))["fw01"]
    words = spec["cmdline"].split()
    assert "vnb.nic=52:54:00:4b:00:02,10.20.0.1/24,,eth1" in words
    assert not [w for w in words if w.startswith(("vnb.addr=", "vnb.gw6="))]


def test_the_command_line_reads_back():
    from vnetbench_kvm import cmdline

    nics, gateways = cmdline.parse(_domains(_dual())["a"]["cmdline"])
    assert nics == {"52:54:00:aa:00:05": cmdline.GuestNic("eth0", 10, ["10.1.0.5/24", "2001:db8:1::5/64",
                                                                        "2001:db8:1::6/64"])}
    assert gateways == {4: "10.1.0.1", 6: "fe80::1%eth0.10"}
    old = cmdline.parse("console=ttyS0 vnb.nic=52:54:00:00:00:01,-,,eth0 vnb.nic=52:54:00:00:00:02,10.0.0.2/24,7,eth1 "
                        "vnb.gw=10.0.0.1 vnb.addr=52:54:00:00:00:09,10.9.9.9/24 vnb.gw=nonsense")
    assert old == ({"52:54:00:00:00:01": cmdline.GuestNic("eth0", None, []),
                    "52:54:00:00:00:02": cmdline.GuestNic("eth1", 7, ["10.0.0.2/24"])}, {4: "10.0.0.1"})


class _Conn:
    def getInfo(self):
        return ["x86_64", 4096, 2]

    def listAllDomains(self, flags):
        return []


def _imported(design: Topology, name: str) -> VM:
    from vnetbench_kvm.importer import _Host
    from vnetbench_kvm.xml import Mark, domain_xml

    host = _Host(Topology("t", "t"), "kvm01", _Conn())
    host.domain(domain_xml(_domains(design)[name], Mark(design.id, "domain/x", "m", role="vm", host="kvm01"), 8))
    return host.topo.vms[0]


def test_import_reads_every_address_and_both_gateways():
    nic = _imported(_dual(), "a").vnics[0]
    assert (nic.ip, nic.addresses, nic.gateway, nic.gateway6, nic.guest_vlan) == (
        "10.1.0.5/24", ["2001:db8:1::5/64", "2001:db8:1::6/64"], "10.1.0.1", "fe80::1%eth0", 10)
    design = _dual()
    design.vms[1].vnics[0].gateway6 = "2001:db8:1::1"          # a global gateway: on the vNIC whose prefix holds it
    assert _imported(design, "a").vnics[0].gateway6 == "2001:db8:1::1"


class _Dom:
    def __init__(self, libvirt):
        self.libvirt = libvirt

    def isActive(self):
        return True

    def interfaceAddresses(self, source, flags):
        v4, v6 = self.libvirt.VIR_IP_ADDR_TYPE_IPV4, self.libvirt.VIR_IP_ADDR_TYPE_IPV6
        return {"eth0": {"hwaddr": "52:54:00:AA:BB:CC", "addrs": [
            {"type": v6, "addr": "fe80::5054:ff:feaa:bbcc", "prefix": 64},
            {"type": v6, "addr": "2001:db8::5", "prefix": 64}, {"type": v4, "addr": "10.0.0.5", "prefix": 24}]}}


def test_the_guest_agent_reports_global_ipv6_addresses_after_the_ipv4_ones():
    libvirt = pytest.importorskip("libvirt")
    from vnetbench_kvm.importer import _reported_addresses

    assert {mac: nic.addresses for mac, nic in _reported_addresses(_Dom(libvirt)).items()} == {
        "52:54:00:aa:bb:cc": ["10.0.0.5/24", "2001:db8::5/64"]}


def test_a_command_line_over_the_kernel_limit_is_refused_with_its_length():
    from vnetbench_kvm.desired import Boot, desired

    design = _dual()
    design.vms[1].vnics[0].addresses = [f"2001:db8:1::{i:x}/64" for i in range(10, 80)]
    reasons = desired(design, {"h": Boot("/k", "/i")}).reasons
    assert len(reasons) == 1 and reasons[0].startswith("VM a: its addresses make a kernel command line of ")
    assert "over the 2048 the guest kernel takes" in reasons[0]
