"""Random small designs that exercise every forwarding feature, for property tests of the engine.

Together they cover the whole model: every switch kind (vSS, vDS, Linux bridge, OVS with patches, macvtap, raw
socket, NSX segments, hosted bridged, host-only and NAT networks), SR-IOV and DirectPath, overlays in a transport
VLAN, routers with static routes, router / firewall / edge VMs with static routes (longest prefix, a route
naming its interface, a forgotten route back) and rules that reject or drop, routed and bridged firewalls
(stateful or not) that some VMs use as gateway while others use the router (asymmetric paths), multi-homed
VMs, DFW rules with protocols and ports; and, drawn apart (``random_nat_design``), SNAT and DNAT on an edge VM
and port forwards of a hosted NAT network.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from builders import (Action, DfwRule, Design, ForwardMode, HostKind, MacvtapMode, PNic, Rule, SwitchKind, Uplink,
                      VmRole)


from vnetbench.model.objects import (BridgeVlans, Dnat, Link, LoadBalancing, PortForward, Proto, Pvlan, PvlanType,
                                     Route, Snat, Teaming)


def random_design(seed: int | random.Random, island: bool = True, teaming: bool = True) -> Design:
    """A design drawn from ``seed`` (or from a ``random.Random`` a property test hands over); ``island``: with
    the router VMs of ``_router_island`` (drawn apart, so the rest stays as recorded before it existed);
    ``teaming`` False leaves out the teaming policies and pins (for what does not emulate them yet)."""
    rnd = seed if isinstance(seed, random.Random) else random.Random(seed)
    seed = rnd.randrange(10**6) if isinstance(seed, random.Random) else seed
    d = Design(f"rnd{seed}")
    vlans = [10, 20, 30]
    nets = {v: f"10.{seed % 200}.{v}" for v in vlans}
    pss = [d.pswitch(f"sw{i}") for i in range(rnd.randint(1, 2))]
    if len(pss) == 2:
        d.cable(d.port(pss[0], "t", trunk=True, allowed=rnd.choice(["all", "10,20", "10"])).id,
                d.port(pss[1], "t", trunk=True, allowed=rnd.choice(["all", "10,30"])).id)
    hosts = [d.host(f"h{i}", pnics=3) for i in range(rnd.randint(1, 3))]
    pgs = []
    for h in hosts:
        for s in range(rnd.randint(1, 2)):
            ups = [f"{h.name}.vmnic{s}"] if rnd.random() < 0.8 else []
            sw = d.switch(h, f"vs{s}", ups, standby=(f"{h.name}.vmnic2",) if rnd.random() < 0.3 else ())
            for pnic in ups + [f"{h.name}.vmnic2"]:
                if not any(link.a == pnic for link in d.t.links):
                    mode = rnd.random()
                    d.plug(rnd.choice(pss), pnic, trunk=mode < 0.7, vlan=rnd.choice(vlans),
                           allowed=rnd.choice(["all", "all", "10,20"]), hairpin=rnd.random() < 0.2,
                           native=rnd.choice([1, 1, 1, 10]))
            for v in rnd.sample(vlans + [0], rnd.randint(1, 3)):
                pgs.append((h, d.pg(sw, f"pg{v}", v, promiscuous=rnd.random() < 0.5), v or rnd.choice(vlans)))
        if rnd.random() < 0.3:
            h.pnics[0].up = False
    if len(hosts) > 1 and rnd.random() < 0.6:
        vds = d.switch(None, "dvs", [f"{h.name}.vmnic1" for h in hosts], kind=SwitchKind.VDS, members=hosts)
        for v in rnd.sample(vlans, 2):
            pg = d.pg(vds, f"dv{v}", v)
            for h in hosts:
                pgs.append((h, pg, v))
    # routers: a physical one on a trunk, maybe an L3 switch SVI, maybe a firewall VM
    gws: dict[int, str] = {}
    if rnd.random() < 0.7:
        port = d.port(pss[0], "r", trunk=True)
        routed = rnd.sample(vlans, rnd.randint(1, 3))
        d.router("r1", [(port, f"{nets[v]}.1/24", v) for v in routed])
        gws.update({v: f"{nets[v]}.1" for v in routed})
    if rnd.random() < 0.6:
        h, pg, v = rnd.choice(pgs)
        others = [(hh, p, vv) for hh, p, vv in pgs if hh is h and vv != v]
        if others:
            _, pg2, v2 = rnd.choice(others)
            mode = ForwardMode.BRIDGED if rnd.random() < 0.3 else ForwardMode.ROUTED
            rules = [Rule(Action.DENY, f"{nets[v]}.0/28", "any", name="deny-low")] if rnd.random() < 0.5 else []
            d.fw("fw1", h, [(pg, f"{nets[v]}.254/24" if mode is ForwardMode.ROUTED else None),
                            (pg2, f"{nets[v2]}.254/24" if mode is ForwardMode.ROUTED else None)],
                 mode=mode, rules=rules, stateful=rnd.random() < 0.7,
                 default=rnd.choice([Action.ALLOW, Action.ALLOW, Action.DENY]))
            if mode is ForwardMode.ROUTED and rnd.random() < 0.7:
                gws[v] = f"{nets[v]}.254"
    for i in range(rnd.randint(3, 9)):
        h, pg, v = rnd.choice(pgs)
        sub = v if rnd.random() < 0.85 else rnd.choice(vlans)
        gw = gws.get(sub) if rnd.random() < 0.85 else f"{nets[sub]}.99"
        d.vm(f"vm{i}", h, pg, f"{nets[sub]}.{10 + i}/24", gw, nic_type=rnd.choice(["vmxnet3", "e1000"]))
    if rnd.random() < 0.5:  # a VM with two interfaces (the source picks one per destination)
        (h, pg, v), (_, pg2, v2) = rnd.choice(pgs), rnd.choice(pgs)
        dual = d.vm("dual", h, pg, f"{nets[v]}.77/24", gws.get(v))
        d.nic(dual, pg2, f"{nets[v2]}.78/24" if rnd.random() < 0.8 else None, gws.get(v2))
    if rnd.random() < 0.3:
        d.dfw([DfwRule(Action.DENY, f"{nets[10]}.0/24", "any", rnd.choice([Proto.ANY, Proto.TCP]), name="d1",
                       applied_to=rnd.choice([[], ["vm1"]]))], rnd.choice([Action.ALLOW, Action.DENY]))
        d.t.nsx.dfw.stateful = rnd.random() < 0.5
    if rnd.random() < 0.4:  # a KVM host with macvtap guests
        k = d.host("kvm", pnics=1, kind=HostKind.KVM)
        mv = d.switch(k, "mv", ["kvm.vmnic0"], kind=SwitchKind.MACVTAP, macvtap_mode=rnd.choice(list(MacvtapMode)))
        d.plug(pss[0], "kvm.vmnic0", vlan=10, hairpin=rnd.random() < 0.5)
        for i in range(2):
            d.vm(f"kv{i}", k, mv, f"{nets[10]}.{100 + i}/24", gws.get(10), nic_type="virtio")
    if rnd.random() < 0.4:  # NSX segments with a DLR
        nsx_hosts = hosts[:2]
        ls = [d.switch(None, f"ls{i}", kind=SwitchKind.NSX_SEGMENT, members=nsx_hosts) for i in range(2)]
        d.dlr("dlr", [(ls[0], "172.16.1.1/24"), (ls[1], "172.16.2.1/24")])
        for i in range(3):
            j = rnd.randint(0, 1)
            d.vm(f"nv{i}", rnd.choice(nsx_hosts), ls[j], f"172.16.{j + 1}.{10 + i}/24", f"172.16.{j + 1}.1")
    if rnd.random() < 0.3:  # a hosted host with NAT
        hh = d.host("pc", pnics=1, kind=HostKind.HOSTED)
        d.plug(pss[0], "pc.vmnic0", vlan=10)
        nat = d.switch(hh, "vmnet8", kind=SwitchKind.HOSTED_NAT, nat_gateway="192.168.8.2")
        d.vm("natvm", hh, nat, "192.168.8.10/24", "192.168.8.2")
    if rnd.random() < 0.5:
        d.phost("srv", d.port(pss[-1], "srv", vlan=rnd.choice(vlans)), f"{nets[10]}.200/24", gws.get(10))
    _bypass(d, rnd, hosts, pss, pgs, nets)
    _overlay_transport(d, rnd)
    _raw_and_host_os(d, rnd, nets, gws)
    if rnd.random() < 0.2:  # a vNIC pulled out
        rnd.choice([n for vm in d.t.vms for n in vm.vnics]).connected = False
    _kvm_bridges(d, rnd, pss, nets, gws)
    _hosted_networks(d, rnd, pss, nets, gws)
    _static_routes(d, rnd, pss, nets, gws)
    _asymmetric_gateways(d, rnd, nets)
    _asymmetric_island(d, rnd, pss, seed)
    _dfw_ports(d, rnd, nets)
    if teaming:
        _teaming(d, rnd)
    _filtering_bridge(d, rnd, pss, nets, gws)
    if island:
        _router_island(d, seed)
    return d


def _filtering_bridge(d: Design, rnd: random.Random, pss, nets: dict[int, str], gws: dict[int, str]) -> None:
    """A KVM host's VLAN-filtering Linux bridge: guests on access ports (pvid untagged), one tagging itself on a
    trunk port, and an uplink port that carries some VLANs tagged and maybe one untagged."""
    if rnd.random() < 0.6:
        return
    k = d.host("vf", pnics=1, kind=HostKind.KVM)
    br = d.switch(k, "brv", ["vf.vmnic0"], kind=SwitchKind.LINUX_BRIDGE, vlan_filtering=True)
    native = rnd.choice([None, 10])
    br.uplinks[0].bridge_vlans = BridgeVlans(rnd.choice(["10,20", "10,20,30", "20"]), native,
                                             str(native) if native else "")
    d.plug(rnd.choice(pss), "vf.vmnic0", trunk=True, allowed=rnd.choice(["all", "10,20"]), native=native or 1)
    for i, v in enumerate(rnd.sample([10, 20, 30], 2)):
        vm = d.vm(f"vb{i}", k, br, f"{nets[v]}.{170 + i}/24", gws.get(v), nic_type="virtio")
        vm.vnics[0].bridge_vlans = BridgeVlans(v, v, v if rnd.random() < 0.9 else "")
    if rnd.random() < 0.5:
        vm = d.vm("vbt", k, br, f"{nets[20]}.179/24", gws.get(20), nic_type="virtio", guest_vlan=20)
        vm.vnics[0].bridge_vlans = BridgeVlans("10,20", None, "")


def _teaming(d: Design, rnd: random.Random) -> None:
    """Teaming policies on vSwitches with a second active uplink (the standby one made active, its port maybe
    carrying other VLANs: "half my VMs lost the network"), a portgroup's override, and vNICs pinned to an uplink."""
    if rnd.random() < 0.4:
        return
    policies = [LoadBalancing.PORT_ID, LoadBalancing.MAC_HASH, LoadBalancing.IP_HASH, LoadBalancing.FAILOVER_ORDER]
    for sw in d.t.switches:
        if sw.kind is not SwitchKind.VSS or not sw.uplinks or rnd.random() < 0.4:
            continue
        for up in sw.uplinks:
            if rnd.random() < 0.7:
                up.standby = False
        sw.teaming = Teaming(rnd.choice(policies))
        if sw.portgroups and rnd.random() < 0.3:
            rnd.choice(sw.portgroups).teaming = Teaming(rnd.choice(policies))
        on_switch = [nic for vm in d.t.vms for nic in vm.vnics
                     if nic.network in {pg.id for pg in sw.portgroups} and str(nic.type) not in ("sriov", "directpath")]
        for nic in on_switch:
            if rnd.random() < 0.3:
                nic.uplink = rnd.choice(sw.uplinks).pnic


