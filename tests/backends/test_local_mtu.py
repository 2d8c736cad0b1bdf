"""MTU end to end, in the real lab: the predicted largest packet gets through, one byte more does not.

``ping -M do -s N`` sends an IPv4 packet of N + 28 bytes that no one may fragment. The lab sets the design's MTUs
on its veths (vNIC and virtual switch, pNIC and port, trunk ports, the VXLAN device), so each limit is the
kernel's, not a copy of the prediction's arithmetic.
"""

from __future__ import annotations

import pytest
from lab_designs import unique_id, vm

from vnetbench.model import (Encapsulation, Host, HostNic, Link, PhysicalHost, PhysicalRouter, PhysicalSwitch, PNic,
                             Port, Portgroup, PortMode, RouterInterface, Switch, SwitchKind, Topology, Uplink)
from vnetbench.predict import Engine

pytestmark = pytest.mark.lab

ICMP_AND_IP = 28


def jumbo_across_a_smaller_trunk() -> Topology:
    """Two hosts at MTU 9000 whose switches are joined by a trunk one of whose ports takes 4000."""
    t = Topology(unique_id("mtu-trunk"), name="jumbo frames across a 4000-byte trunk port")
    for i in (1, 2):
        t.hosts.append(Host(f"h{i}", f"esx{i}", pnics=[PNic(f"h{i}-n0", "vmnic0", 10000, mtu=9000)]))
        t.switches.append(Switch(f"vs{i}", "vSwitch0", host=f"h{i}", uplinks=[Uplink(f"h{i}-n0")], mtu=9000,
                                 portgroups=[Portgroup(f"pg{i}", "VLAN10", vlan=10)]))
        t.physical_switches.append(PhysicalSwitch(f"s{i}", f"sw{i}", ports=[
            Port(f"s{i}-h", "Gi1", PortMode.TRUNK, mtu=9000),
            Port(f"s{i}-t", "Te1", PortMode.TRUNK, mtu=4000 if i == 1 else 9000)]))
        t.links.append(Link(f"l{i}", f"h{i}-n0", f"s{i}-h"))
        t.vms.append(vm(f"v{i}", f"h{i}", f"pg{i}", f"10.0.0.{i}/24"))
        t.vms[-1].vnics[0].mtu = 9000
    t.links.append(Link("trunk", "s1-t", "s2-t"))
    return t


def overlay(encapsulation: Encapsulation) -> Topology:
    """An NSX segment at MTU 9000 across two hosts whose transport pNICs take 1600."""
    t = Topology(unique_id(f"mtu-{encapsulation}"), name=f"{encapsulation} overlay on a 1600-byte transport")
    ps = PhysicalSwitch("s", "tor", ports=[])
    t.physical_switches.append(ps)
    for i in (1, 2):
        t.hosts.append(Host(f"h{i}", f"esx{i}", pnics=[PNic(f"h{i}-n0", "vmnic0", 10000, mtu=1600)]))
        ps.ports.append(Port(f"p{i}", f"Gi{i}", PortMode.ACCESS, access_vlan=50, mtu=9000))
        t.links.append(Link(f"l{i}", f"h{i}-n0", f"p{i}"))
        t.vms.append(vm(f"v{i}", f"h{i}", "ls-pg", f"172.16.0.{i}/24"))
        t.vms[-1].vnics[0].mtu = 9000
    t.switches.append(Switch("ls", "ls", SwitchKind.NSX_SEGMENT, members=["h1", "h2"], mtu=9000,
                             uplinks=[Uplink("h1-n0"), Uplink("h2-n0")], encapsulation=encapsulation,
                             portgroups=[Portgroup("ls-pg", "ls")]))
    return t


def overlay_one_sided(encapsulation: Encapsulation = Encapsulation.VXLAN) -> Topology:
    """The overlay with esx2's transport port at 1500 and esx1's at 1600: the smaller limits both directions."""
    t = overlay(encapsulation)
    t.id = unique_id("mtu-one-sided")
    for pnic in (t.hosts[0].pnics[0], t.hosts[1].pnics[0]):
        pnic.mtu = 1600
    t.physical_switches[0].ports[0].mtu = 1600
    t.physical_switches[0].ports[1].mtu = 1500
    return t


