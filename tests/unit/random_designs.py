"""Random small designs that exercise every forwarding feature, for property tests of the engine."""

from __future__ import annotations

import random

from builders import Action, DfwRule, Design, ForwardMode, HostKind, MacvtapMode, PNic, Rule, SwitchKind, Uplink

from vnetbench.model.objects import Proto


def random_design(seed: int | random.Random) -> Design:
    """A design drawn from ``seed`` (or from a ``random.Random`` a property test hands over)."""
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
    if rnd.random() < 0.2:  # a vNIC pulled out
        rnd.choice([n for vm in d.t.vms for n in vm.vnics]).connected = False
    return d


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


def _overlay_transport(d: Design, rnd: random.Random) -> None:
    """NSX segments' tunnel endpoints in a transport VLAN, on a pNIC of each member host."""
    segments = [sw for sw in d.t.switches if sw.kind is SwitchKind.NSX_SEGMENT]
    if not segments or rnd.random() < 0.4:
        return
    vlan = rnd.choice([None, 10, 20, 99])
    for host_id in segments[0].members:
        host = next(h for h in d.t.hosts if h.id == host_id)
        segments[0].uplinks.append(Uplink(rnd.choice(host.pnics).id, vlan=vlan))
