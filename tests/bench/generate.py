"""Realistic large designs for benchmarks, in four shapes (``SHAPES``: name -> ``fn(vms, hosts, seed)``).

- ``racks`` (``generate``): each host has vSwitch0 (VLANs 100-104) and vSwitch1 (105-109) on their own pNICs,
  sometimes an internal vSwitch2 without uplinks, and one vDS across all hosts (VLANs 110-119). Top-of-rack
  switches (one per 20 hosts) trunk up to core1, an L3 switch whose SVIs route VLANs 100-117; core2 hangs off
  core1. VLANs 118/119 are split into one /24 pair per firewall VM, which routes between them with a few rules.
  Its VMs fall into a few thousand equivalence classes.
- ``microseg``: the racks design under an NSX distributed firewall in the microsegmentation style: one rule
  applied to each VM (inbound or outbound, some with ports) plus 300 shared rules between tiers in both
  directions, default deny. Every VM answers differently.
- ``firewalls``: zones of VMs behind routed firewall VMs (one per 25 hosts) that hold one /32 rule per VM
  behind them, a transit VLAN to a core router with a static route per zone, shared services on the core.
- ``teamed``: the racks design with a teaming policy per host, pins and private VLANs (issue 23).
- ``diverse``: four pods of racks with 100 VLANs each, every rack carrying its own subset and every host
  port pruned to the host's VLANs; a distribution L3 switch per pod and static routes between pods over a
  transit VLAN; a vSS and a per-pod vDS on every host; NSX segments with a DLR across two pods.

Importable: ``generate(vms, hosts, seed)`` and ``SHAPES``.
"""

from __future__ import annotations

import ipaddress
import random

from collections.abc import Callable