def random_pvlan_design(seed: int) -> Design:
    """``random_design(seed)`` with private VLANs added (``_private_vlans``, drawn apart: the rest stays as drawn)."""
    d = random_design(seed)
    _private_vlans(d, random.Random(seed + 9000))
    return d


def _private_vlans(d: Design, rnd: random.Random) -> None:
    """A vDS with a private VLAN (primary 100: promiscuous, isolated 101, communities 102 and 103) over a fourth
    pNIC of each ESXi host, its ports carrying the whole map or missing a VLAN, maybe a second teamed uplink on the
    first host; VMs on every role (some pinned), and maybe a physical host on the primary's or the isolated VLAN
    (outside the roles: its VLAN decides)."""
    hosts = [h for h in d.t.hosts if h.kind is HostKind.ESXI]
    if not hosts:
        return
    net = "10.99.0"
    ups = []
    for h in hosts:
        h.pnics.append(PNic(f"{h.name}.vmnic3", "vmnic3"))
        ups.append(f"{h.name}.vmnic3")
        d.plug(rnd.choice(d.t.physical_switches), ups[-1], trunk=True,
               allowed=rnd.choice(["all", "all", "100-103", "100,102,103", "101-103", "100,101"]))
    if rnd.random() < 0.5:   # a second uplink on the first host, teamed: its port may carry other VLANs
        h = hosts[0]
        h.pnics.append(PNic(f"{h.name}.vmnic4", "vmnic4"))
        ups.append(f"{h.name}.vmnic4")
        d.plug(rnd.choice(d.t.physical_switches), ups[-1], trunk=True,
               allowed=rnd.choice(["all", "100,102,103", "101-103"]))
    vds = d.switch(None, "pvds", ups, kind=SwitchKind.VDS, members=hosts,
                   pvlans=[Pvlan(100, 100, PvlanType.PROMISCUOUS), Pvlan(100, 101, PvlanType.ISOLATED),
                           Pvlan(100, 102, PvlanType.COMMUNITY), Pvlan(100, 103, PvlanType.COMMUNITY)])
    if len(ups) > len(hosts):
        vds.teaming = Teaming(rnd.choice([LoadBalancing.PORT_ID, LoadBalancing.IP_HASH, LoadBalancing.FAILOVER_ORDER]))
    pgs = []
    for vlan in (100, 101, 102, 103):
        pg = d.pg(vds, f"pv{vlan}")
        pg.pvlan = vlan
        pgs.append(pg)
    for i in range(rnd.randint(3, 7)):
        vm = d.vm(f"pv{i}", rnd.choice(hosts), rnd.choice(pgs), f"{net}.{10 + i}/24")
        if vds.teaming is not None and vm.host == hosts[0].id and rnd.random() < 0.3:
            vm.vnics[0].uplink = rnd.choice(vds.uplinks[:1] + vds.uplinks[-1:]).pnic
    if rnd.random() < 0.4:
        d.phost("pvsrv", d.port(rnd.choice(d.t.physical_switches), "pvsrv", vlan=rnd.choice([100, 101])),
                f"{net}.200/24")


