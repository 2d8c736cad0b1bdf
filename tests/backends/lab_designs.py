"""Small designs for the local lab tests, built in code (each call gets a fresh, unique design id)."""

from __future__ import annotations

import itertools
import os

from vnetbench.model import (VM, Action, Forwarding, ForwardMode, Host, HostKind, HostNic, Link, MacvtapMode,
                             PhysicalHost, PhysicalRouter, PhysicalSwitch, PNic, Port, Portgroup, PortMode, Proto,
                             RouterInterface, Rule, Security, Switch, SwitchKind, Topology, Uplink, VmRole, VNic)

_seq = itertools.count()


def unique_id(stem: str) -> str:
    return f"{stem}-{os.getpid()}-{next(_seq)}"


def vm(vm_id: str, host: str, network: str, ip: str, gateway: str | None = None, **kw) -> VM:
    return VM(vm_id, vm_id, host=host, vnics=[VNic(f"{vm_id}-nic", "eth0", network=network, ip=ip,
                                                   gateway=gateway)], **kw)


def campus(vms_per_host: int = 2, hosts: int = 2, vlans: tuple[int, ...] = (10, 20)) -> Topology:
    """``hosts`` ESXi hosts with one vSwitch each (a portgroup per VLAN), trunked to one L3 switch.

    VM ``h{i}v{j}`` sits in VLAN ``vlans[j % len(vlans)]`` = 10.{vlan}.0.0/16; the L3 switch routes.
    """
    t = Topology(unique_id("campus"), name="campus")
    ps = PhysicalSwitch("core", "core", ports=[])
    t.physical_switches.append(ps)
    t.physical_routers.append(PhysicalRouter("core-l3", "core-l3", switch="core", interfaces=[
        RouterInterface(f"svi{v}", f"Vlan{v}", ip=f"10.{v}.0.1/16", vlan=v) for v in vlans]))
    for h in range(hosts):
        host = Host(f"h{h}", f"esx{h}", pnics=[PNic(f"h{h}-nic0", "vmnic0")])
        t.hosts.append(host)
        sw = Switch(f"h{h}-vs0", "vSwitch0", SwitchKind.VSS, host=host.id, uplinks=[Uplink(f"h{h}-nic0")],
                    portgroups=[Portgroup(f"h{h}-pg{v}", f"VLAN{v}", vlan=v) for v in vlans])
        t.switches.append(sw)
        ps.ports.append(Port(f"core-p{h}", f"Gi0/{h}", PortMode.TRUNK,
                             allowed=",".join(str(v) for v in vlans)))
        t.links.append(Link(f"l{h}", f"h{h}-nic0", f"core-p{h}"))
        for j in range(vms_per_host):
            v = vlans[j % len(vlans)]
            t.vms.append(vm(f"h{h}v{j}", host.id, f"h{h}-pg{v}", f"10.{v}.{h}.{j + 10}/16", f"10.{v}.0.1"))
    return t


def firewalled(mode: ForwardMode = ForwardMode.ROUTED, promiscuous: bool = True) -> Topology:
    """Two VMs on one host behind a firewall VM; the firewall allows ICMP and TCP/5201, denies the rest.

    Routed: ``a`` in VLAN 10 (10.1.0.0/24), ``b`` in VLAN 20 (10.2.0.0/24), the firewall routes.
    Bridged: both in 10.1.0.0/24, the firewall bridges VLAN 10 and VLAN 20.
    """
    t = Topology(unique_id(f"fw-{mode.value}"), name=f"firewall {mode.value}")
    sec = Security(promiscuous=promiscuous, forged_transmits=True)
    t.hosts.append(Host("h", "esx"))
    t.switches.append(Switch("vs", "vSwitch0", SwitchKind.VSS, host="h", portgroups=[
        Portgroup("pg10", "VLAN10", vlan=10, security=sec), Portgroup("pg20", "VLAN20", vlan=20, security=sec)]))
    bridged = mode is ForwardMode.BRIDGED
    b_net = "10.1.0.3/24" if bridged else "10.2.0.3/24"
    t.vms += [vm("a", "h", "pg10", "10.1.0.2/24", None if bridged else "10.1.0.1"),
              vm("b", "h", "pg20", b_net, None if bridged else "10.2.0.1")]
    rules = [Rule(Action.ALLOW, proto=Proto.ICMP, name="ping"), Rule(Action.ALLOW, dst="b", proto=Proto.TCP, port=5201,
                                                                     name="iperf"),
             Rule(Action.DENY, name="rest")]
    t.vms.append(VM("fw", "fw", host="h", role=VmRole.FIREWALL,
                    forwarding=Forwarding(mode, stateful=True, default_policy=Action.DENY, rules=rules),
                    vnics=[VNic("fw-0", "eth0", network="pg10", ip=None if bridged else "10.1.0.1/24"),
                           VNic("fw-1", "eth1", network="pg20", ip=None if bridged else "10.2.0.1/24")]))
    return t


