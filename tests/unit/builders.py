"""A small builder for test designs: one line per object, ids derived from names."""

from __future__ import annotations

from vnetbench.model.objects import (
    VM, Action, Dfw, DfwRule, Dlr, DlrInterface, Forwarding, ForwardMode, Host, HostKind, HostNic, Link,
    MacvtapMode, PhysicalHost, PhysicalRouter, PhysicalSwitch, PNic, Port, PortMode, Portgroup, Route,
    RouterInterface, Rule, Security, Switch, SwitchKind, Topology, Uplink, VmRole, VNic,
)
from vnetbench.predict import Engine, Prediction, Verdict


class Design:
    def __init__(self, name: str = "test") -> None:
        self.t = Topology(id=name, name=name)
        self._n = 0

    def _id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def host(self, name: str, pnics: int = 2, kind: HostKind = HostKind.ESXI, speed: int = 1000) -> Host:
        host = Host(name, name, kind, pnics=[PNic(f"{name}.vmnic{i}", f"vmnic{i}", speed) for i in range(pnics)])
        self.t.hosts.append(host)
        return host

    def switch(self, host: Host | None, name: str, uplinks: list[str] | tuple = (), standby: tuple = (),
               kind: SwitchKind = SwitchKind.VSS, members: list[Host] | None = None, **kw) -> Switch:
        ups = [Uplink(p) for p in uplinks] + [Uplink(p, standby=True) for p in standby]
        sid = f"{host.name}.{name}" if host else name
        sw = Switch(sid, name, kind, host=host.id if host else None, uplinks=ups,
                    members=[m.id for m in members or []], **kw)
        self.t.switches.append(sw)
        return sw

    def pg(self, sw: Switch, name: str, vlan: int | str = 0, **security) -> Portgroup:
        pg = Portgroup(f"{sw.id}.{name}", name, vlan, security=Security(**security))
        sw.portgroups.append(pg)
        return pg

    def vm(self, name: str, host: Host, network, ip: str | None, gw: str | None = None, nic_type: str = "vmxnet3",
           guest_vlan: int | None = None) -> VM:
        vm = VM(name, name, host.id)
        self.nic(vm, network, ip, gw, nic_type, guest_vlan)
        self.t.vms.append(vm)
        return vm

    def nic(self, vm: VM, network, ip: str | None, gw: str | None = None, nic_type: str = "vmxnet3",
            guest_vlan: int | None = None) -> VNic:
        nic = VNic(f"{vm.id}.eth{len(vm.vnics)}", f"eth{len(vm.vnics)}", nic_type, network.id, ip=ip, gateway=gw,
                   guest_vlan=guest_vlan)
        vm.vnics.append(nic)
        return nic

    def fw(self, name: str, host: Host, legs: list[tuple], mode: ForwardMode = ForwardMode.ROUTED,
           rules: list[Rule] | None = None, default: Action = Action.ALLOW, stateful: bool = True,
           role: VmRole = VmRole.FIREWALL) -> VM:
        vm = VM(name, name, host.id, role=role,
                forwarding=Forwarding(mode, stateful, default, rules or []))
        for network, ip, *gw in legs:
            self.nic(vm, network, ip, gw[0] if gw else None)
        self.t.vms.append(vm)
        return vm

    def pswitch(self, name: str) -> PhysicalSwitch:
        ps = PhysicalSwitch(name, name)
        self.t.physical_switches.append(ps)
        return ps

    def port(self, ps: PhysicalSwitch, name: str, vlan: int = 1, trunk: bool = False, allowed: str = "all",
             native: int = 1, hairpin: bool = False, up: bool = True) -> Port:
        port = Port(f"{ps.id}.{name}", name, PortMode.TRUNK if trunk else PortMode.ACCESS, vlan, allowed, native,
                    hairpin, up)
        ps.ports.append(port)
        return port

    def cable(self, a: str, b: str) -> None:
        self.t.links.append(Link(self._id("link"), a, b))

    def plug(self, ps: PhysicalSwitch, pnic_id: str, **port) -> Port:
        """A new port on ``ps`` cabled to ``pnic_id``."""
        p = self.port(ps, f"p{len(ps.ports) + 1}", **port)
        self.cable(pnic_id, p.id)
        return p

    def router(self, name: str, ifaces: list[tuple], switch: PhysicalSwitch | None = None,
               routes: list[tuple[str, str]] = ()) -> PhysicalRouter:
        """``ifaces``: (port or None, ip, vlan); with ``switch`` and no port: an SVI of that L3 switch."""
        r = PhysicalRouter(name, name, switch.id if switch else None,
                           routes=[Route(p, v) for p, v in routes])
        for i, (port, ip, vlan) in enumerate(ifaces):
            itf = RouterInterface(f"{name}.if{i}", f"if{i}", ip, vlan)
            r.interfaces.append(itf)
            if port is not None:
                self.cable(itf.id, port.id)
        self.t.physical_routers.append(r)
        return r

    def phost(self, name: str, port: Port, ip: str, gw: str | None = None, vlan: int | None = None) -> PhysicalHost:
        ph = PhysicalHost(name, name, [HostNic(f"{name}.nic0", "nic0", ip, gw, vlan=vlan)])
        self.cable(ph.nics[0].id, port.id)
        self.t.physical_hosts.append(ph)
        return ph

    def dlr(self, name: str, ifaces: list[tuple[Switch, str]]) -> Dlr:
        d = Dlr(name, name, [DlrInterface(f"{name}.lif{i}", f"lif{i}", sw.id, ip) for i, (sw, ip) in enumerate(ifaces)])
        self.t.nsx.dlrs.append(d)
        return d

    def dfw(self, rules: list[DfwRule], default: Action = Action.ALLOW) -> Dfw:
        self.t.nsx.dfw = Dfw(default, True, rules)
        return self.t.nsx.dfw

    def predict(self, a: str, b: str, proto: str | None = None, port: int | None = None) -> Prediction:
        return Engine(self.t).predict(a, b, proto, port)

    def verdict(self, a: str, b: str, proto: str | None = None, port: int | None = None) -> Verdict:
        return self.predict(a, b, proto, port).verdict


def esx_pair(vlans: tuple[int, ...] = (10,), trunk_allowed: str = "all") -> tuple[Design, list[Host], list[Switch], PhysicalSwitch]:
    """Two ESXi hosts, each with vSwitch0 uplinked by vmnic0 to a trunk port of one physical switch."""
    d = Design()
    ps = d.pswitch("sw1")
    hosts, switches = [], []
    for name in ("esx1", "esx2"):
        h = d.host(name)
        sw = d.switch(h, "vSwitch0", [f"{name}.vmnic0"])
        d.plug(ps, f"{name}.vmnic0", trunk=True, allowed=trunk_allowed)
        for v in vlans:
            d.pg(sw, f"VLAN{v}", v)
        hosts.append(h)
        switches.append(sw)
    return d, hosts, switches, ps


__all__ = ["Design", "esx_pair", "Action", "DfwRule", "ForwardMode", "MacvtapMode", "Rule", "SwitchKind",
           "HostKind", "Verdict", "VmRole"]