def _router_island(d: Design, seed: int) -> None:
    """Router VMs with static routes inside one host: VLAN 70 - ra - transit VLAN 71 - rb - VLAN 72. ra reaches
    VLAN 72 by a /16 route (sometimes naming its interface), sometimes with a longer /25 to a next hop nobody
    has; rb comes back by a default route (or not, when it was forgotten); ra may reject or drop part of it."""
    rnd = random.Random(seed + 7000)
    if rnd.random() < 0.3:
        return
    base = f"10.{200 + seed % 50}"
    net = {v: f"{base}.{v}" for v in (70, 71, 72)}
    h = d.host("rt", pnics=1)
    sw = d.switch(h, "vs", [])
    pgs = {v: d.pg(sw, f"pg{v}", v) for v in (70, 71, 72)}
    block = [Rule(rnd.choice([Action.REJECT, Action.DROP]), f"{net[70]}.0/28", f"{net[72]}.0/24",
                  rnd.choice([Proto.ANY, Proto.TCP]), rnd.choice([None, 443]), name="ra-block")]
    ra = d.fw("ra", h, [(pgs[70], f"{net[70]}.1/24"), (pgs[71], f"{net[71]}.1/29")], stateful=rnd.random() < 0.5,
              role=rnd.choice([VmRole.ROUTER, VmRole.FIREWALL, VmRole.NSX_EDGE]),
              rules=block if rnd.random() < 0.6 else [], default=rnd.choice([Action.ALLOW, Action.ALLOW, Action.REJECT]))
    rb = d.fw("rb", h, [(pgs[71], f"{net[71]}.2/29"), (pgs[72], f"{net[72]}.1/24")], stateful=False,
              role=VmRole.ROUTER)
    ra.forwarding.routes = [Route(f"{base}.0.0/16", f"{net[71]}.2", rnd.choice([None, "eth1"]))]
    if rnd.random() < 0.3:
        ra.forwarding.routes.append(Route(f"{net[72]}.128/25", f"{net[71]}.6"))
    rb.forwarding.routes = [Route("default", f"{net[71]}.1")] if rnd.random() < 0.8 else []
    d.vm("x70", h, pgs[70], f"{net[70]}.10/24", f"{net[70]}.1")
    d.vm("w70", h, pgs[70], f"{net[70]}.20/24", f"{net[70]}.1")
    d.vm("y72", h, pgs[72], f"{net[72]}.10/24", f"{net[72]}.1")
    d.vm("z72", h, pgs[72], f"{net[72]}.200/24", f"{net[72]}.1")


