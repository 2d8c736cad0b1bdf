"""Realistic large designs for benchmarks: racks of ESXi hosts, two physical switch tiers, firewall VMs.

Each host has vSwitch0 (VLANs 100-104) and vSwitch1 (105-109) on their own pNICs, sometimes an internal
vSwitch2 without uplinks, and one vDS across all hosts (VLANs 110-119). Top-of-rack switches (one per 20
hosts) trunk up to core1, an L3 switch whose SVIs route VLANs 100-117; core2 hangs off core1. VLANs 118/119
are split into one /24 pair per firewall VM, which routes between them with a few rules. Importable:
``generate(vms, hosts, seed)``.
"""

from __future__ import annotations

import random

from vnetbench.model.objects import (
    VM, Action, Forwarding, ForwardMode, Host, Link, PhysicalRouter, PhysicalSwitch, PNic, Port, PortMode,
    Portgroup, Proto, RouterInterface, Rule, Switch, SwitchKind, Topology, Uplink, VmRole, VNic,
)

FIREWALL_EVERY = 50   # one firewall VM per this many hosts
NIC_TYPES = ["vmxnet3"] * 6 + ["e1000"] * 3 + ["vlance"]


def generate(vms: int = 10_000, hosts: int = 500, seed: int = 1) -> Topology:
    rnd = random.Random(seed)
    t = Topology(id=f"bench-{vms}-{hosts}", name=f"bench {vms} VMs on {hosts} hosts")
    core1, core2 = PhysicalSwitch("core1", "core1"), PhysicalSwitch("core2", "core2")
    t.physical_switches += [core1, core2]
    _trunk(t, core1, core2, "c2")
    t.physical_routers.append(PhysicalRouter("core1-l3", "core1-l3", switch="core1", interfaces=[
        RouterInterface(f"svi{v}", f"Vlan{v}", f"10.{v}.255.254/16", v) for v in range(100, 118)]))
    tors: list[PhysicalSwitch] = []
    vds = Switch("dvs1", "dvs1", SwitchKind.VDS, portgroups=[Portgroup(f"dv{v}", f"dv-{v}", v) for v in range(110, 120)])
    t.switches.append(vds)
    segments: list[list[tuple[str, int]]] = []   # per host: (portgroup id, vlan)
    for h in range(hosts):
        if h % 20 == 0:
            tor = PhysicalSwitch(f"tor{h // 20}", f"tor{h // 20}")
            tors.append(tor)
            t.physical_switches.append(tor)
            _trunk(t, tor, core1, f"u{h // 20}")
        tor = tors[-1]
        name = f"esx{h:04d}"
        host = Host(name, name, pnics=[PNic(f"{name}.vmnic{i}", f"vmnic{i}", 10_000) for i in range(3)])
        t.hosts.append(host)
        for i, pnic in enumerate(host.pnics):
            port = Port(f"{tor.id}.{name}.{i}", f"Te1/{h % 20}/{i}", PortMode.TRUNK)
            tor.ports.append(port)
            t.links.append(Link(f"l.{name}.{i}", pnic.id, port.id))
        here: list[tuple[str, int]] = []
        for s, (lo, hi) in enumerate(((100, 105), (105, 110))):
            sw = Switch(f"{name}.vs{s}", f"vSwitch{s}", host=name, uplinks=[Uplink(f"{name}.vmnic{s}")])
            for v in rnd.sample(range(lo, hi), rnd.randint(2, 5)):
                sw.portgroups.append(Portgroup(f"{sw.id}.pg{v}", f"VLAN{v}", v))
                here.append((f"{sw.id}.pg{v}", v))
            t.switches.append(sw)
        if rnd.random() < 0.3:
            sw = Switch(f"{name}.vs2", "vSwitch2", host=name, portgroups=[Portgroup(f"{name}.vs2.iso", "isolated", 0)])
            t.switches.append(sw)
            here.append((f"{name}.vs2.iso", 0))
        vds.members.append(name)
        vds.uplinks.append(Uplink(f"{name}.vmnic2"))
        here += [(f"dv{v}", v) for v in rnd.sample(range(110, 120), rnd.randint(3, 8))]
        segments.append(here)
    firewalls = {}
    for g in range(0, hosts, FIREWALL_EVERY):
        group = g // FIREWALL_EVERY
        fw = VM(f"fw{group}", f"fw{group}", f"esx{g:04d}", role=VmRole.FIREWALL, forwarding=Forwarding(
            ForwardMode.ROUTED, True, Action.DENY,
            [Rule(Action.ALLOW, f"10.118.{group}.0/24", f"10.119.{group}.0/24", Proto.ANY, None, "app-to-db"),
             Rule(Action.ALLOW, f"10.119.{group}.0/24", f"10.118.{group}.0/24", Proto.TCP, 443, "db-to-app-443")]))
        fw.vnics = [VNic(f"fw{group}.eth0", "eth0", network="dv118", ip=f"10.118.{group}.254/24"),
                    VNic(f"fw{group}.eth1", "eth1", network="dv119", ip=f"10.119.{group}.254/24")]
        for v in (118, 119):
            if (f"dv{v}", v) not in segments[g]:
                segments[g].append((f"dv{v}", v))
        t.vms.append(fw)
        firewalls[group] = fw
    used: dict[tuple[int, int], int] = {}  # addresses handed out per subnet: every VM gets a unique one

    def next_host(v: int, group: int = -1) -> int:
        used[v, group] = used.get((v, group), 0) + 1
        return used[v, group]

    for i in range(vms):
        h = rnd.randrange(hosts)
        pg, v = rnd.choice(segments[h])
        group = h // FIREWALL_EVERY
        if v >= 118 and used.get((v, group), 0) >= 253:  # that firewall's /24 is full: use the routed VLANs
            pg, v = rnd.choice([(p, tag) for p, tag in segments[h] if 0 < tag < 118] or [(f"dv{110}", 110)])
        name = f"vm{i:05d}"
        if v >= 118:
            ip, gw = f"10.{v}.{group}.{next_host(v, group)}/24", f"10.{v}.{group}.254"
        else:
            n = next_host(v)
            host_part = f"{n // 254}.{n % 254 + 1}"
            ip, gw = (f"192.168.{host_part}/16", None) if v == 0 else (f"10.{v}.{host_part}/16", f"10.{v}.255.254")
        vm = VM(name, name, f"esx{h:04d}", vnics=[VNic(f"{name}.eth0", "eth0", rnd.choice(NIC_TYPES), pg, ip=ip,
                                                         gateway=gw)])
        t.vms.append(vm)
    return t


def _trunk(t: Topology, a: PhysicalSwitch, b: PhysicalSwitch, name: str) -> None:
    pa, pb = Port(f"{a.id}.{name}", f"{name}-up", PortMode.TRUNK), Port(f"{b.id}.{name}", f"{name}-down", PortMode.TRUNK)
    a.ports.append(pa)
    b.ports.append(pb)
    t.links.append(Link(f"trunk.{a.id}.{b.id}", pa.id, pb.id))