def jumbo_to_nas() -> Topology:
    """A jumbo VM (9000 end to end on esx1) and a NAS on a 1500-byte port of the same switch and VLAN."""
    t = jumbo_across_a_smaller_trunk()
    t.id = unique_id("mtu-nas")
    t.physical_switches[0].ports.append(Port("s1-nas", "Gi9", PortMode.ACCESS, access_vlan=10, mtu=1500))
    t.physical_hosts.append(PhysicalHost("nas", "nas", nics=[HostNic("nas-n0", "eth0", ip="10.0.0.9/24")]))
    t.links.append(Link("lnas", "nas-n0", "s1-nas"))
    return t


def jumbo_routed() -> Topology:
    """A jumbo VM in VLAN 10 and a jumbo NAS in VLAN 20, routed by a router whose legs sit on 1500-byte ports."""
    t = jumbo_to_nas()
    t.id = unique_id("mtu-routed")
    nas_port = t.physical_switches[0].ports[-1]
    nas_port.access_vlan, nas_port.mtu = 20, 9000
    t.physical_hosts[0].nics[0].ip, t.physical_hosts[0].nics[0].gateway = "10.0.20.9/24", "10.0.20.1"
    t.vms[0].vnics[0].gateway = "10.0.0.254"
    t.physical_switches[0].ports.append(Port("s1-r", "Gi8", PortMode.TRUNK, mtu=1500))
    t.physical_routers.append(PhysicalRouter("r1", "r1", interfaces=[
        RouterInterface("r1-a", "eth0", ip="10.0.0.254/24", vlan=10), RouterInterface("r1-b", "eth1", ip="10.0.20.1/24", vlan=20)]))
    t.links += [Link("lra", "r1-a", "s1-r"), Link("lrb", "r1-b", "s1-r")]
    return t


def ping_df(backend, design, src: str, dst_ip: str, size: int) -> bool:
    cmd = backend.endpoint(design, src).start(["ping", "-M", "do", "-s", str(size), "-c2", "-i0.3", "-W2", dst_ip])
    list(cmd.lines())
    return cmd.wait(10) == 0


@pytest.mark.parametrize("design, limit, where", [
    (jumbo_across_a_smaller_trunk, 4000, "port Te1 of sw1"),
    (lambda: overlay(Encapsulation.VXLAN), 1550, "VXLAN adds 50"),
    (lambda: overlay(Encapsulation.GENEVE), 1546, "Geneve adds 54"),
])
def test_the_predicted_largest_packet_gets_through_and_one_byte_more_does_not(lab, design, limit, where):
    d = design()
    p = Engine(d).predict("v1", "v2", "icmp")
    mtu, at = p.mtu
    assert (mtu, where in at) == (limit, True), at
    lab.up(d)
    target = d.vms[1].vnics[0].ip.split("/")[0]
    assert ping_df(lab, d, "v1", target, mtu - ICMP_AND_IP)
    assert not ping_df(lab, d, "v1", target, mtu - ICMP_AND_IP + 1)


@pytest.mark.parametrize("design, src, dst, limit, where", [
    (overlay_one_sided, "v1", "v2", 1450, "takes 1500 bytes at port Gi2 of tor"),
    (jumbo_to_nas, "v1", "nas", 1500, "port Gi9 of sw1"),
    (jumbo_routed, "v1", "nas", 1500, "port Gi8 of sw1"),
])
def test_the_smallest_limit_holds_in_both_directions(lab, design, src, dst, limit, where):
    """A limit on one side only (one host's transport port, a NAS's or a router's switch port) holds for
    packets going either way: the lab passes the predicted largest packet and drops one byte more (RFC 1191)."""
    d = design()
    engine = Engine(d)
    for a, b in ((src, dst), (dst, src)):
        mtu, at = engine.predict(a, b, "icmp").mtu
        assert (mtu, where in at) == (limit, True), (a, b, at)
    lab.up(d)
    for a, b in ((src, dst), (dst, src)):
        target = lab.endpoint(d, b).address()
        assert ping_df(lab, d, a, target, limit - ICMP_AND_IP), (a, b)
        assert not ping_df(lab, d, a, target, limit - ICMP_AND_IP + 1), (a, b)
