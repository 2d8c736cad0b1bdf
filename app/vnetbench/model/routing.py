"""Static routes as the model holds them: which objects route by a route table, what a route's prefix means,
and which interface a route names. Prediction, validation, lint and the report read routes through here, so
``default`` and an interface given by name mean the same thing everywhere.

Router-like objects: physical routers (``routes``), routed router / firewall / edge VMs
(``forwarding.routes``) and NSX DLRs (``routes``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from .objects import VM, Dlr, ForwardMode, PhysicalRouter, Route, Topology, VmRole

#: What a route's prefix may say instead of 0.0.0.0/0.
DEFAULT_PREFIX = "default"


def route_prefix(text: str, strict: bool = True) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """A route's destination network (``default`` is 0.0.0.0/0: an IPv6 design's projection writes ::/0);
    None when it is not an IPv4 or IPv6 network (with its host bits zero, when ``strict``: validation
    insists, prediction takes the network they lie in)."""
    text = text.strip()
    if text.lower() == DEFAULT_PREFIX:
        return ipaddress.IPv4Network("0.0.0.0/0")
    try:
        return ipaddress.ip_network(text, strict=strict)
    except ValueError:
        return None


@dataclass
class RouteOwner:
    """Something with a route table: the object, where it sits in the file, and its interfaces as
    (id, name, address)."""

    obj: VM | Dlr | PhysicalRouter
    path: str
    name: str
    routes: list[Route]
    interfaces: list[tuple[str, str, str | None]]

    def interface(self, ref: str | None) -> int | None:
        """The index of the interface a route names (by id, else by name); None when it names none."""
        if ref is None:
            return None
        for by in (0, 1):
            for i, itf in enumerate(self.interfaces):
                if itf[by] == ref:
                    return i
        return None


def routes_vm(vm: VM) -> bool:
    """Whether a VM forwards by a route table: a router, firewall or edge in routed mode."""
    return vm.role is not VmRole.VM and vm.forwarding.mode is ForwardMode.ROUTED


def route_owners(topo: Topology) -> list[RouteOwner]:
    """Every router-like object of a design, in file order: physical routers, routed VMs, DLRs."""
    out = [RouteOwner(r, f"physical_routers[{i}]", r.name, r.routes, [(f.id, f.name, f.ip) for f in r.interfaces])
           for i, r in enumerate(topo.physical_routers)]
    out += [RouteOwner(vm, f"vms[{i}].forwarding", vm.name, vm.forwarding.routes,
                       [(n.id, n.name, n.ip) for n in vm.vnics]) for i, vm in enumerate(topo.vms) if routes_vm(vm)]
    out += [RouteOwner(d, f"nsx.dlrs[{i}]", d.name, d.routes, [(f.id, f.name, f.ip) for f in d.interfaces])
            for i, d in enumerate(topo.nsx.dlrs)]
    return out
