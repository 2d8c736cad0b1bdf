"""Checks of VMs and their vNICs: host, adapter type, network, MAC, addresses, and a firewall VM's forwarding."""

from __future__ import annotations

import re

from ..forwarding import BYPASS_TYPES, filters_vlans
from ..nictypes import GUESTS, MIN_HARDWARE, PLATFORM_NIC_TYPES, allowed_nic_types
from ..objects import (
    MULTI_HOST_SWITCHES,
    PORTGROUP_SWITCHES,
    VM,
    ForwardMode,
    Host,
    HostKind,
    NicType,
    Portgroup,
    Switch,
    SwitchKind,
    VmRole,
)
from ..vlan import MAX_VLAN
from .values import ValueChecks

_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")


class VmChecks(ValueChecks):
    """VMs, their vNICs and the rules of firewall and router VMs."""

    def check_vms(self) -> None:
        """Each VM: its host, CPUs, hardware version, guest OS, vNICs, addresses and forwarding."""
        for i, vm in enumerate(self.t.vms):
            path = f"vms[{i}]"
            host = None
            if vm.host is None:
                self.error(f"{path}.host", vm.id, f"{vm.name} is on no host", "set host to the host it runs on")
            else:
                host = self.ref(f"{path}.host", vm.id, vm.host, ["host"], "host")
            if vm.cpus < 1:
                self.error(f"{path}.cpus", vm.id, f"{vm.name} has {vm.cpus} vCPUs", "give it at least 1 vCPU")
            if vm.hardware_version < 1:
                self.error(f"{path}.hardware_version", vm.id, f"{vm.name} has the VM hardware version "
                           f"{vm.hardware_version}", "use the version vSphere shows for it, like 19 (vmx-19)")
            if vm.guest_os.strip().lower() not in GUESTS and (host is None or host.kind != HostKind.KVM):
                self.warn(f"{path}.guest_os", vm.id, f"vnetbench does not know the guest OS {vm.guest_os!r} of "
                          f"{vm.name}, so its vNIC types are not checked",
                          "use one of " + ", ".join(GUESTS))
            for j, nic in enumerate(vm.vnics):
                self.check_vnic(f"{path}.vnics[{j}]", vm, host, nic)
            if vm.role is VmRole.VM and any(n.network for n in vm.vnics) and not any(n.ip for n in vm.vnics):
                self.warn(f"{path}.vnics", vm.id, f"{vm.name} has no address on any vNIC, so prediction finds "
                          "no way to or from it (an import that could not read the guest's address leaves it so)",
                          f"give {vm.name}'s vNIC an ip (address/prefix)")
            self.check_forwarding(path, vm)

    def check_vnic(self, path: str, vm: VM, host: Host | None, nic) -> None:
        """One vNIC: adapter type, MTU, network on the VM's host, passthrough and SR-IOV limits, guest VLAN."""
        label = f"{vm.name}/{nic.name}"
        if host is not None:
            self.check_nic_type(f"{path}.type", vm, host, nic, label)
        self.check_mtu(f"{path}.mtu", nic.id, nic.mtu, label)
        self.check_physical_function(path, vm, nic, label)
        pg, sw = None, None
        if nic.type == NicType.DIRECTPATH:
            if nic.network is not None:
                self.error(f"{path}.network", nic.id, f"{label} is a DirectPath adapter, which owns its pNIC and "
                           "takes no network", "remove network; the pNIC's switch port decides where it goes")
            return self.check_vnic_addresses(path, nic, label)
        if nic.network is None:
            self.warn(f"{path}.network", nic.id, f"{label} is connected to no network",
                      "pick a portgroup or network for it, or remove the vNIC")
        else:
            target = self.ref(f"{path}.network", nic.id, nic.network, ["portgroup", "switch"], "network")
            if isinstance(target, Portgroup):
                pg, sw = target, self.index.parent(target.id)
            elif isinstance(target, Switch):
                sw = target
                if sw.kind in PORTGROUP_SWITCHES:
                    self.error(f"{path}.network", nic.id, f"{label} is connected to the switch {self.name(sw.id)}"
                               " itself, which takes vNICs through portgroups", "connect it to one of its portgroups")
        if sw is not None and vm.host is not None and host is not None:
            hosts = self.switch_hosts(sw)
            if hosts and vm.host not in hosts:
                where = ("a switch whose members do not include" if sw.kind in MULTI_HOST_SWITCHES
                         else "a switch of another host than")
                self.error(f"{path}.network", nic.id, f"{label} is on {self.name(sw.id)}, {where} {host.name}",
                           f"connect it to a network of {host.name}, or move {vm.name}")
        if sw is not None and sw.kind == SwitchKind.MACVTAP and sw.macvtap_mode == "passthrough":
            users = [n for v in self.t.vms for n in v.vnics if n.network == sw.id]
            if len(users) > 1 and users[0] is not nic:
                self.error(f"{path}.network", nic.id, f"{label} shares the passthrough macvtap {self.name(sw.id)}",
                           "a passthrough macvtap gives its pNIC to one vNIC; use bridge or vepa mode for several")
        if nic.type == NicType.SRIOV and not isinstance(pg, Portgroup) and nic.network is not None:
            self.error(f"{path}.network", nic.id, f"{label} is an SR-IOV adapter on {self.name(nic.network)}, "
                       "but a virtual function takes its VLAN from a portgroup", "connect it to a portgroup")
        if nic.guest_vlan is not None:
            self.check_vlan_id(f"{path}.guest_vlan", nic.id, nic.guest_vlan, label)
            if pg is None and not filters_vlans(sw if isinstance(sw, Switch) else None):   # its port decides
                self.error(f"{path}.guest_vlan", nic.id, f"{label} tags VLAN {nic.guest_vlan} itself, but is on a "
                           "network without VLAN trunking", "remove guest_vlan, or use a trunk portgroup "
                           "(vSS VLAN 4095, vDS/OVS trunk)")
            elif sw is not None and self.pg_vlan(sw, pg) is not None and 1 <= nic.guest_vlan <= MAX_VLAN:
                _, problem = self.fabric.frame_vlan(sw, pg, nic.guest_vlan, label)
                if problem:
                    self.error(f"{path}.guest_vlan", nic.id, problem, "remove guest_vlan, or use a trunk portgroup "
                               "(vSS VLAN 4095, vDS/OVS trunk) that carries the VLAN")
        self.check_vnic_addresses(path, nic, label)

    def check_vnic_addresses(self, path: str, nic, label: str) -> None:
        """A vNIC's MAC (six hex pairs, unicast), address and gateway."""
        if nic.mac is not None and not _MAC.match(nic.mac.lower()):
            self.error(f"{path}.mac", nic.id, f"{label} has MAC {nic.mac!r}, which is not a MAC address",
                       "write six hex pairs, like 00:50:56:01:02:03")
        elif nic.mac is not None and int(nic.mac[:2], 16) & 1:
            self.error(f"{path}.mac", nic.id, f"{label} has the multicast MAC {nic.mac}",
                       "a NIC needs a unicast MAC: the first byte must be even (VMware uses 00:50:56)")
        self.check_ip_and_gateway(path, nic.id, nic.ip, nic.gateway, label, nic)

    def check_physical_function(self, path: str, vm: VM, nic, label: str) -> None:
        """SR-IOV and DirectPath adapters name the pNIC they use; a DirectPath one owns it alone."""
        if nic.type not in BYPASS_TYPES:
            if nic.physical_function is not None:
                self.error(f"{path}.physical_function", nic.id, f"{label} is a {nic.type} adapter but names a "
                           "physical function", "remove it, or make the adapter sriov or directpath")
            return
        if self.ref(f"{path}.physical_function", nic.id, nic.physical_function, ["pnic"], "pNIC") is None \
                and nic.physical_function is not None:
            return
        pnic, problem = self.fabric.physical_function(vm, nic)
        if pnic is None:
            self.error(f"{path}.physical_function", nic.id, problem,
                       f"name a pNIC of {self.name(vm.host)} as its physical_function")
            return
        if nic.type != NicType.DIRECTPATH:
            return
        uplink_of = [sw for sw in self.t.switches for u in sw.uplinks if u.pnic == pnic]
        others = [f"{v.name}/{n.name}" for v in self.t.vms for n in v.vnics
                  if n is not nic and n.physical_function == pnic]
        if uplink_of or others:
            users = [f"an uplink of {self.name(sw.id)}" for sw in uplink_of] + [f"used by {o}" for o in others]
            self.error(f"{path}.physical_function", nic.id, f"{label} passes {self.name(pnic)} through to the "
                       f"guest (DirectPath), but the pNIC is also {', '.join(users)}",
                       "a DirectPath pNIC belongs to one guest alone; give it its own pNIC")

    def check_nic_type(self, path: str, vm: VM, host: Host, nic, label: str) -> None:
        """An adapter type the host's platform offers, the guest can use, and the hardware version has."""
        platform = PLATFORM_NIC_TYPES[host.kind]
        if nic.type not in platform:
            self.error(path, nic.id, f"{label} uses the adapter type {nic.type}, which a {host.kind} host "
                       f"({host.name}) does not offer", "use one of " + ", ".join(sorted(platform)))
            return
        allowed = allowed_nic_types(host.kind, vm.guest_os)
        if nic.type not in allowed:
            guest = GUESTS[vm.guest_os.strip().lower()].label
            self.error(path, nic.id, f"{label} uses the adapter type {nic.type}, which a {guest} guest "
                       "cannot use", "use one of " + ", ".join(sorted(allowed)))
        elif host.kind != HostKind.KVM and nic.type in MIN_HARDWARE and vm.hardware_version < MIN_HARDWARE[nic.type]:
            need = MIN_HARDWARE[nic.type]
            self.error(path, nic.id, f"{label} uses the adapter type {nic.type}, which needs VM hardware version "
                       f"{need}, but {vm.name} has version {vm.hardware_version}",
                       f"upgrade {vm.name} to hardware version {need} or later, or use e1000")

    def check_forwarding(self, path: str, vm: VM) -> None:
        """A firewall or router VM: vNICs to forward between, rule matches, and a bridged firewall's security policy."""
        if vm.role == VmRole.VM:
            return
        fw = vm.forwarding
        if len(vm.vnics) < 2:
            self.warn(f"{path}.vnics", vm.id, f"{vm.name} is a {vm.role} with {len(vm.vnics)} vNIC(s), "
                      "so it has nothing to forward between", "give it a vNIC in each network it joins")
        for k, rule in enumerate(fw.rules):
            label = f"{vm.name}'s rule {rule.name or k + 1}"
            for side in ("src", "dst"):
                self.check_rule_match(f"{path}.forwarding.rules[{k}].{side}", vm.id, getattr(rule, side), label)
            self.check_rule_port(f"{path}.forwarding.rules[{k}].port", vm.id, rule.port, label)
        if fw.mode != ForwardMode.BRIDGED:
            return
        for j, nic in enumerate(vm.vnics):
            problems = self.fabric.bridging_problems(vm, nic)
            if not problems:
                continue
            if nic.type in BYPASS_TYPES:
                self.warn(f"{path}.vnics[{j}].type", vm.id, f"{vm.name} bridges through {problems[0]}, so the "
                          "firewall will drop traffic", "give a bridged firewall's legs ordinary vNICs (vmxnet3)")
                continue
            missing = [p.removeprefix(f"portgroup {self.index.get(nic.network).name} rejects ") for p in problems]
            pg = self.index.get(nic.network)
            self.warn(f"{path}.vnics[{j}].network", vm.id, f"{vm.name} bridges through {self.name(pg.id)}, "
                      f"which rejects {' and '.join(missing)}, so the firewall will drop traffic",
                      f"accept {' and '.join(missing)} on {pg.name}'s security policy")
