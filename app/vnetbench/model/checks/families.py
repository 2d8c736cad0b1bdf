"""Checks across the two address families of a dual-stack design: IPv6 that cannot leave its link, rule sets
written for one family while both are in use, and links too small for IPv6."""

from __future__ import annotations

import ipaddress
from typing import Any

from ..families import (IPV6_MIN_MTU, address_of, addresses, families_in, family, gateway_of, interfaces,
                        link_local, other)
from ..objects import VmRole
from .values import ValueChecks


class FamilyChecks(ValueChecks):
    """What a design that uses IPv6, or both families, gets wrong."""

    def check_families(self) -> None:
        """IPv6 without a way off its link, one-family rule sets, and IPv6 on links under 1280 bytes."""
        used = families_in(self.t)
        if 6 not in used:
            return
        prefixes = {ipaddress.ip_interface(a).network for part in interfaces(self.t) for a in addresses(part)
                    if family(a) == 6 and "/" in a and not link_local(a)}
        for i, vm in enumerate(self.t.vms):
            for j, nic in enumerate(vm.vnics):
                path, label = f"vms[{i}].vnics[{j}]", f"{vm.name}/{nic.name}"
                own = address_of(nic, 6)
                if own is None or link_local(own) or "/" not in own:
                    continue
                if nic.mtu < IPV6_MIN_MTU:
                    self.error(f"{path}.mtu", nic.id, f"{label} has IPv6 but an MTU of {nic.mtu}, below IPv6's "
                               f"minimum link MTU of {IPV6_MIN_MTU}", f"raise its MTU to at least {IPV6_MIN_MTU}")
                network = ipaddress.ip_interface(own).network
                if vm.role is VmRole.VM and gateway_of(nic, 6) is None and prefixes - {network}:
                    self.warn(f"{path}.gateway6", nic.id, f"{label} has the IPv6 address {own} but no IPv6 "
                              f"gateway, so it reaches nothing outside {network}",
                              "set gateway6 to the router's address on its link (or its link-local one, "
                              "like fe80::1%eth0)")
        if used != [4, 6]:
            return
        sets: list[tuple[str, str | None, str, list[Any]]] = [(f"vms[{i}].forwarding.rules", vm.id, f"{vm.name}'s rules", vm.forwarding.rules)
                for i, vm in enumerate(self.t.vms) if vm.role is not VmRole.VM]
        sets.append(("nsx.dfw.rules", None, "the DFW's rules", self.t.nsx.dfw.rules))
        for path, owner, label, rules in sets:
            named = {f for r in rules for spec in (r.src, r.dst) if (f := family(spec)) is not None}
            if len(named) == 1:
                (only,) = named
                missing = other(only)
                self.warn(path, owner, f"{label} name IPv{only} networks only while the design uses IPv4 and "
                          f"IPv6: IPv{missing} traffic is judged by none of them", f"add the IPv{missing} networks "
                          "to the rules (or name objects, or any, which cover both families)")
