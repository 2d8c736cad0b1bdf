"""A part of a design to draw on its own: the chosen objects, everything inside them, the frames around them."""

from __future__ import annotations

import copy
from collections.abc import Iterable

from ..model import Index, Topology

#: Kinds that stand for their owner when chosen (a vNIC draws its VM).
_OWNED = {"vnic": "vm", "host_nic": "physical_host", "router_interface": "physical_router", "port": "physical_switch",
          "pnic": "host", "portgroup": "switch", "dlr_interface": "dlr"}


def subset(topology: Topology, select: Iterable[str]) -> Topology:
    """A copy of ``topology`` holding only what ``select`` names, what it holds and what holds it.

    ``LookupError`` names the first id the design does not have."""
    index = Index(topology)
    wanted = list(select)
    unknown = [i for i in wanted if i not in index]
    if unknown:
        raise LookupError(f"selection: no object with id {unknown[0]!r} in design {topology.name!r} "
                          "(use the ids shown by `vnetbench show FILE`)")
    whole: set[str] = set()  # drawn with everything they hold
    parts: set[str] = set()  # chosen sub-objects (a pNIC, a port): their owner is drawn holding only those
    for oid in wanted:
        kind = index.kind(oid)
        if kind == "vnic":
            oid, kind = index.parent(oid).id, "vm"
        (parts if kind in _OWNED else whole).add(oid)
    t = topology
    for host in t.hosts:
        if host.id in whole:
            whole.update(v.id for v in t.vms if v.host == host.id)
            whole.update(s.id for s in t.switches if s.host == host.id)
    keep = set(whole) | {index.parent(p).id for p in parts}
    for sw in t.switches:
        if sw.id in keep:
            keep.update(sw.members)
            if sw.host:
                keep.add(sw.host)
    for vm in t.vms:
        if vm.id in keep and vm.host:
            keep.add(vm.host)

    def kids(owner_id: str, items: list) -> list:
        if owner_id in whole:
            return list(items)
        return [i for i in items if i.id in parts]

    out = copy.copy(t)
    out.hosts = [_replace(h, pnics=kids(h.id, h.pnics))
                 for h in t.hosts if h.id in keep]
    out.switches = [_replace(s, portgroups=kids(s.id, s.portgroups)) for s in t.switches if s.id in keep]
    out.vms = [v for v in t.vms if v.id in keep]
    out.physical_switches = [_replace(p, ports=kids(p.id, p.ports)) for p in t.physical_switches if p.id in keep]
    out.physical_routers = [_replace(r, interfaces=kids(r.id, r.interfaces)) for r in t.physical_routers
                            if r.id in keep]
    out.physical_hosts = [_replace(p, nics=kids(p.id, p.nics)) for p in t.physical_hosts if p.id in keep]
    out.nsx = copy.copy(t.nsx)
    out.nsx.dlrs = [d for d in t.nsx.dlrs if d.id in keep]
    out.layout = copy.copy(t.layout)
    out.layout.notes = [n for n in t.layout.notes if n.id in keep]
    return out


def _replace(obj, **changes):
    new = copy.copy(obj)
    for name, value in changes.items():
        setattr(new, name, value)
    return new