def _asymmetric_island(d: Design, rnd: random.Random, pss, seed: int) -> None:
    """A host whose VLANs 50 and 60 are routed both by a firewall VM and by a router on a stick: a50 uses the
    firewall, the others the router, so a50's conversations go out through one and come back through the other
    (a stateful firewall drops them, a stateless one does not)."""
    if rnd.random() < 0.5:
        return
    net = {v: f"10.{seed % 200}.{v}" for v in (50, 60)}
    h = d.host("asy", pnics=1)
    sw = d.switch(h, "vs", ["asy.vmnic0"])
    d.plug(pss[0], "asy.vmnic0", trunk=True)
    pgs = {v: d.pg(sw, f"pg{v}", v) for v in (50, 60)}
    d.fw("fwa", h, [(pgs[v], f"{net[v]}.254/24") for v in (50, 60)], stateful=rnd.random() < 0.6,
         rules=[Rule(Action.DENY, "any", f"{net[60]}.30/32", Proto.TCP, 22, name="no-ssh")])
    port = d.port(pss[0], "r3", trunk=True)
    d.router("r3", [(port, f"{net[v]}.1/24", v) for v in (50, 60)])
    d.vm("a50", h, pgs[50], f"{net[50]}.10/24", f"{net[50]}.254")
    d.vm("c50", h, pgs[50], f"{net[50]}.20/24", f"{net[50]}.1")
    d.vm("b60", h, pgs[60], f"{net[60]}.30/24", f"{net[60]}.1")


