"""SR-IOV, DirectPath and raw sockets in the real lab: the forwarding each attachment has, pinged.

The lab emulates a VF by a bridge for the pNIC's embedded switch (joined inside the host to the vSwitch segment
that leaves through the same pNIC in the same VLAN, as the NIC's switch joins its VFs and its own traffic), a
DirectPath guest by a veth straight onto its pNIC's wire, and a raw AF_PACKET socket like macvtap VEPA.
"""

from __future__ import annotations

import pytest
from lab_designs import unique_id, vm

from vnetbench.model import (Host, HostKind, Link, NicType, PhysicalSwitch, PNic, Port, Portgroup, PortMode, Switch,
                             SwitchKind, Topology, Uplink)
from vnetbench.predict import Engine, Verdict

pytestmark = pytest.mark.lab


def bypass() -> Topology:
    """esx1: vf1 and vf2 are VFs of vmnic0, plain sits on vSwitch0 (uplinked through vmnic0), all in VLAN 10;
    dp owns vmnic1 (DirectPath, untagged into VLAN 10 of the access port); vf3 is a VF in VLAN 20."""
    t = Topology(unique_id("bypass"), name="SR-IOV and DirectPath")
    t.hosts.append(Host("h", "esx1", pnics=[PNic("h-n0", "vmnic0", 10000), PNic("h-n1", "vmnic1", 10000)]))
    t.switches.append(Switch("vs", "vSwitch0", host="h", uplinks=[Uplink("h-n0")], portgroups=[
        Portgroup("pg10", "VLAN10", vlan=10), Portgroup("pg20", "VLAN20", vlan=20)]))
    t.physical_switches.append(PhysicalSwitch("s", "tor", ports=[Port("p0", "Gi0", PortMode.TRUNK),
                                                                 Port("p1", "Gi1", PortMode.ACCESS, access_vlan=10)]))
    t.links += [Link("l0", "h-n0", "p0"), Link("l1", "h-n1", "p1")]
    for name, pg, ip in (("vf1", "pg10", "10.0.10.1/24"), ("vf2", "pg10", "10.0.10.2/24"),
                         ("vf3", "pg20", "10.0.10.5/24")):
        t.vms.append(vm(name, "h", pg, ip))
        t.vms[-1].vnics[0].type, t.vms[-1].vnics[0].physical_function = NicType.SRIOV, "h-n0"
    t.vms.append(vm("plain", "h", "pg10", "10.0.10.3/24"))
    t.vms.append(vm("dp", "h", None, "10.0.10.4/24"))
    t.vms[-1].vnics[0].type, t.vms[-1].vnics[0].physical_function = NicType.DIRECTPATH, "h-n1"
    return t


def raw(hairpin: bool) -> Topology:
    t = Topology(unique_id("raw"), name="raw AF_PACKET")
    t.hosts.append(Host("k", "kvm1", HostKind.KVM, pnics=[PNic("k-e0", "eth0")]))
    t.switches.append(Switch("r", "eth0-raw", SwitchKind.RAW, host="k", uplinks=[Uplink("k-e0")]))
    t.physical_switches.append(PhysicalSwitch("s", "tor", ports=[Port("p", "1", hairpin=hairpin)]))
    t.links.append(Link("l", "k-e0", "p"))
    t.vms += [vm("g1", "k", "r", "10.5.0.1/24"), vm("g2", "k", "r", "10.5.0.2/24")]
    return t


def ping(backend, design, src, dst_ip) -> bool:
    cmd = backend.endpoint(design, src).start(["ping", "-c3", "-i0.3", "-W2", dst_ip])
    list(cmd.lines())
    return cmd.wait(10) == 0


def test_sriov_and_directpath_forward_as_predicted(lab):
    d = bypass()
    engine = Engine(d)
    expected = {("vf1", "vf2"): Verdict.IN_HOST, ("vf1", "plain"): Verdict.IN_HOST,
                ("dp", "vf1"): Verdict.VIA_PHYSICAL, ("vf3", "vf1"): Verdict.UNREACHABLE}
    assert {pair: engine.predict(*pair, "icmp").verdict for pair in expected} == expected
    lab.up(d)
    ips = {v.id: v.vnics[0].ip.split("/")[0] for v in d.vms}
    assert {pair: ping(lab, d, pair[0], ips[pair[1]]) for pair in expected} == \
        {pair: verdict.delivered for pair, verdict in expected.items()}


@pytest.mark.parametrize("hairpin", [False, True])
def test_raw_socket_guests_meet_only_through_a_hairpin_port(lab, hairpin):
    d = raw(hairpin)
    assert Engine(d).predict("g1", "g2", "icmp").verdict is (Verdict.VIA_PHYSICAL if hairpin else Verdict.UNREACHABLE)
    lab.up(d)
    assert ping(lab, d, "g1", "10.5.0.2") is hairpin
