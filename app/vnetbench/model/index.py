"""Find any object of a design by id, with its parent and its kind, and VMs by name.

Built once per topology state in one pass; prediction, validation, the CLI and the GUI all look things up
through it instead of walking the lists again.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .hostos import endpoint_hosts
from .objects import VM, Host, PhysicalHost, Topology


@dataclass(frozen=True)
class Entry:
    """One indexed object: what it is, what holds it and where it sits in the file (for messages)."""

    obj: Any
    kind: str
    parent: Any = None
    path: str = ""


def walk(topology: Topology) -> Iterator[Entry]:
    """Every identified object with its kind, parent and place in the file (``vms[2].vnics[0]``)."""
    for i, host in enumerate(topology.hosts):
        yield Entry(host, "host", None, f"hosts[{i}]")
        for j, pnic in enumerate(host.pnics):
            yield Entry(pnic, "pnic", host, f"hosts[{i}].pnics[{j}]")
    for i, sw in enumerate(topology.switches):
        yield Entry(sw, "switch", None, f"switches[{i}]")
        for j, pg in enumerate(sw.portgroups):
            yield Entry(pg, "portgroup", sw, f"switches[{i}].portgroups[{j}]")
        for j, lag in enumerate(sw.lags):
            yield Entry(lag, "lag", sw, f"switches[{i}].lags[{j}]")
    for i, vm in enumerate(topology.vms):
        yield Entry(vm, "vm", None, f"vms[{i}]")
        for j, nic in enumerate(vm.vnics):
            yield Entry(nic, "vnic", vm, f"vms[{i}].vnics[{j}]")
    for i, ps in enumerate(topology.physical_switches):
        yield Entry(ps, "physical_switch", None, f"physical_switches[{i}]")
        for j, port in enumerate(ps.ports):
            yield Entry(port, "port", ps, f"physical_switches[{i}].ports[{j}]")
        for j, channel in enumerate(ps.port_channels):
            yield Entry(channel, "port_channel", ps, f"physical_switches[{i}].port_channels[{j}]")
    for i, rt in enumerate(topology.physical_routers):
        yield Entry(rt, "physical_router", None, f"physical_routers[{i}]")
        for j, itf in enumerate(rt.interfaces):
            yield Entry(itf, "router_interface", rt, f"physical_routers[{i}].interfaces[{j}]")
    for i, ph in enumerate(topology.physical_hosts):
        yield Entry(ph, "physical_host", None, f"physical_hosts[{i}]")
        for j, host_nic in enumerate(ph.nics):
            yield Entry(host_nic, "host_nic", ph, f"physical_hosts[{i}].nics[{j}]")
    for i, link in enumerate(topology.links):
        yield Entry(link, "link", None, f"links[{i}]")
    for i, dlr in enumerate(topology.nsx.dlrs):
        yield Entry(dlr, "dlr", None, f"nsx.dlrs[{i}]")
        for j, dlr_itf in enumerate(dlr.interfaces):
            yield Entry(dlr_itf, "dlr_interface", dlr, f"nsx.dlrs[{i}].interfaces[{j}]")
    for i, note in enumerate(topology.layout.notes):
        yield Entry(note, "note", None, f"layout.notes[{i}]")


class Index:
    """Lookups over one state of a topology. Rebuild it after edits (it is cheap: one pass)."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.entries: dict[str, Entry] = {}
        self.duplicates: list[Entry] = []
        for entry in walk(topology):
            if entry.obj.id in self.entries:
                self.duplicates.append(entry)
            else:
                self.entries[entry.obj.id] = entry

    def __contains__(self, obj_id: object) -> bool:
        return obj_id in self.entries

    def get(self, obj_id: str | None) -> Any:
        """The object with this id, or None."""
        entry = self.entries.get(obj_id) if obj_id is not None else None
        return entry.obj if entry else None

    def kind(self, obj_id: str | None) -> str | None:
        """What the id names (``vm``, ``portgroup``, ...), or None."""
        entry = self.entries.get(obj_id) if obj_id is not None else None
        return entry.kind if entry else None

    def parent(self, obj_id: str | None) -> Any:
        """The object that holds this id's object (a vNIC's VM, a portgroup's switch), or None."""
        entry = self.entries.get(obj_id) if obj_id is not None else None
        return entry.parent if entry else None

    def path(self, obj_id: str) -> str:
        """Where the object sits in the file (``vms[3].vnics[0]``), for messages."""
        entry = self.entries.get(obj_id)
        return entry.path if entry else ""

    def endpoint(self, name_or_id: str) -> VM | PhysicalHost | Host:
        """A VM, physical host or hosted hypervisor's host OS (``hostos.endpoint_hosts``) by id or name;
        ``LookupError`` suggests the closest names."""
        hosts = endpoint_hosts(self.topology)
        entry = self.entries.get(name_or_id)
        if entry and (entry.kind in ("vm", "physical_host") or entry.obj in hosts):
            return entry.obj
        candidates: list[VM | PhysicalHost | Host] = [*self.topology.vms, *self.topology.physical_hosts, *hosts]
        for obj in candidates:
            if obj.name == name_or_id:
                return obj
        names = [obj.name for obj in candidates]
        close = difflib.get_close_matches(name_or_id, names, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}?" if close else f"{len(names)} VMs and hosts exist; `vnetbench show FILE` lists them"
        raise LookupError(f"no VM or physical host named {name_or_id!r} ({hint})")