from vnetbench.model.objects import (
    VM, Action, DfwRule, Dlr, DlrInterface, Forwarding, ForwardMode, Host, Link, LoadBalancing, PhysicalRouter,
    PhysicalSwitch, PNic, Port, PortChannel, PortMode, Portgroup, Proto, Pvlan, PvlanType, Route, RouterInterface, Rule, Switch,
    SwitchKind, Teaming, Topology, Uplink, VmRole, VNic,
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


def _trunk(t: Topology, a: PhysicalSwitch, b: PhysicalSwitch, name: str, allowed: str = "all") -> None:
    pa = Port(f"{a.id}.{name}", f"{name}-up", PortMode.TRUNK, allowed=allowed)
    pb = Port(f"{b.id}.{name}", f"{name}-down", PortMode.TRUNK, allowed=allowed)
    a.ports.append(pa)
    b.ports.append(pb)
    t.links.append(Link(f"trunk.{a.id}.{b.id}", pa.id, pb.id))


# --- microsegmentation: a DFW rule per VM ---------------------------------------------------------------

SHARED_RULES = 300


def microseg(vms: int = 10_000, hosts: int = 500, seed: int = 1) -> Topology:
    """The racks design under an NSX DFW: one rule applied to each VM plus ``SHARED_RULES`` between tiers."""
    t = generate(vms, hosts, seed)
    t.id, t.name = f"microseg-{vms}-{hosts}", f"microsegmented: {vms} VMs on {hosts} hosts"
    rnd = random.Random(seed + 1)
    tiers = [f"10.{v}.0.0/16" for v in range(100, 118)]
    ports = [22, 443, 3306, "8000-8100"]
    shared: list[DfwRule] = [DfwRule(Action.ALLOW, tier, tier, name=f"intra-{tier}") for tier in tiers]
    while len(shared) < SHARED_RULES:
        i = len(shared)
        a, b = rnd.sample(tiers, 2)
        kind = i % 5
        if kind == 0:      # tier to tier, both directions
            shared += [DfwRule(Action.ALLOW, a, b, name=f"t{i}"), DfwRule(Action.ALLOW, b, a, name=f"t{i}r")]
        elif kind == 1:    # a service port between tiers: says nothing about traffic in general
            shared.append(DfwRule(Action.ALLOW, a, b, Proto.TCP, rnd.choice(ports), name=f"svc{i}"))
        elif kind == 2:    # one /24 of a tier kept out of another
            net = a.replace(".0.0/16", f".{rnd.randrange(3)}.0/24")
            shared += [DfwRule(Action.DENY, net, b, name=f"deny{i}"), DfwRule(Action.DENY, b, net, name=f"deny{i}r")]
        elif kind == 3:    # applied to one distributed portgroup only
            shared.append(DfwRule(Action.ALLOW, "any", a, applied_to=[f"dv{rnd.randrange(110, 120)}"], name=f"pg{i}"))
        else:
            shared.append(DfwRule(Action.ALLOW, a, "any", Proto.UDP, 53, name=f"dns{i}"))
    t.nsx.dfw.rules = _per_vm_rules(t, tiers, rnd) + shared
    t.nsx.dfw.default_policy = Action.DENY
    return t


def _per_vm_rules(t: Topology, tiers: list[str], rnd: random.Random) -> list[DfwRule]:
    """One DFW rule applied to each VM, of six kinds (in, out, a /32 kept out of a subnet, a service, one VM
    kept from another, NTP out)."""
    per_vm: list[DfwRule] = []
    plain = [vm for vm in t.vms if vm.role is VmRole.VM]
    for i, vm in enumerate(plain):
        ip = vm.vnics[0].ip.split("/")[0]
        other = plain[rnd.randrange(len(plain))].id
        kind = i % 6
        rule = (DfwRule(Action.ALLOW, rnd.choice(tiers), vm.id) if kind == 0 else
                DfwRule(Action.ALLOW, vm.id, rnd.choice(tiers)) if kind == 1 else
                DfwRule(Action.DENY, f"{ip}/32", rnd.choice(tiers).replace(".0.0/16", f".{rnd.randrange(3)}.0/24"))
                if kind == 2 else
                DfwRule(Action.ALLOW, "any", ip, Proto.TCP, 443) if kind == 3 else
                DfwRule(Action.DENY, other, vm.id) if kind == 4 else
                DfwRule(Action.ALLOW, vm.id, "any", Proto.UDP, 123))
        rule.name, rule.applied_to = f"vm-{vm.name}", [vm.id]
        per_vm.append(rule)
    return per_vm


# --- routed firewall VMs with a /32 rule per VM ---------------------------------------------------------

ZONE_HOSTS = 25   # one firewall VM and zone per this many hosts


def firewalls(vms: int = 10_000, hosts: int = 500, seed: int = 1) -> Topology:
    """Zones behind routed firewall VMs holding a /32 rule per VM; a core router joins the zones."""
    rnd = random.Random(seed)
    t = Topology(id=f"firewalls-{vms}-{hosts}", name=f"firewalls: {vms} VMs on {hosts} hosts")
    zones = max(1, hosts // ZONE_HOSTS)
    transit, services = 999, 998
    zone_vlans = [[200 + 4 * z + k for k in range(4)] for z in range(zones)]
    vlans = [transit, services] + [v for vs in zone_vlans for v in vs]
    core = PhysicalSwitch("core", "core")
    t.physical_switches.append(core)
    t.physical_routers.append(PhysicalRouter("core-l3", "core-l3", switch="core", interfaces=[
        RouterInterface("core-l3.transit", f"Vlan{transit}", "10.254.255.254/16", transit),
        RouterInterface("core-l3.services", f"Vlan{services}", "10.253.255.254/16", services)],
        routes=[Route(f"10.{z}.0.0/16", f"10.254.0.{z + 1}") for z in range(zones)]))
    dvs = Switch("dvs", "dvs", SwitchKind.VDS, portgroups=[Portgroup(f"dv{v}", f"dv-{v}", v) for v in vlans])
    t.switches.append(dvs)
    tor = core
    for h in range(hosts):
        if h % 20 == 0:
            tor = PhysicalSwitch(f"tor{h // 20}", f"tor{h // 20}")
            t.physical_switches.append(tor)
            _trunk(t, tor, core, f"u{h // 20}")
        name = f"esx{h:04d}"
        t.hosts.append(Host(name, name, pnics=[PNic(f"{name}.vmnic0", "vmnic0", 10_000)]))
        port = Port(f"{tor.id}.{name}", f"Te1/{h % 20}", PortMode.TRUNK)
        tor.ports.append(port)
        t.links.append(Link(f"l.{name}", f"{name}.vmnic0", port.id))
        dvs.members.append(name)
        dvs.uplinks.append(Uplink(f"{name}.vmnic0"))
    fws = []
    for z in range(zones):
        fw = VM(f"fw{z}", f"fw{z}", f"esx{z * ZONE_HOSTS:04d}", role=VmRole.FIREWALL, forwarding=Forwarding(
            ForwardMode.ROUTED, z % 4 != 3, Action.DENY,
            [Rule(Action.ALLOW, f"10.{z}.0.0/16", f"10.{z}.0.0/16", name="intra-zone"),
             Rule(Action.DENY, "any", "any", Proto.ICMP, name="no-ping"),
             Rule(Action.ALLOW, "10.253.0.0/16", f"10.{z}.0.0/16", Proto.TCP, 53, name="dns")]))
        fw.vnics = [VNic(f"fw{z}.eth0", "eth0", network=f"dv{transit}", ip=f"10.254.0.{z + 1}/16",
                         gateway="10.254.255.254")]
        fw.vnics += [VNic(f"fw{z}.eth{k + 1}", f"eth{k + 1}", network=f"dv{v}", ip=f"10.{z}.{4 * k}.1/22")
                     for k, v in enumerate(zone_vlans[z])]
        t.vms.append(fw)
        fws.append(fw)
    used: dict[tuple[int, int], int] = {}
    for i in range(vms):
        h = rnd.randrange(hosts)
        name = f"vm{i:05d}"
        if rnd.random() < 0.1:   # shared services, routed by the core itself
            n = used[-1, 0] = used.get((-1, 0), 0) + 1
            nic = VNic(f"{name}.eth0", "eth0", rnd.choice(NIC_TYPES), f"dv{services}",
                       ip=f"10.253.{n // 250}.{n % 250 + 1}/16", gateway="10.253.255.254")
        else:
            z = min(h // ZONE_HOSTS, zones - 1)
            k = rnd.randrange(4)
            n = used[z, k] = used.get((z, k), 0) + 1
            ip = f"10.{z}.{4 * k + (n + 1) // 256}.{(n + 1) % 256}"
            nic = VNic(f"{name}.eth0", "eth0", rnd.choice(NIC_TYPES), f"dv{zone_vlans[z][k]}", ip=f"{ip}/22",
                       gateway=f"10.{z}.{4 * k}.1")
            other = rnd.randrange(zones)
            kind = i % 5
            fws[z].forwarding.rules.append(
                Rule(Action.ALLOW, f"{ip}/32", "any", name=f"out-{name}") if kind == 0 else
                Rule(Action.ALLOW, "10.253.0.0/16", f"{ip}/32", name=f"svc-{name}") if kind == 1 else
                Rule(Action.DENY, "any", f"{ip}/32", Proto.TCP, 22, name=f"ssh-{name}") if kind == 2 else
                Rule(Action.ALLOW, f"{ip}/32", "10.253.0.0/16", Proto.TCP, 443, name=f"web-{name}") if kind == 3 else
                Rule(Action.ALLOW, f"10.{other}.0.0/16", f"{ip}/32", name=f"from-{other}-{name}"))
        t.vms.append(VM(name, name, f"esx{h:04d}", vnics=[nic]))
    return t


# --- structural diversity: hundreds of VLANs, pruned trunks, routers with static routes, vDS and NSX -----

PODS = 4
POD_VLANS = 100
NSX_SEGMENTS = 20


def diverse(vms: int = 10_000, hosts: int = 500, seed: int = 1) -> Topology:
    """Pods of racks with their own VLANs, pruned per port, routed per pod and between pods (see above)."""
    rnd = random.Random(seed)
    t = Topology(id=f"diverse-{vms}-{hosts}", name=f"diverse: {vms} VMs on {hosts} hosts")
    transit = 999
    core = PhysicalSwitch("core", "core")
    t.physical_switches.append(core)
    dists, dvses = [], []
    for p in range(PODS):
        dist = PhysicalSwitch(f"dist{p}", f"dist{p}")
        t.physical_switches.append(dist)
        _trunk(t, dist, core, f"d{p}", allowed=str(transit))
        dists.append(dist)
        svis = [RouterInterface(f"r{p}.v{v}", f"Vlan{_pod_vlan(p, v)}", f"10.{100 + p}.{v}.254/24", _pod_vlan(p, v))
                for v in range(POD_VLANS)]
        svis.append(RouterInterface(f"r{p}.transit", f"Vlan{transit}", f"10.255.255.{p + 1}/24", transit))
        t.physical_routers.append(PhysicalRouter(f"dist{p}-l3", f"dist{p}-l3", switch=dist.id, interfaces=svis,
                                                 routes=[Route(f"10.{100 + q}.0.0/16", f"10.255.255.{q + 1}")
                                                         for q in range(PODS) if q != p]))
        dvs = Switch(f"dvs{p}", f"dvs-pod{p}", SwitchKind.VDS,
                     portgroups=[Portgroup(f"dvs{p}.v{v}", f"pod{p}-{_pod_vlan(p, v)}", _pod_vlan(p, v))
                                 for v in range(POD_VLANS)])
        t.switches.append(dvs)
        dvses.append(dvs)
    nsx_hosts: list[str] = []
    host_vlans: list[tuple[int, list[int], list[int]]] = []   # per host: pod, vSwitch0 VLANs, dvs VLANs
    tor, rack_vlans = core, []
    for h in range(hosts):
        p = h * PODS // hosts
        name = f"esx{h:04d}"
        if h % 20 == 0 or tor.id.split(".")[0] != f"pod{p}":
            rack_vlans = sorted(rnd.sample(range(POD_VLANS), rnd.randint(15, 30)))
            tor = PhysicalSwitch(f"pod{p}.tor{h // 20}", f"pod{p}-tor{h // 20}")
            t.physical_switches.append(tor)
            _trunk(t, tor, dists[p], f"up{h // 20}", allowed=",".join(str(_pod_vlan(p, v)) for v in rack_vlans))
        host = Host(name, name, pnics=[PNic(f"{name}.vmnic{i}", f"vmnic{i}", 10_000) for i in range(3)])
        t.hosts.append(host)
        mine = rnd.sample(rack_vlans, rnd.randint(6, min(12, len(rack_vlans))))
        local, dist_vlans = mine[:len(mine) // 2], mine[len(mine) // 2:]
        for i, carried in enumerate((local, dist_vlans)):
            allowed = [_pod_vlan(p, v) for v in carried if rnd.random() > 0.03]   # now and then one is forgotten
            port = Port(f"{tor.id}.{name}.{i}", f"Te1/{h % 20}/{i}", PortMode.TRUNK,
                        allowed=",".join(map(str, allowed)) or "1")
            tor.ports.append(port)
            t.links.append(Link(f"l.{name}.{i}", f"{name}.vmnic{i}", port.id))
        port = Port(f"{tor.id}.{name}.2", f"Te1/{h % 20}/2", PortMode.ACCESS, access_vlan=transit - 1)
        tor.ports.append(port)
        t.links.append(Link(f"l.{name}.2", f"{name}.vmnic2", port.id))
        t.switches.append(Switch(f"{name}.vs0", "vSwitch0", host=name, uplinks=[Uplink(f"{name}.vmnic0")],
                                 portgroups=[Portgroup(f"{name}.vs0.v{v}", f"VLAN{_pod_vlan(p, v)}", _pod_vlan(p, v))
                                             for v in local]))
        dvses[p].members.append(name)
        dvses[p].uplinks.append(Uplink(f"{name}.vmnic1"))
        if p < 2:
            nsx_hosts.append(name)
        host_vlans.append((p, local, dist_vlans))
    segments = [Switch(f"ls{s}", f"ls-app{s}", SwitchKind.NSX_SEGMENT, members=list(nsx_hosts),
                       uplinks=[Uplink(f"{h}.vmnic2") for h in nsx_hosts],
                       portgroups=[Portgroup(f"ls{s}.pg", f"ls-app{s}")]) for s in range(NSX_SEGMENTS)]
    t.switches += segments
    t.nsx.dlrs.append(Dlr("dlr", "dlr-app", [DlrInterface(f"dlr.lif{s}", f"lif{s}", f"ls{s}", f"172.16.{s}.1/24")
                                              for s in range(NSX_SEGMENTS)]))
    used: dict[tuple, int] = {}
    for i in range(vms):
        h = rnd.randrange(hosts)
        p, local, dist_vlans = host_vlans[h]
        name = f"vm{i:05d}"
        host = f"esx{h:04d}"
        roll = rnd.random()
        if roll < 0.1 and host in nsx_hosts:
            s = rnd.randrange(NSX_SEGMENTS)
            n = used[s] = used.get(s, 0) + 1
            nic = VNic(f"{name}.eth0", "eth0", rnd.choice(NIC_TYPES), f"ls{s}.pg",
                       ip=f"172.16.{s}.{n % 250 + 2}/24" if n < 250 else f"172.17.{s}.{n % 250 + 2}/16",
                       gateway=f"172.16.{s}.1")
        else:
            on_dvs = rnd.random() < 0.5
            v = rnd.choice(dist_vlans if on_dvs else local)
            n = used[p, v] = used.get((p, v), 0) + 1
            network = f"dvs{p}.v{v}" if on_dvs else f"{host}.vs0.v{v}"
            ip = f"10.{100 + p}.{v}.{n}/24" if n < 254 else f"10.{110 + p}.{v}.{n % 250 + 1}/24"
            nic = VNic(f"{name}.eth0", "eth0", rnd.choice(NIC_TYPES), network, ip=ip,
                       gateway=f"10.{100 + p}.{v}.254" if roll > 0.02 else None)
        t.vms.append(VM(name, name, host, vnics=[nic]))
    return t


# --- routed racks: an L3 top-of-rack per rack with thousands of static routes; firewalls; DFW ---------------

RACK_VLANS = 16      # VLANs per rack, each its own /24 routed by the rack's top-of-rack switch
PROTECTED = 4        # of those, the last ones sit behind the rack's firewall VM (routed firewalls only)
TRANSIT = 4000


def routed(vms: int = 10_000, hosts: int = 500, seed: int = 1, firewalls: bool = False, dfw: bool = False,
           rack_hosts: int = 10, split: int = 4) -> Topology:
    """Racks of ``rack_hosts`` hosts, each with its own VLANs (a /24 each) on a vDS per rack and an L3
    top-of-rack switch routing them; the top-of-rack switches meet a core L3 switch on a transit VLAN. Routes
    are not summarised: every router holds a static route per remote subnet, redistributed as ``split`` more
    specifics (4: /26s), so each holds thousands. With ``firewalls`` the last ``PROTECTED`` VLANs of a rack
    sit behind a routed firewall VM holding a /32 rule per VM behind it; with ``dfw`` an NSX DFW applies a
    rule per VM plus rules between racks, default deny."""
    rnd = random.Random(seed)
    t = Topology(id=f"routed-{vms}-{hosts}", name=f"routed racks: {vms} VMs on {hosts} hosts")
    racks = max(1, -(-hosts // rack_hosts))
    core = PhysicalSwitch("core", "core")
    t.physical_switches.append(core)
    core_ip = "10.255.255.254"
    bits = {1: 24, 2: 25, 4: 26, 8: 27}[split]

    def subnet(r: int, k: int) -> str:
        return f"10.{r // 16}.{(r % 16) * 16 + k}"

    def vlan(r: int, k: int) -> int:
        return 100 + (r * RACK_VLANS + k) % 3800

    def tor_ip(r: int) -> str:
        return f"10.255.{r // 250}.{r % 250 + 1}"

    def fw_ip(r: int) -> str:
        return f"{subnet(r, 0)}.253"

    def more_specifics(r: int, k: int) -> list[str]:
        step = 256 // split
        return [f"{subnet(r, k)}.{i * step}/{bits}" for i in range(split)]

    core_routes = [Route(prefix, tor_ip(r)) for r in range(racks) for k in range(RACK_VLANS)
                   for prefix in more_specifics(r, k)]
    t.physical_routers.append(PhysicalRouter("core-l3", "core-l3", switch="core", interfaces=[
        RouterInterface("core-l3.transit", f"Vlan{TRANSIT}", f"{core_ip}/16", TRANSIT)], routes=core_routes))
    plain = RACK_VLANS - (PROTECTED if firewalls else 0)
    behind: dict[int, list[tuple[str, str]]] = {}    # rack -> (VM name, address) behind its firewall
    for r in range(racks):
        tor = PhysicalSwitch(f"tor{r}", f"tor{r}")
        t.physical_switches.append(tor)
        _trunk(t, tor, core, f"up{r}", allowed=",".join(map(str, [TRANSIT] + [vlan(r, k) for k in range(RACK_VLANS)])))
        svis = [RouterInterface(f"tor{r}-l3.v{k}", f"Vlan{vlan(r, k)}", f"{subnet(r, k)}.254/24", vlan(r, k))
                for k in range(plain)]
        svis.append(RouterInterface(f"tor{r}-l3.transit", f"Vlan{TRANSIT}", f"{tor_ip(r)}/16", TRANSIT))
        routes = [Route(prefix, core_ip) for q in range(racks) if q != r for k in range(RACK_VLANS)
                  for prefix in more_specifics(q, k)]
        routes += [Route(prefix, fw_ip(r)) for k in range(plain, RACK_VLANS) for prefix in more_specifics(r, k)]
        t.physical_routers.append(PhysicalRouter(f"tor{r}-l3", f"tor{r}-l3", switch=tor.id, interfaces=svis,
                                                 routes=routes))
        dvs = Switch(f"dvs{r}", f"dvs-rack{r}", SwitchKind.VDS,
                     portgroups=[Portgroup(f"dvs{r}.v{k}", f"rack{r}-{vlan(r, k)}", vlan(r, k))
                                 for k in range(RACK_VLANS)])
        t.switches.append(dvs)
        for h in range(r * rack_hosts, min(hosts, (r + 1) * rack_hosts)):
            name = f"esx{h:04d}"
            t.hosts.append(Host(name, name, pnics=[PNic(f"{name}.vmnic{i}", f"vmnic{i}", 25_000) for i in range(2)]))
            for i in range(2):
                port = Port(f"{tor.id}.{name}.{i}", f"Eth1/{h % rack_hosts}/{i}", PortMode.TRUNK)
                tor.ports.append(port)
                t.links.append(Link(f"l.{name}.{i}", f"{name}.vmnic{i}", port.id))
                dvs.uplinks.append(Uplink(f"{name}.vmnic{i}", standby=i == 1))
            dvs.members.append(name)
        if firewalls:
            fw = VM(f"fw{r}", f"fw{r}", f"esx{r * rack_hosts:04d}", role=VmRole.FIREWALL, forwarding=Forwarding(
                ForwardMode.ROUTED, r % 3 != 2, Action.DENY,
                [Rule(Action.DENY, "any", "any", Proto.ICMP, name="no-ping")]))
            fw.vnics = [VNic(f"fw{r}.eth0", "eth0", network=f"dvs{r}.v0", ip=f"{fw_ip(r)}/24",
                             gateway=f"{subnet(r, 0)}.254")]
            fw.vnics += [VNic(f"fw{r}.eth{k}", f"eth{k}", network=f"dvs{r}.v{k}", ip=f"{subnet(r, k)}.254/24")
                         for k in range(plain, RACK_VLANS)]
            t.vms.append(fw)
            behind[r] = []
    used: dict[tuple[int, int], int] = {}
    for i in range(vms):
        h = rnd.randrange(hosts)
        r = h // rack_hosts
        k = rnd.randrange(RACK_VLANS)
        n = used[r, k] = used.get((r, k), 0) + 1
        if n > 250:   # that /24 is full: the rack's first VLAN with room
            k = next(x for x in range(RACK_VLANS) if used.get((r, x), 0) < 250)
            n = used[r, k] = used.get((r, k), 0) + 1
        name = f"vm{i:05d}"
        ip = f"{subnet(r, k)}.{n}"
        t.vms.append(VM(name, name, f"esx{h:04d}", vnics=[VNic(
            f"{name}.eth0", "eth0", rnd.choice(NIC_TYPES), f"dvs{r}.v{k}", ip=f"{ip}/24",
            gateway=f"{subnet(r, k)}.254")]))
        if firewalls and k >= plain:
            behind[r].append((name, ip))
    for r, members in behind.items():
        fw = next(vm for vm in t.vms if vm.id == f"fw{r}")
        for j, (name, ip) in enumerate(members):
            other = subnet(rnd.randrange(racks), rnd.randrange(plain))
            kind = j % 5
            fw.forwarding.rules.append(
                Rule(Action.ALLOW, f"{ip}/32", "any", name=f"out-{name}") if kind == 0 else
                Rule(Action.ALLOW, f"{other}.0/24", f"{ip}/32", Proto.TCP, 443, name=f"web-{name}") if kind == 1 else
                Rule(Action.DENY, "any", f"{ip}/32", Proto.TCP, 22, name=f"ssh-{name}") if kind == 2 else
                Rule(Action.ALLOW, f"{ip}/32", f"{other}.0/24", name=f"to-{name}") if kind == 3 else
                Rule(Action.ALLOW, f"{other}.0/24", f"{ip}/32", name=f"from-{name}"))
    if dfw:
        tiers = sorted({f"{subnet(r, k)}.0/24" for r in range(racks) for k in (0, 1, 2, 3)})
        _microsegment(t, tiers, rnd)
    return t


def _microsegment(t: Topology, tiers: list[str], rnd: random.Random) -> None:
    """A DFW in the microsegmentation style over ``t``: a rule per VM, then within each tier and between
    ``SHARED_RULES`` random pairs of tiers (some on a service port only), default deny."""
    shared = [DfwRule(Action.ALLOW, tier, tier, name=f"intra-{tier}") for tier in tiers]
    for i in range(SHARED_RULES):
        a, b = rnd.sample(tiers, 2)
        shared.append(DfwRule(Action.ALLOW, a, b, Proto.TCP, rnd.choice([443, 5432, "8000-8100"]), name=f"svc{i}")
                      if i % 2 else DfwRule(Action.ALLOW, a, b, name=f"t{i}"))
    t.nsx.dfw.rules = _per_vm_rules(t, tiers, rnd) + shared
    t.nsx.dfw.default_policy = Action.DENY


def routed_firewalls(vms: int = 10_000, hosts: int = 500, seed: int = 1) -> Topology:
    return routed(vms, hosts, seed, firewalls=True)


def routed_dfw(vms: int = 10_000, hosts: int = 500, seed: int = 1) -> Topology:
    return routed(vms, hosts, seed, firewalls=True, dfw=True)


def vcenter(vms: int = 45_000, hosts: int = 2_500, seed: int = 1) -> Topology:
    """A whole vCenter shaped like a real estate: racks of 20 hosts with their own VLANs, an L3 top-of-rack
    switch each (a route per remote /24), routed firewalls with a /32 rule per VM behind them, and
    microsegmentation (a DFW rule per VM)."""
    t = routed(vms, hosts, seed, firewalls=True, dfw=True, rack_hosts=20, split=1)
    t.id, t.name = f"vcenter-{vms}-{hosts}", f"vCenter estate: {vms} VMs on {hosts} hosts"
    return t


# --- the fabric as admins build it: a teaming policy per host, pins, private VLANs (issue 23) --------------

TEAM_POLICIES = [LoadBalancing.PORT_ID, LoadBalancing.IP_HASH, LoadBalancing.MAC_HASH, LoadBalancing.FAILOVER_ORDER]


def teamed(vms: int = 10_000, hosts: int = 500, seed: int = 1) -> Topology:
    """The racks design where every host's vSwitch0 has a second active uplink (vmnic3) under a teaming policy
    of its own (port ID, IP hash, MAC hash, explicit order, in turn); on every fourth host that uplink's port
    carries only VLANs 100-102 ("half my VMs lost the network"); a tenth of vSwitch0's vNICs are pinned. dvs1
    holds private VLAN 300 (isolated 301, communities 302 and 303) on portgroups of their own, with a twentieth
    of the VMs moved onto them."""
    t = generate(vms, hosts, seed)
    t.id, t.name = f"teamed-{vms}-{hosts}", f"teamed: {vms} VMs on {hosts} hosts"
    rnd = random.Random(seed + 2)
    switches = {sw.id: sw for sw in t.switches}
    ports = {p.id: (ps, p) for ps in t.physical_switches for p in ps.ports}
    for h, host in enumerate(t.hosts):
        pnic = PNic(f"{host.id}.vmnic3", "vmnic3", 10_000)
        host.pnics.append(pnic)
        tor, sibling = ports[f"{next(lk.b for lk in t.links if lk.a == f'{host.id}.vmnic0')}"]
        port = Port(f"{tor.id}.{host.id}.3", f"{sibling.name}-3", PortMode.TRUNK,
                    allowed="100-102" if h % 4 == 0 else "all")
        tor.ports.append(port)
        t.links.append(Link(f"l.{host.id}.3", pnic.id, port.id))
        vs0 = switches[f"{host.id}.vs0"]
        vs0.uplinks.append(Uplink(pnic.id))
        vs0.teaming = Teaming(TEAM_POLICIES[h % len(TEAM_POLICIES)])
        if vs0.teaming.load_balancing is LoadBalancing.IP_HASH:     # IP hash needs a static port channel
            tor.port_channels.append(PortChannel(f"{tor.id}.po{h}", f"Po{h}", [sibling.id, port.id]))
    vds = switches["dvs1"]
    vds.pvlans = [Pvlan(300, 300, PvlanType.PROMISCUOUS), Pvlan(300, 301, PvlanType.ISOLATED),
                  Pvlan(300, 302, PvlanType.COMMUNITY), Pvlan(300, 303, PvlanType.COMMUNITY)]
    for v in (300, 301, 302, 303):
        vds.portgroups.append(Portgroup(f"dv{v}", f"dv-pvlan{v}", 0, pvlan=v))
    n = 0
    for vm in t.vms:
        nic = vm.vnics[0]
        if vm.role is not VmRole.VM:
            continue
        if nic.network.endswith(tuple(f".vs0.pg{v}" for v in range(100, 105))) and rnd.random() < 0.1:
            nic.uplink = rnd.choice(switches[nic.network.rsplit(".", 1)[0]].uplinks).pnic
        elif rnd.random() < 0.05:
            n += 1
            nic.network, nic.ip, nic.gateway = f"dv{rnd.choice((300, 301, 302, 303))}", f"10.30.{n // 254}.{n % 254 + 1}/16", None
    return t


def _six(text: str) -> str:
    """An IPv4 address, ``address/prefix`` or network as the IPv6 one 2001:db8::/96 holds at its place."""
    address, _, prefix = text.partition("/")
    six = ipaddress.IPv6Address(int(ipaddress.IPv6Address("2001:db8::")) + int(ipaddress.IPv4Address(address)))
    return f"{six}/{int(prefix) + 96}" if prefix else str(six)


def dual_stack(vms: int = 10_000, hosts: int = 500, seed: int = 1) -> Topology:
    """``firewalls`` run dual stack: every address, gateway and route gets its IPv6 twin, but the firewalls'
    /32 rules stay IPv4 (the common finding), so the two families answer differently."""
    t = firewalls(vms, hosts, seed)
    t.id, t.name = f"dualstack-{vms}-{hosts}", f"dual stack: {vms} VMs on {hosts} hosts"
    for vm in t.vms:
        for nic in vm.vnics:
            if nic.ip:
                nic.addresses.append(_six(nic.ip))
            if nic.gateway:
                nic.gateway6 = _six(nic.gateway)
        vm.forwarding.routes += [Route(_six(r.prefix) if r.prefix != "default" else "::/0", _six(r.via))
                                 for r in vm.forwarding.routes]
    for router in t.physical_routers:
        for itf in router.interfaces:
            if itf.ip:
                itf.addresses.append(_six(itf.ip))
        router.routes += [Route(_six(r.prefix) if r.prefix != "default" else "::/0", _six(r.via))
                          for r in router.routes]
    return t


def _pod_vlan(pod: int, index: int) -> int:
    return 1000 + POD_VLANS * pod + index


SHAPES: dict[str, Callable[[int, int, int], Topology]] = {
    "racks": generate, "microseg": microseg, "firewalls": firewalls, "diverse": diverse, "routed": routed,
    "routedfw": routed_firewalls, "routeddfw": routed_dfw, "vcenter": vcenter, "teamed": teamed,
    "dualstack": dual_stack}