def _kvm_bridges(d: Design, rnd: random.Random, pss, nets: dict[int, str], gws: dict[int, str]) -> None:
    """A KVM host as OpenStack builds it: VMs tagged on OVS br-int, patched to br-phys (the pNIC's bridge); a
    Linux bridge on eth1 (or eth1.20), sometimes patched to br-int too."""
    if rnd.random() < 0.45:
        return
    k = d.host("ovs", pnics=2, kind=HostKind.KVM)
    brint = d.switch(k, "br-int", kind=SwitchKind.OVS)
    brphys = d.switch(k, "br-phys", ["ovs.vmnic0"], kind=SwitchKind.OVS)
    d.plug(rnd.choice(pss), "ovs.vmnic0", trunk=rnd.random() < 0.8, vlan=10, allowed=rnd.choice(["all", "10,20"]))
    if rnd.random() < 0.85:
        d.t.links.append(Link("patch-int-phys", brint.id, brphys.id))
    for i, v in enumerate(rnd.sample([10, 20, 30], rnd.randint(1, 2))):
        d.vm(f"ov{i}", k, d.pg(brint, f"net{v}", v), f"{nets[v]}.{140 + i}/24", gws.get(v), nic_type="virtio")
    br = d.switch(k, "br1", ["ovs.vmnic1"], kind=SwitchKind.LINUX_BRIDGE)
    tagged = rnd.random() < 0.5
    br.uplinks[0].vlan = 20 if tagged else None
    d.plug(rnd.choice(pss), "ovs.vmnic1", trunk=tagged, vlan=20)
    d.vm("lb0", k, br, f"{nets[20]}.150/24", gws.get(20), nic_type="virtio")
    if rnd.random() < 0.3:
        d.t.links.append(Link("patch-br1-int", br.id, brint.id))


def _hosted_networks(d: Design, rnd: random.Random, pss, nets: dict[int, str], gws: dict[int, str]) -> None:
    """A workstation hypervisor's bridged and host-only networks."""
    if rnd.random() < 0.6:
        return
    ws = d.host("ws", pnics=1, kind=HostKind.HOSTED)
    d.plug(rnd.choice(pss), "ws.vmnic0", vlan=rnd.choice([10, 20]))
    bridged = d.switch(ws, "vmnet0", ["ws.vmnic0"], kind=SwitchKind.HOSTED_BRIDGED)
    d.vm("wsb", ws, bridged, f"{nets[10]}.160/24", gws.get(10))
    only = d.switch(ws, "vmnet1", kind=SwitchKind.HOSTED_HOSTONLY, host_address="192.168.50.1/24")
    for i in range(2):
        d.vm(f"wsh{i}", ws, only, f"192.168.50.{10 + i}/24")


def _static_routes(d: Design, rnd: random.Random, pss, nets: dict[int, str], gws: dict[int, str]) -> None:
    """A second router behind r1 on VLAN 30, holding VLAN 40: r1 reaches it by a static route, r2 comes back by
    a default route (or not, when the route was forgotten)."""
    r1 = next((r for r in d.t.physical_routers if r.name == "r1"), None)
    if r1 is None or 30 not in {i.vlan for i in r1.interfaces} or rnd.random() < 0.4:
        return
    far = f"{nets[10].rsplit('.', 1)[0]}.40"
    port = d.port(pss[0], "r2", trunk=True)
    d.router("r2", [(port, f"{nets[30]}.2/24", 30), (port, f"{far}.1/24", 40)],
                  routes=[("0.0.0.0/0", f"{nets[30]}.1")] if rnd.random() < 0.8 else [])
    r1.routes.append(Route(f"{far}.0/24", f"{nets[30]}.2"))
    d.phost("farsrv", d.port(pss[-1], "far", vlan=40), f"{far}.20/24", f"{far}.1")


