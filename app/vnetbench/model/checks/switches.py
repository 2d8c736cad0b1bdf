"""Checks of hosts, virtual switches and portgroups: placement, uplinks, VLANs, MTUs and NAT."""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property

from ..forwarding import BYPASS_TYPES, STANDARD_MTU, TAGGING_SWITCHES, inner_mtu, overlay_overhead
from ..objects import MULTI_HOST_SWITCHES, PORTGROUP_SWITCHES, HostKind, Portgroup, PortMode, Switch, SwitchKind
from ..vlan import VlanMode
from .values import ValueChecks

#: The host kind each switch kind lives on.
SWITCH_HOST_KIND: dict[SwitchKind, HostKind] = {
    SwitchKind.VSS: HostKind.ESXI, SwitchKind.VDS: HostKind.ESXI, SwitchKind.NSX_SEGMENT: HostKind.ESXI,
    SwitchKind.LINUX_BRIDGE: HostKind.KVM, SwitchKind.OVS: HostKind.KVM, SwitchKind.MACVTAP: HostKind.KVM,
    SwitchKind.RAW: HostKind.KVM,
    SwitchKind.HOSTED_BRIDGED: HostKind.HOSTED, SwitchKind.HOSTED_HOSTONLY: HostKind.HOSTED,
    SwitchKind.HOSTED_NAT: HostKind.HOSTED,
}

MAX_VNI = 2**24 - 1


