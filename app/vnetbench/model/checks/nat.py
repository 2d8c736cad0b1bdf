"""Checks of SNAT rules on router and edge VMs: sources that are networks, an address to translate to, an
interface the VM has, and a VM that routes (SEMANTICS.md section 9)."""

from __future__ import annotations

import ipaddress

from ..routing import routes_vm
from .values import ValueChecks


class NatChecks(ValueChecks):
    """SNAT rules."""

    def check_snat(self) -> None:
        """Each SNAT rule sits on a VM that routes and names a source network, an address and one of its vNICs."""
        for i, vm in enumerate(self.t.vms):
            for j, rule in enumerate(vm.forwarding.snat):
                path = f"vms[{i}].forwarding.snat[{j}]"
                label = f"{vm.name}'s SNAT rule {rule.name or j + 1}"
                if not routes_vm(vm):
                    self.error(path, vm.id, f"{label} cannot apply: {vm.name} does not route (a VM, or a bridged "
                               "firewall)", f"set {vm.name}'s role to router, firewall or nsx-edge in routed mode, "
                               "or remove the rule")
                    continue
                try:
                    ipaddress.IPv4Network(rule.source.strip(), strict=False)
                except ValueError:
                    self.error(f"{path}.source", vm.id, f"{label} translates sources {rule.source!r}, which is not "
                               "a network", "write the inside network like 172.16.0.0/16")
                self.check_address(f"{path}.to", vm.id, rule.to, f"{label}'s translated address", only=4)
                if rule.interface is not None and not any(rule.interface in (n.id, n.name) for n in vm.vnics):
                    names = ", ".join(n.name for n in vm.vnics) or "none"
                    self.error(f"{path}.interface", vm.id, f"{label} applies on {rule.interface!r}, which is not "
                               f"one of {vm.name}'s vNICs ({names})", "name one of its vNICs, or leave interface "
                               "empty")