def _asymmetric_gateways(d: Design, rnd: random.Random, nets: dict[int, str]) -> None:
    """Where a routed firewall and r1 both serve a subnet, some VMs use one and some the other: their
    conversations leave through one and come back through the other (which a stateful one drops)."""
    fw = next((vm for vm in d.t.vms if vm.name == "fw1" and vm.forwarding.mode is ForwardMode.ROUTED), None)
    r1 = next((r for r in d.t.physical_routers if r.name == "r1"), None)
    if fw is None or r1 is None or rnd.random() < 0.3:
        return
    for leg in fw.vnics:
        sub = leg.ip.rsplit(".", 1)[0] if leg.ip else None
        router = next((i.ip.split("/")[0] for i in r1.interfaces if sub and i.ip.startswith(sub + ".")), None)
        if router is None:
            continue
        for vm in d.t.vms:
            nic = vm.vnics[0]
            if vm is not fw and nic.ip and nic.ip.startswith(sub + ".") and rnd.random() < 0.5:
                nic.gateway = leg.ip.split("/")[0] if nic.gateway == router else router


def _dfw_ports(d: Design, rnd: random.Random, nets: dict[int, str]) -> None:
    """DFW rules that name a protocol and a port, before the others (they decide what a conversation may use)."""
    if rnd.random() < 0.6:
        return
    rules = [DfwRule(rnd.choice([Action.ALLOW, Action.DENY]), f"{nets[v]}.0/24", rnd.choice(["any", f"{nets[w]}.0/24"]),
                     proto, port, name=f"p{i}")
             for i, (v, w, proto, port) in enumerate(rnd.sample([(10, 20, Proto.TCP, 443), (20, 10, Proto.UDP, 53),
                                                                 (10, 10, Proto.TCP, "22,80"), (30, 20, Proto.ICMP, None),
                                                                 (20, 30, Proto.TCP, "5201-5210")], 2))]
    d.t.nsx.dfw.rules[:0] = rules
    if rnd.random() < 0.5:
        d.t.nsx.dfw.default_policy = Action.DENY


def _bypass(d: Design, rnd: random.Random, hosts, pss, pgs, nets) -> None:
    """SR-IOV VFs (on a pNIC that may also be a vSwitch uplink: the NIC's embedded switch) and a DirectPath guest."""
    if rnd.random() < 0.35:
        h, pg, v = rnd.choice(pgs)
        pf = rnd.choice(h.pnics)
        if not any(pf.id in (link.a, link.b) for link in d.t.links):
            d.plug(rnd.choice(pss), pf.id, trunk=True, allowed=rnd.choice(["all", "10,20"]))
        for i in range(rnd.randint(1, 2)):
            vm = d.vm(f"vf{i}", h, pg, f"{nets[v]}.{120 + i}/24", nic_type="sriov")
            vm.vnics[0].physical_function = pf.id
    if rnd.random() < 0.25:
        h = rnd.choice(hosts)
        pnic = PNic(f"{h.name}.vmnic9", "vmnic9")
        h.pnics.append(pnic)
        v = rnd.choice([10, 20])
        tagged = rnd.random() < 0.5
        d.plug(rnd.choice(pss), pnic.id, trunk=tagged, vlan=v)
        vm = d.vm("dp", h, pgs[0][1], f"{nets[v]}.130/24", nic_type="directpath", guest_vlan=v if tagged else None)
        vm.vnics[0].network, vm.vnics[0].physical_function = None, pnic.id


def _raw_and_host_os(d: Design, rnd: random.Random, nets: dict[int, str], gws: dict[int, str]) -> None:
    """The KVM guests on a raw AF_PACKET socket instead of macvtap; the hosted PC's own LAN address."""
    for sw in d.t.switches:
        if sw.kind is SwitchKind.MACVTAP and rnd.random() < 0.4:
            sw.kind, sw.macvtap_mode = SwitchKind.RAW, None
    for host in d.t.hosts:
        if host.kind is HostKind.HOSTED and rnd.random() < 0.6:
            host.pnics[0].ip, host.pnics[0].gateway = f"{nets[10]}.250/24", gws.get(10)


def _overlay_transport(d: Design, rnd: random.Random) -> None:
    """NSX segments' tunnel endpoints in a transport VLAN, on a pNIC of each member host."""
    segments = [sw for sw in d.t.switches if sw.kind is SwitchKind.NSX_SEGMENT]
    if not segments or rnd.random() < 0.4:
        return
    vlan = rnd.choice([None, 10, 20, 99])
    for host_id in segments[0].members:
        host = next(h for h in d.t.hosts if h.id == host_id)
        segments[0].uplinks.append(Uplink(rnd.choice(host.pnics).id, vlan=vlan))


