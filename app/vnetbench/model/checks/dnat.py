"""Checks of DNAT rules (port forwarding) on router and edge VMs: an outside address the VM holds, an inside
address, ports that fit, and a VM that routes (SEMANTICS.md section 9)."""

from __future__ import annotations

import ipaddress

from ..objects import Proto, SwitchKind
from ..routing import routes_vm
from .values import ValueChecks


class DnatChecks(ValueChecks):
    """DNAT rules."""

    def check_dnat(self) -> None:
        """Each DNAT rule sits on a VM that routes, on one of its own addresses, and names an inside address."""
        for i, vm in enumerate(self.t.vms):
            own = {n.ip.split("/")[0].strip() for n in vm.vnics if n.ip}
            for j, rule in enumerate(vm.forwarding.dnat):
                path = f"vms[{i}].forwarding.dnat[{j}]"
                label = f"{vm.name}'s DNAT rule {rule.name or j + 1}"
                if not routes_vm(vm):
                    self.error(path, vm.id, f"{label} cannot apply: {vm.name} does not route (a VM, or a bridged "
                               "firewall)", f"set {vm.name}'s role to router, firewall or nsx-edge in routed mode, "
                               "or remove the rule")
                    continue
                if self.check_address(f"{path}.address", vm.id, rule.address, f"{label}'s outside address", only=4) \
                        and str(ipaddress.IPv4Address(rule.address)) not in own:
                    self.error(f"{path}.address", vm.id, f"{label} listens on {rule.address}, which is not an "
                               f"address of {vm.name}'s vNICs ({', '.join(sorted(own)) or 'none'})",
                               "use the address of the vNIC the outside reaches it on")
                self.check_address(f"{path}.to", vm.id, rule.to, f"{label}'s inside address", only=4)
                for key in ("port", "to_port"):
                    value = getattr(rule, key)
                    if value is not None and not 0 < value < 65536:
                        self.error(f"{path}.{key}", vm.id, f"{label} has {key} {value}, which is not a port",
                                   "write a port 1-65535, or leave it empty")
                if (rule.port is not None or rule.to_port is not None) and rule.proto not in (Proto.TCP, Proto.UDP):
                    self.error(f"{path}.proto", vm.id, f"{label} forwards a port but protocol {rule.proto}",
                               "set proto to tcp or udp, or leave both ports empty")
                elif rule.to_port is not None and rule.port is None:
                    self.error(f"{path}.to_port", vm.id, f"{label} translates to port {rule.to_port} but forwards "
                               "every port", "set port (the outside port), or leave to_port empty")

    def check_port_forwards(self) -> None:
        """Port forwards sit on a hosted NAT network, forward TCP or UDP ports to a guest address, and the
        host's address they listen on is known (the NAT's pNIC has an ip)."""
        for i, sw in enumerate(self.t.switches):
            for j, pf in enumerate(sw.port_forwards):
                path = f"switches[{i}].port_forwards[{j}]"
                label = f"{sw.name}'s port forward {pf.name or j + 1}"
                if sw.kind is not SwitchKind.HOSTED_NAT:
                    self.error(path, sw.id, f"{label} cannot apply: {sw.name} is not a hosted NAT network",
                               "set its kind to hosted-nat, or remove the port forward")
                    continue
                if pf.proto not in (Proto.TCP, Proto.UDP):
                    self.error(f"{path}.proto", sw.id, f"{label} forwards protocol {pf.proto}",
                               "set proto to tcp or udp")
                for key in ("host_port", "guest_port"):
                    value = getattr(pf, key)
                    if value is not None and not 0 < value < 65536:
                        self.error(f"{path}.{key}", sw.id, f"{label} has {key} {value}, which is not a port",
                                   "write a port 1-65535")
                self.check_address(f"{path}.guest", sw.id, pf.guest, f"{label}'s guest address", only=4)
