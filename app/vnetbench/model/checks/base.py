"""The state every check shares (the design, its index and fabric, the problems found) and the ways to report."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..forwarding import Fabric
from ..index import Index
from ..objects import Host, Portgroup, Switch, Topology
from ..problems import ERROR, WARNING, Problem
from ..text import one_line
from ..vlan import Vlan

#: What a person calls each kind of object the index knows.
KIND_WORDS = {"pnic": "a pNIC", "port": "a switch port", "router_interface": "a router interface",
               "host_nic": "a physical host's NIC", "switch": "a virtual switch", "vm": "a VM", "vnic": "a vNIC",
               "host": "a host", "portgroup": "a portgroup", "physical_switch": "a physical switch",
               "physical_router": "a router", "physical_host": "a physical host", "link": "a link",
               "dlr": "a DLR", "dlr_interface": "a DLR interface", "note": "a note"}


class CheckerBase:
    """One validation run over one design: the problems found so far and the helpers that word them."""

    def __init__(self, topology: Topology) -> None:
        self.t = topology
        self.index = Index(topology)
        self.fabric = Fabric(topology, self.index)
        self.problems: list[Problem] = []
        self.structure: list[Problem] = []
        self.undrawable: list[Problem] = []

    def add(self, severity: str, path: str, obj_id: str | None, message: str, hint: str) -> None:
        """Record a problem; names in it come from the file, so it is made one printable, bounded line."""
        self.problems.append(Problem(severity, one_line(path), obj_id, one_line(message), one_line(hint)))

    def error(self, path: str, obj_id: str | None, message: str, hint: str) -> None:
        """Record an error: a design the platforms refuse or that makes prediction meaningless."""
        self.add(ERROR, path, obj_id, message, hint)

    def warn(self, path: str, obj_id: str | None, message: str, hint: str) -> None:
        """Record a warning: a design that works, but probably not as intended."""
        self.add(WARNING, path, obj_id, message, hint)

    def unfit(self, path: str, obj_id: str | None, message: str, hint: str) -> None:
        """An error no drawing survives (an overlong name, a box off the canvas): see ``drawing_errors``."""
        self.error(path, obj_id, message, hint)
        self.undrawable.append(self.problems[-1])

    def broken(self, path: str, obj_id: str | None, message: str, hint: str, undrawable: bool = False) -> None:
        """An error in the design's structure (an id twice, a reference to nothing or to the wrong kind):
        tools that follow references cannot use such a design at all (``reference_errors``); with
        ``undrawable``, neither can a drawing (``drawing_errors``)."""
        self.error(path, obj_id, message, hint)
        self.structure.append(self.problems[-1])
        if undrawable:
            self.undrawable.append(self.problems[-1])

    def name(self, obj_id: str | None) -> str:
        """What a person calls the object: ``esx01/vmnic0``, ``web01/eth0``, ``vSwitch1/VM Network``."""
        entry = self.index.entries.get(obj_id) if obj_id is not None else None
        if entry is None:
            return repr(obj_id)
        own = getattr(entry.obj, "name", None) or entry.obj.id
        if entry.kind == "switch" and self.index.kind(entry.obj.host) == "host":
            return f"{self.index.get(entry.obj.host).name}/{own}"
        if entry.parent is not None:
            return f"{self.name(entry.parent.id)}/{own}"
        return own

    def ref(self, path: str, owner_id: str, ref: str | None, kinds: Iterable[str], what: str) -> Any:
        """The object ``ref`` points at if it exists and is of one of ``kinds``; else report it."""
        kinds = tuple(kinds)
        if ref is None:
            return None
        kind = self.index.kind(ref)
        if kind is None:
            self.broken(path, owner_id, f"{self.name(owner_id)} refers to {what} {ref!r}, which does not exist",
                       f"point it at an existing {what} id, or remove the reference")
            return None
        if kind not in kinds:
            wanted = " or ".join(KIND_WORDS.get(k, k) for k in kinds)
            self.broken(path, owner_id, f"{self.name(owner_id)} refers to {self.name(ref)}, which is "
                        f"{KIND_WORDS.get(kind, kind)}, not {wanted}", f"point it at {wanted}", undrawable=True)
            return None
        return self.index.get(ref)

    def host_of_pnic(self, pnic_id: str) -> Host | None:
        """The host a pNIC belongs to, or None when the id is no pNIC."""
        parent = self.index.parent(pnic_id)
        return parent if self.index.kind(pnic_id) == "pnic" else None

    def switch_hosts(self, sw: Switch) -> list[str]:
        """The hosts a switch lives on: its members when it spans hosts, else its one host."""
        return self.fabric.switch_hosts(sw)

    def pg_vlan(self, sw: Switch | None, pg: Portgroup | None) -> Vlan | None:
        """The portgroup's VLAN when it suits the switch kind, else None."""
        if sw is None or pg is None or pg.vlan.problem(sw.kind) is not None:
            return None
        return pg.vlan

    def once(self, seen: dict, key: tuple, path: str, obj_id: str, label: str, what: str) -> None:
        """Report ``key`` (a segment and an address or MAC) when another NIC in ``seen`` has it already."""
        if key in seen:
            self.error(path, obj_id, f"{label} has {what}, which {seen[key][1]} in the same segment has too",
                       "give each NIC in a segment its own address")
        else:
            seen[key] = (path, label)