def _specs(d: Design, rnd: random.Random) -> list[str]:
    """What rules name in a random design: VMs, their addresses, subnets, portgroups, anything."""
    out = ["any", "10.0.0.0/8", "172.16.0.0/16"]
    for vm in d.t.vms:
        out.append(vm.id)
        for nic in vm.vnics:
            if nic.ip:
                out.append(nic.ip.split("/")[0] + rnd.choice(["", "/32", "/28", "/24"]))
            if nic.network:
                out.append(nic.network)
    return out


def random_rule(d: Design, rnd: random.Random, dfw: bool):
    """One rule as microsegmentation or a per-VM firewall writes them: named ends, sometimes a port."""
    specs = _specs(d, rnd)
    proto, port = rnd.choice([(Proto.ANY, None)] * 4 + [(Proto.TCP, 443), (Proto.UDP, None), (Proto.TCP, "22,80")])
    kind = DfwRule if dfw else Rule
    rule = kind(rnd.choice([Action.ALLOW, Action.DENY]), rnd.choice(specs), rnd.choice(specs), proto, port,
                name=f"r{rnd.randrange(1000)}")
    if dfw and rnd.random() < 0.7:
        rule.applied_to = rnd.sample([vm.id for vm in d.t.vms] + [nic.network for vm in d.t.vms for nic in vm.vnics
                                                                  if nic.network], 1)
    return rule


def random_rule_design(seed: int, teaming: bool = True) -> Design:
    """A random design with rules naming VMs one by one: a DFW rule per VM and /32 rules on its firewall."""
    d = random_design(seed, island=False, teaming=teaming)
    rnd = random.Random(seed + 1000)
    if rnd.random() < 0.8:
        rules = [random_rule(d, rnd, dfw=True) for _ in range(len(d.t.vms) + rnd.randint(0, 6))]
        d.dfw(rules, rnd.choice([Action.ALLOW, Action.DENY]))
        d.t.nsx.dfw.stateful = rnd.random() < 0.6
    for vm in d.t.vms:
        if vm.role.value != "vm" and vm.forwarding.mode is ForwardMode.ROUTED:
            vm.forwarding.rules += [random_rule(d, rnd, dfw=False) for _ in range(rnd.randint(1, 8))]
    _router_island(d, seed)
    return d


def random_nat_design(seed: int | random.Random, teaming: bool = True) -> Design:
    """A random design with NAT drawn apart (``_nat_island``), so the rest is the recorded ``random_design``
    (a property test hands over a ``random.Random``)."""
    d = random_design(seed, teaming=teaming)
    n = seed.randrange(10**6) if isinstance(seed, random.Random) else seed
    _nat_island(d, random.Random(n + 9000), n)
    return d


def _nat_island(d: Design, rnd: random.Random, seed: int) -> None:
    """An edge VM between an inside VLAN 80 and an outside VLAN 81 of a host on the physical network: SNAT lets
    the inside out (or not), DNAT rules (one to one, or TCP 443 / UDP ports, some translated) let the outside
    in, a rule may reject part of it; and a workstation whose hosted NAT network forwards TCP 443 to a guest."""
    base = f"10.{230 + seed % 20}"
    net = {v: f"{base}.{v}" for v in (80, 81)}
    h = d.host("nh", pnics=1)
    ps = d.t.physical_switches[0]
    d.plug(ps, "nh.vmnic0", trunk=True, allowed="80,81")
    sw = d.switch(h, "vs", ["nh.vmnic0"])
    pgs = {v: d.pg(sw, f"pg{v}", v) for v in (80, 81)}
    rules = [Rule(rnd.choice([Action.REJECT, Action.DROP]), "any", f"{net[80]}.10", Proto.TCP, 443, name="no-web")]
    en = d.fw("en", h, [(pgs[81], f"{net[81]}.1/24"), (pgs[80], f"{net[80]}.1/24")],
              stateful=rnd.random() < 0.7, role=rnd.choice([VmRole.NSX_EDGE, VmRole.ROUTER, VmRole.FIREWALL]),
              rules=rules if rnd.random() < 0.3 else [])
    if rnd.random() < 0.7:
        en.forwarding.snat = [Snat(f"{net[80]}.0/24", f"{net[81]}.1", rnd.choice([None, "eth0"]), "out")]
    draws = [Dnat(f"{net[81]}.1", f"{net[80]}.10", Proto.TCP, 443, rnd.choice([None, 8443]), "web"),
             Dnat(f"{net[81]}.1", f"{net[80]}.20", Proto.UDP, 5353, None, "udp"),
             Dnat(f"{net[81]}.1", f"{net[80]}.20", name="one-to-one")]
    en.forwarding.dnat = rnd.sample(draws, rnd.randint(0, 2))
    d.vm("i80a", h, pgs[80], f"{net[80]}.10/24", f"{net[80]}.1")
    d.vm("i80b", h, pgs[80], f"{net[80]}.20/24", f"{net[80]}.1")
    d.phost("o81", d.port(ps, "o81", vlan=81), f"{net[81]}.50/24", rnd.choice([None, f"{net[81]}.1"]))
    if rnd.random() < 0.5:
        ws = d.host("nws", pnics=1, kind=HostKind.HOSTED)
        ws.pnics[0].ip = f"{net[81]}.60/24"
        d.plug(ps, "nws.vmnic0", vlan=81)
        nat = d.switch(ws, "vmnet8", ["nws.vmnic0"], kind=SwitchKind.HOSTED_NAT, nat_gateway="192.168.90.2")
        nat.port_forwards = [PortForward(Proto.TCP, rnd.choice([443, 8443]), "192.168.90.10",
                                         rnd.choice([None, 443]))]
        d.vm("nwg", ws, nat, "192.168.90.10/24", "192.168.90.2")