class SwitchChecks(ValueChecks):
    """Hosts and their pNICs, virtual switches, their uplinks and portgroups."""

    def check_hosts(self) -> None:
        """Hosts' CPUs and their pNICs' speed, MTU and host OS addresses."""
        for i, host in enumerate(self.t.hosts):
            if host.cpus < 1:
                self.error(f"hosts[{i}].cpus", host.id, f"{host.name} has {host.cpus} CPUs", "give it at least 1 CPU")
            for j, pnic in enumerate(host.pnics):
                path = f"hosts[{i}].pnics[{j}]"
                if pnic.speed_mbps <= 0:
                    self.error(f"{path}.speed_mbps", pnic.id,
                               f"{self.name(pnic.id)} has speed {pnic.speed_mbps} Mbit/s",
                               "set its link speed, like 1000 or 10000")
                self.check_mtu(f"{path}.mtu", pnic.id, pnic.mtu, self.name(pnic.id))
                if pnic.ip is not None and host.kind is HostKind.ESXI:
                    self.warn(f"{path}.ip", pnic.id, f"{self.name(pnic.id)} gives the ESXi host OS an address, "
                              "which vnetbench does not model (ESXi addresses live on VMkernel ports)",
                              "remove ip; host OS addresses are for hosted hypervisors and KVM hosts")
                self.check_ip_and_gateway(path, pnic.id, pnic.ip, pnic.gateway, f"the host OS on {self.name(pnic.id)}",
                                          pnic)

    def check_switches(self) -> None:
        """Each virtual switch: kind-specific fields, uplinks (shared, foreign, all standby) and portgroups."""
        uplink_users: dict[tuple[str, int | None], str] = {}
        for i, sw in enumerate(self.t.switches):
            path = f"switches[{i}]"
            self.check_switch_placement(path, sw)
            self.check_mtu(f"{path}.mtu", sw.id, sw.mtu, self.name(sw.id))
            if sw.kind == SwitchKind.MACVTAP:
                if sw.macvtap_mode is None:
                    self.error(f"{path}.macvtap_mode", sw.id, f"{self.name(sw.id)} is a macvtap without a mode",
                               "set macvtap_mode: bridge, vepa, private or passthrough")
                if len(sw.uplinks) != 1:
                    self.error(f"{path}.uplinks", sw.id,
                               f"{self.name(sw.id)} is a macvtap on {len(sw.uplinks)} pNICs",
                               "a macvtap sits on exactly one pNIC: list one uplink")
            elif sw.kind == SwitchKind.RAW and len(sw.uplinks) != 1:
                self.error(f"{path}.uplinks", sw.id, f"{self.name(sw.id)} is a raw socket on {len(sw.uplinks)} "
                           "pNICs", "a raw AF_PACKET attachment opens exactly one host interface: list one uplink")
            if sw.kind != SwitchKind.MACVTAP and sw.macvtap_mode is not None:
                self.error(f"{path}.macvtap_mode", sw.id,
                           f"{self.name(sw.id)} is a {sw.kind} switch but has a macvtap mode",
                           "remove macvtap_mode, or make the switch kind macvtap")
            if sw.kind == SwitchKind.HOSTED_BRIDGED and len(sw.uplinks) != 1:
                self.error(f"{path}.uplinks", sw.id, f"{self.name(sw.id)} is a bridged network on "
                           f"{len(sw.uplinks)} pNICs", "a bridged network maps to exactly one host pNIC: list one")
            if sw.kind == SwitchKind.HOSTED_HOSTONLY and sw.uplinks:
                self.error(f"{path}.uplinks", sw.id, f"{self.name(sw.id)} is host-only but has uplinks",
                           "remove the uplinks, or make it a hosted-bridged network")
            if sw.encapsulation is not None and sw.kind is not SwitchKind.NSX_SEGMENT:
                self.error(f"{path}.encapsulation", sw.id, f"{self.name(sw.id)} is a {sw.kind} switch, which "
                           "encapsulates nothing", "remove encapsulation; it belongs to NSX segments")
            if sw.kind is SwitchKind.NSX_SEGMENT:
                self.check_transport_mtu(path, sw)
            if sw.vni is not None and not 1 <= sw.vni <= MAX_VNI:
                self.error(f"{path}.vni", sw.id, f"{self.name(sw.id)} has VNI {sw.vni}, which is out of range",
                           f"use a VNI from 1 to {MAX_VNI}")
            if sw.host_address is not None:
                self.check_interface_address(f"{path}.host_address", sw.id, sw.host_address,
                                             f"the host's address on {self.name(sw.id)}")
            if sw.nat_gateway is not None:
                self.check_address(f"{path}.nat_gateway", sw.id, sw.nat_gateway, f"{self.name(sw.id)}'s NAT gateway")
                self.check_nat_source(path, sw)
            hosts = set(self.switch_hosts(sw))
            seen: set[str] = set()
            for j, up in enumerate(sw.uplinks):
                upath = f"{path}.uplinks[{j}]"
                if self.ref(f"{upath}.pnic", sw.id, up.pnic, ["pnic"], "pNIC") is None:
                    continue
                if up.pnic in seen:
                    self.error(upath, sw.id, f"{self.name(sw.id)} lists {self.name(up.pnic)} twice as an uplink",
                               "list each pNIC once")
                seen.add(up.pnic)
                owner = self.host_of_pnic(up.pnic)
                if owner is not None and hosts and owner.id not in hosts:
                    where = "a member host" if sw.kind in MULTI_HOST_SWITCHES else "its host"
                    self.error(f"{upath}.pnic", sw.id, f"{self.name(sw.id)} uses {self.name(up.pnic)} as an "
                               f"uplink, but that pNIC is not on {where}",
                               f"pick a pNIC of {where}, or add {owner.name} as a member")
                self.check_vlan_id(f"{upath}.vlan", sw.id, up.vlan, f"the uplink {self.name(up.pnic)}")
                key = (up.pnic, up.vlan)
                if sw.kind == SwitchKind.NSX_SEGMENT:
                    continue  # overlay segments share their hosts' transport pNICs
                if key in uplink_users and uplink_users[key] != sw.id:
                    self.error(f"{upath}.pnic", sw.id, f"{self.name(up.pnic)} is an uplink of both "
                               f"{self.name(uplink_users[key])} and {self.name(sw.id)}",
                               "a pNIC serves one virtual switch; give each switch its own pNIC")
                uplink_users.setdefault(key, sw.id)
            if sw.uplinks and all(up.standby for up in sw.uplinks):
                self.warn(f"{path}.uplinks", sw.id, f"every uplink of {self.name(sw.id)} is standby, so it has no "
                          "active uplink", "make the first uplink active (standby: false)")
            if sw.kind not in PORTGROUP_SWITCHES and sw.portgroups:
                self.error(f"{path}.portgroups", sw.id, f"{self.name(sw.id)} is a {sw.kind} switch, "
                           "which has no portgroups", "connect vNICs to the switch itself and remove the portgroups")
            for j, pg in enumerate(sw.portgroups):
                self.check_portgroup(f"{path}.portgroups[{j}]", sw, pg, seen)
                self.check_vlan_carried(f"{path}.portgroups[{j}].vlan", sw, pg)

    def check_nat_source(self, path: str, sw: Switch) -> None:
        """A hosted NAT service sends from the host OS's own address on its pNIC; without it the answer guesses."""
        wire = self.fabric.nat_wire(sw) if sw.host in self.index else None
        if wire is None or wire.pnic is None or self.fabric.pnic[wire.pnic].ip:
            return
        self.warn(f"{path}.nat_gateway", sw.id, f"{self.name(sw.id)} translates guests to the host OS's address on "
                  f"{self.name(wire.pnic)}, which the design does not give, so the lab borrows a free one",
                  f"set ip (and gateway) on {self.name(wire.pnic)}: the host's own address on its LAN")

    def check_transport_mtu(self, path: str, sw: Switch) -> None:
        """The classic NSX failure: a transport MTU that cannot carry a standard guest packet plus the overlay's
        headers (forwarding-rules.md "MTU"). A segment on one host encapsulates nothing."""
        if len(set(sw.members)) < 2:
            return
        for host in sw.members:
            wire = self.fabric.transport(host) if self.index.kind(host) == "host" else None
            if wire is None or wire.pnic is None or wire.port is None:
                continue
            pnic = self.fabric.pnic[wire.pnic]
            mtu, where = min((pnic.mtu, self.name(pnic.id)), (wire.port.mtu, self.fabric.port_label(wire.port)))
            if inner_mtu(sw, mtu) < STANDARD_MTU:
                need = STANDARD_MTU + overlay_overhead(sw)
                self.warn(f"{path}.uplinks", sw.id, f"the overlay of {self.name(sw.id)} cannot carry a "
                          f"{STANDARD_MTU}-byte guest packet from {self.name(host)}: {where} has MTU {mtu}, and "
                          f"{sw.encapsulation or 'geneve'} adds {overlay_overhead(sw)} bytes",
                          f"raise the transport MTU (pNIC and switch ports) to {need} or more (1600 is usual), or "
                          f"lower {sw.name}'s MTU to {inner_mtu(sw, mtu)}")

    @cached_property
    def hosts_on(self) -> dict[str, set[str]]:
        """Portgroup or switch id -> the hosts whose VMs have a vNIC on it through the virtual switch."""
        out: dict[str, set[str]] = defaultdict(set)
        for vm in self.t.vms:
            for nic in vm.vnics:
                if nic.network is not None and vm.host is not None and nic.type not in BYPASS_TYPES:
                    out[nic.network].add(vm.host)
        return out

    def check_vlan_carried(self, path: str, sw: Switch, pg: Portgroup) -> None:
        """A portgroup whose VMs need the physical network, but whose VLAN the active uplink's port drops."""
        if sw.kind not in TAGGING_SWITCHES or self.pg_vlan(sw, pg) is None or pg.vlan.mode is not VlanMode.ACCESS:
            return
        members = self.switch_hosts(sw)
        for host in sorted(h for h in self.hosts_on.get(pg.id, ()) if h in members):
            wire = self.fabric.wire(sw, host, pg.vlan.tag)
            if wire is None or wire.pnic is not None or not self.fabric.teaming(sw, host, pg.vlan.tag):
                continue
            up, _ = self.fabric.active_uplink(self.fabric.teaming(sw, host, pg.vlan.tag))
            port = self.fabric.port_of(up.pnic) if up is not None else None
            if port is None or not port.allowed.valid:   # an unreadable list is reported on its own
                continue
            self.warn(path, pg.id, f"{self.name(pg.id)} is in VLAN {pg.vlan.tag}, but its active uplink "
                      f"{self.name(up.pnic)} plugs into {self.fabric.port_label(port)}, which does not carry it, so "
                      f"its VMs on {self.name(host)} cannot reach the physical network",
                      f"allow VLAN {pg.vlan.tag} on {port.name}" + (" (make it a trunk)" if port.mode is
                                                                     PortMode.ACCESS else "")
                      + ", or put the portgroup in a VLAN the port carries")

    def check_switch_placement(self, path: str, sw: Switch) -> None:
        """A switch on the right kind of host: one host, or member hosts for a spanning switch."""
        want = SWITCH_HOST_KIND[sw.kind]
        if sw.kind in MULTI_HOST_SWITCHES:
            if sw.host is not None:
                self.error(f"{path}.host", sw.id, f"{sw.name} is a {sw.kind} switch, which spans member "
                           "hosts rather than one host", "move the host into members and clear host")
            if not sw.members:
                self.error(f"{path}.members", sw.id, f"{sw.name} has no member hosts",
                           "add the hosts it spans to members")
            hosts = [(f"{path}.members[{k}]", h) for k, h in enumerate(sw.members)]
            if len(set(sw.members)) != len(sw.members):
                self.error(f"{path}.members", sw.id, f"{sw.name} lists a member host twice", "list each host once")
        else:
            if sw.members:
                self.error(f"{path}.members", sw.id, f"{sw.name} is a {sw.kind} switch on one host and "
                           "cannot have members", "set host instead, or make it a vds")
            if sw.host is None:
                self.error(f"{path}.host", sw.id, f"{sw.name} is on no host", "set host to the host it lives on")
            hosts = [(f"{path}.host", sw.host)] if sw.host is not None else []
        for hpath, host_id in hosts:
            host = self.ref(hpath, sw.id, host_id, ["host"], "host")
            if host is not None and host.kind != want:
                self.error(hpath, sw.id, f"{sw.name} is a {sw.kind} switch on the {host.kind} host {host.name}",
                           f"{sw.kind} switches live on {want} hosts; pick a switch kind that host has")

    def check_portgroup(self, path: str, sw: Switch, pg: Portgroup, uplinks: set[str]) -> None:
        """A portgroup's VLAN for its switch kind, its native VLAN, and its uplink overrides."""
        label = f"{self.name(sw.id)}/{pg.name}"
        vlan = self.pg_vlan(sw, pg)
        exc = pg.vlan.problem(sw.kind)
        if exc is not None:       # (then vlan is None)
            self.error(f"{path}.vlan", pg.id, f"{label} has VLAN {pg.vlan.text}: {exc.message}", exc.hint)
        if pg.native_vlan is not None:
            self.check_vlan_id(f"{path}.native_vlan", pg.id, pg.native_vlan, label)
            if vlan is not None and vlan.mode is not VlanMode.TRUNK:
                self.error(f"{path}.native_vlan", pg.id, f"{label} has a native VLAN but is not a trunk",
                           "remove native_vlan, or make the portgroup a trunk")
        for k, up in enumerate(pg.uplinks or []):
            if up.pnic not in uplinks:
                self.error(f"{path}.uplinks[{k}].pnic", pg.id, f"{label} overrides its uplinks with "
                           f"{self.name(up.pnic)}, which is not an uplink of {self.name(sw.id)}",
                           "an override reorders the switch's own uplinks; add the pNIC to the switch first")