def macvtap(mode: MacvtapMode, hairpin: bool) -> Topology:
    """Two guests on one pNIC through macvtap in ``mode``; the pNIC's switch port reflects when ``hairpin``."""
    t = Topology(unique_id(f"mv-{mode.value}"), name=f"macvtap {mode.value}")
    t.hosts.append(Host("k", "kvm1", pnics=[PNic("k-eth0", "eth0")]))
    t.switches.append(Switch("mv", "macvtap0", SwitchKind.MACVTAP, host="k", uplinks=[Uplink("k-eth0")],
                             macvtap_mode=mode))
    t.physical_switches.append(PhysicalSwitch("tor", "tor", ports=[Port("tor-1", "1", PortMode.ACCESS,
                                                                        access_vlan=5, hairpin=hairpin)]))
    t.links.append(Link("l1", "k-eth0", "tor-1"))
    t.vms += [vm("g1", "k", "mv", "10.5.0.1/24"), vm("g2", "k", "mv", "10.5.0.2/24")]
    return t


def looped() -> Topology:
    """A design the lab must refuse: two ports of the physical switch cabled to each other (a layer-2 loop)."""
    t = campus(vms_per_host=1, hosts=1)
    ps = t.physical_switches[0]
    ps.ports += [Port("core-x", "Gi1/1", PortMode.TRUNK, allowed="10,20"),
                 Port("core-y", "Gi1/2", PortMode.TRUNK, allowed="10,20")]
    t.links.append(Link("loop", "core-x", "core-y"))
    return t


def hosted_nat() -> Topology:
    """A hosted hypervisor: ``v1`` behind the NAT network VMnet8, ``v3`` host-only, a laptop on the LAN."""
    t = Topology(unique_id("hosted"), name="hosted NAT")
    t.hosts.append(Host("h", "ws", HostKind.HOSTED, pnics=[PNic("h-e0", "eth0", speed_mbps=100)]))
    t.switches += [Switch("nat", "VMnet8", SwitchKind.HOSTED_NAT, host="h", nat_gateway="192.168.100.2"),
                   Switch("ho", "VMnet1", SwitchKind.HOSTED_HOSTONLY, host="h", host_address="192.168.50.1/24")]
    t.vms += [vm("v1", "h", "nat", "192.168.100.10/24", "192.168.100.2"), vm("v3", "h", "ho", "192.168.50.10/24")]
    t.physical_switches.append(PhysicalSwitch("sw", "sw", ports=[Port("p1", "1"), Port("p2", "2")]))
    t.physical_hosts.append(PhysicalHost("ph", "laptop", nics=[HostNic("phn", "eth0", ip="192.168.1.50/24")]))
    t.links += [Link("l1", "h-e0", "p1"), Link("l2", "phn", "p2")]
    return t


def openstack() -> Topology:
    """The OpenStack layout: VMs tagged on OVS br-int (VLAN 10 and 20), patched to br-phys, which holds eth0 on
    a trunk of the top-of-rack switch; a server in each VLAN on the switch."""
    t = Topology(unique_id("openstack"), name="openstack")
    t.hosts.append(Host("k", "compute1", HostKind.KVM, pnics=[PNic("k-e0", "eth0")]))
    t.switches += [Switch("int", "br-int", SwitchKind.OVS, host="k",
                          portgroups=[Portgroup(f"net{v}", f"net{v}", vlan=v) for v in (10, 20)]),
                   Switch("phys", "br-phys", SwitchKind.OVS, host="k", uplinks=[Uplink("k-e0")])]
    t.vms += [vm(f"o{v}", "k", f"net{v}", f"10.8.{v}.1/24") for v in (10, 20)]
    t.physical_switches.append(PhysicalSwitch("tor", "tor", ports=[Port("t0", "1", PortMode.TRUNK)] + [
        Port(f"t{v}", str(v), access_vlan=v) for v in (10, 20)]))
    t.physical_hosts += [PhysicalHost(f"s{v}", f"srv{v}", nics=[HostNic(f"s{v}n", "eth0", ip=f"10.8.{v}.9/24")])
                         for v in (10, 20)]
    t.links += [Link("patch", "int", "phys"), Link("up", "k-e0", "t0")] + [
        Link(f"l{v}", f"s{v}n", f"t{v}") for v in (10, 20)]
    return t


def kvm_patch() -> Topology:
    """Two Linux bridges of one KVM host joined by a patch (a veth between bridges)."""
    t = Topology(unique_id("patch"), name="patch")
    t.hosts.append(Host("k", "kvm", HostKind.KVM))
    t.switches += [Switch("br0", "br0", SwitchKind.LINUX_BRIDGE, host="k"),
                   Switch("br1", "br1", SwitchKind.LINUX_BRIDGE, host="k")]
    t.vms += [vm("p1", "k", "br0", "10.9.0.1/24"), vm("p2", "k", "br1", "10.9.0.2/24")]
    t.links.append(Link("patch", "br0", "br1"))
    return t