#: Where the verdicts the engines gave on the examples and the random designs were recorded (``record``), and on which seeds.
RECORDED = Path(__file__).parent / "data" / "random_verdicts.json"
RECORDED_SEEDS = range(30)
_LETTERS = {"in-host": "h", "in-host-routed": "H", "via-physical": "p", "routed-via-physical": "P",
            "unreachable": "u", "blocked": "b"}


def verdict_letters(seed: int) -> dict[str, str]:
    """The verdicts of every pair of the two random designs of ``seed`` (see ``letters``)."""
    out = {}
    for make in (random_design, random_rule_design, random_pvlan_design, random_nat_design):
        out.update(letters(f"{make.__name__}({seed})", make(seed).t))
    return out


def example_letters() -> dict[str, str]:
    """The verdicts of every pair of every bundled example (see ``letters``)."""
    from vnetbench import resources_dir
    from vnetbench.model import load

    from vnetbench.model.families import families_in

    out = {}
    for path in sorted((resources_dir() / "examples").glob("*.vnet.yaml")):
        topology = load(path)
        out.update(letters(path.name.removesuffix(".vnet.yaml"), topology))
        if families_in(topology) == [4, 6]:   # a dual-stack example: its IPv6 answers too
            out.update(letters(path.name.removesuffix(".vnet.yaml") + " ipv6", topology, 6))
    return out


def letters(name: str, topology, family: int | None = None) -> dict[str, str]:  # noqa: ANN001 - a Topology
    """One letter a pair, in the matrix's order: the matrix's verdict, the walk's, and the walk's for TCP/443
    (where rules name ports); in one address family when given."""
    from vnetbench.predict import Engine

    from vnetbench.model.hostos import endpoint_hosts

    engine = Engine(topology, family)
    host_os = {h.id for h in endpoint_hosts(topology)}   # endpoints since the host OS became one: keys of their own
    every = list(engine.matrix().rows())
    out = {}
    for what, rows in (("", [r for r in every if not {r[0], r[1]} & host_os]),
                       (" host os", [r for r in every if {r[0], r[1]} & host_os])):
        if rows or not what:
            out |= {f"{name}{what} matrix": "".join(_LETTERS[v.value] for _, _, v in rows),
                    f"{name}{what} walk": "".join(_LETTERS[engine.predict(a, b).verdict.value] for a, b, _ in rows),
                    f"{name}{what} walk tcp/443": "".join(_LETTERS[engine.predict(a, b, "tcp", 443).verdict.value]
                                                          for a, b, _ in rows)}
    return out


def record() -> None:
    """Write the verdicts of the bundled examples and the recorded seeds (after a deliberate change of the rules: review the diff)."""
    verdicts = example_letters()
    for seed in RECORDED_SEEDS:
        verdicts.update(verdict_letters(seed))
    tmp = RECORDED.with_suffix(".tmp")
    tmp.write_text(json.dumps(verdicts, indent=0, sort_keys=True) + "\n")
    tmp.replace(RECORDED)


if __name__ == "__main__":   # .venv/bin/python tests/unit/random_designs.py
    record()
