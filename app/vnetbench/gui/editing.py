"""Every edit gesture of the designer as one undo command: add, connect, move, delete, paste, set a field.

The canvas, the inspector and the menus call an ``Editor``; it works out everything the gesture implies
(a deleted switch takes its portgroups, its links and the vNIC references to it along) and pushes one
``Group`` on the workbench's undo stack. Nothing here draws, so the same code paths can be tested without
a mouse and driven by one.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable
from typing import Any

from ..model import Host, Index, Link, Note, Place, PNic, Switch, SwitchKind, Topology, Uplink
from ..model.codec import decode, encode
from ..model.addressing import readdress, used_addresses
from ..model.forwarding import patchable
from ..model.objects import MULTI_HOST_SWITCHES, PORTGROUP_SWITCHES
from .catalog import KINDS, Namer, make
from .commands import Group, Insert, Merging, Remove, SetField
from .workbench import Workbench

#: Where each kind of top-level object lives in a Topology (``dlr`` under ``nsx``, ``note`` under ``layout``).
TOP_LISTS = {"host": "hosts", "switch": "switches", "vm": "vms", "physical_switch": "physical_switches",
             "physical_router": "physical_routers", "physical_host": "physical_hosts", "link": "links",
             "dlr": "dlrs", "note": "notes"}
#: Sub-objects and the list of their parent that holds them.
SUB_LISTS = {"pnic": "pnics", "portgroup": "portgroups", "vnic": "vnics", "port": "ports",
             "router_interface": "interfaces", "host_nic": "nics", "dlr_interface": "interfaces"}
#: Fields that hold ids (paste re-maps them).
REFERENCE_FIELDS = {"id", "network", "host", "pnic", "a", "b", "switch", "members", "applied_to"}
#: Ends of a cable (a model ``Link``).
CABLE_ENDS = {"pnic", "port", "router_interface", "host_nic"}


class EditError(ValueError):
    """A gesture that cannot be done; the message says why and what to do instead (shown in the status bar)."""


def owner_of_list(topology: Topology, name: str) -> Any:
    if name == "dlrs":
        return topology.nsx
    if name == "notes":
        return topology.layout
    return topology


#: How a new list element is named, by class: the names the platforms use.
ELEMENT_NAMES = {"VNic": "eth{n}", "PNic": "vmnic{n}", "Port": "Gi1/0/{m}", "RouterInterface": "ge-0/0/{n}",
                 "HostNic": "eth{n}", "DlrInterface": "lif{n}", "Portgroup": "PG-{m}"}


def new_element(cls: type, namer: Namer, count: int) -> Any:
    """A fresh list element (the inspector's Add button, the canvas menu): id and name filled in."""
    values: dict[str, Any] = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            continue
        if f.name == "id":
            values["id"] = namer.id(cls.__name__.lower())
        elif f.name == "name":
            pattern = ELEMENT_NAMES.get(cls.__name__, cls.__name__.lower() + "{n}")
            values["name"] = pattern.format(n=count, m=count + 1)
        else:
            values[f.name] = "" if hints[f.name] is str else None
    return cls(**values)


#: Kinds whose objects are parts of another (a vNIC of a VM, a portgroup of a switch...): named "owner/part" in
#: messages and the history.
PART_KINDS = frozenset({"vnic", "pnic", "port", "router_interface", "host_nic", "dlr_interface", "portgroup"})
#: Switch kinds that take a free pNIC of their host as uplink when they are created (ESXi's vSwitch0 does).
UPLINKED_WHEN_MADE = frozenset({SwitchKind.VSS, SwitchKind.LINUX_BRIDGE, SwitchKind.OVS, SwitchKind.MACVTAP,
                                SwitchKind.HOSTED_BRIDGED})


#: How a field is named in the history when its name alone does not read well.
FIELD_LABELS = {"ip": "IP", "mtu": "MTU", "vlan": "VLAN", "vni": "VNI", "mac": "MAC", "speed_mbps": "speed (Mbit/s)",
                "guest_os": "guest OS", "nat_gateway": "NAT gateway", "guest_vlan": "guest VLAN",
                "access_vlan": "access VLAN", "native_vlan": "native VLAN", "host_address": "host address",
                "macvtap_mode": "macvtap mode", "cpus": "CPUs", "src": "source", "dst": "destination",
                "proto": "protocol", "applied_to": "applied to", "hardware_version": "hardware version",
                "pnics": "pNICs", "vnics": "vNICs"}


def field_label(field: str) -> str:
    return FIELD_LABELS.get(field, field.replace("_", " "))


def heading(label: str) -> str:
    """A label as a heading: capitalised, except a word that starts lower-case on purpose (pNICs, vNIC)."""
    return label if label[1:2].isupper() else label[:1].upper() + label[1:]


def describe(index: Index, oid: str) -> str:
    """How an object is named to a person: ``web01/eth0`` for a part, its name otherwise."""
    obj = index.get(oid)
    name = getattr(obj, "name", None) or oid
    parent = index.parent(oid) if index.kind(oid) in PART_KINDS else None
    return f"{parent.name}/{name}" if parent is not None else name


def connection(index: Index, a: str, b: str) -> str:
    """What a link drag from ``a`` to ``b`` makes: "network" (a vNIC joins a portgroup or switch), "uplink" (a
    pNIC serves a virtual switch) or "cable" (a physical link); ``EditError`` says why it makes nothing."""
    ka, kb = index.kind(a), index.kind(b)
    if ka is None or kb is None:
        raise EditError("drop the link on a portgroup, a switch, a pNIC or a port")
    if a == b:
        raise EditError("a link needs two different ends")
    pair = {ka, kb}
    if "vnic" in pair and pair & {"portgroup", "switch"}:
        net_id = b if ka == "vnic" else a
        net = index.get(net_id)
        if index.kind(net_id) == "switch" and net.kind in PORTGROUP_SWITCHES:
            raise EditError(f"{net.name} has portgroups: drop the vNIC on one of them")
        return "network"
    if "pnic" in pair and "switch" in pair:
        pnic_id, sw_id = (a, b) if ka == "pnic" else (b, a)
        switch, host = index.get(sw_id), index.parent(pnic_id)
        if switch.kind not in MULTI_HOST_SWITCHES and switch.host != host.id:
            raise EditError(f"{switch.name} is not on {host.name}: uplink it with a pNIC of its own host")
        if any(u.pnic == pnic_id for u in switch.uplinks):
            raise EditError(f"{index.get(pnic_id).name} is already an uplink of {switch.name}")
        return "uplink"
    if ka == kb == "switch" and not patchable(index.get(a), index.get(b)):
        raise EditError("only OVS and Linux bridges of one KVM host can be patched to each other; join other "
                        "switches through uplinks and a physical switch")
    if (ka in CABLE_ENDS and kb == "port") or (kb in CABLE_ENDS and ka == "port") or ka == kb == "switch":
        if any({link.a, link.b} == {a, b} for link in index.topology.links):
            raise EditError("these two are already linked")
        return "cable"
    raise EditError(f"cannot connect a {ka.replace('_', ' ')} to a {kb.replace('_', ' ')} "
                    "(vNIC to portgroup, pNIC to switch port or vSwitch, port to port)")


def connectable(index: Index, a: str, b: str) -> bool:
    """Whether a link drag from ``a`` may end on ``b`` (the canvas outlines those while dragging)."""
    try:
        connection(index, a, b)
    except EditError:
        return False
    return True


def free_pnic(topology: Topology, host: Host) -> PNic | None:
    """The host's first pNIC no virtual switch uses as an uplink (NSX segments share theirs, so they do not count)."""
    used = {u.pnic for sw in topology.switches if sw.kind is not SwitchKind.NSX_SEGMENT for u in sw.uplinks}
    return next((p for p in host.pnics if p.id not in used), None)


class Editor:
    def __init__(self, workbench: Workbench) -> None:
        self.workbench = workbench

    @property
    def document(self):
        return self.workbench.document

    @property
    def topology(self) -> Topology:
        return self.workbench.topology

    @property
    def index(self) -> Index:
        return self.document.index

    def push(self, group: Group) -> bool:
        if not len(group):
            return False
        self.workbench.undo_stack.push(group)
        return True

    # --- small builders -------------------------------------------------------------------------------

    def _set(self, group: Group, obj: Any, field: str, value: Any) -> None:
        if getattr(obj, field) != value or type(getattr(obj, field)) is not type(value):
            group.apply(SetField(self.document, obj, field, value))

    def _set_places(self, group: Group, changes: dict[str, Place | None]) -> None:
        """Add, replace or drop entries of ``layout.places`` (one command for the whole dict)."""
        places = dict(self.topology.layout.places)
        for oid, place in changes.items():
            if place is None:
                places.pop(oid, None)
            else:
                places[oid] = place
        if places != self.topology.layout.places:
            group.apply(SetField(self.document, self.topology.layout, "places", places))

    # --- add ------------------------------------------------------------------------------------------

    def add(self, key: str, x: float, y: float, container: str | None = None) -> str:
        """Drop a palette entry at (x, y), into ``container`` (a host or switch id) if given; the new id."""
        kind = KINDS[key]
        container_kind = self.index.kind(container)
        if kind.container == "switch":
            switch = self.index.get(container) if container_kind == "switch" else None
            if switch is None:
                raise EditError("drop a portgroup into a virtual switch")
            if switch.kind not in PORTGROUP_SWITCHES:
                raise EditError(f"a {switch.kind.value} switch has no portgroups: connect vNICs to it directly")
        elif kind.container == "host" and container_kind != "host":
            if kind.needs_container:
                raise EditError(f"drop a {kind.label} into a host")
            container = None
        elif not kind.container:
            container = None
        namer = Namer(self.topology)
        host = self.index.get(container) if self.index.kind(container) == "host" else None
        list_name, obj = make(key, namer, container=container, host_kind=host.kind if host else None, x=x, y=y)
        group = Group(f"Add {obj.name if hasattr(obj, 'name') else kind.label}")
        if list_name == "portgroups":
            group.apply(Insert(self.document, self.index.get(container), "portgroups", obj))
        else:
            group.apply(Insert(self.document, owner_of_list(self.topology, list_name), list_name, obj))
        if list_name != "notes":
            self._set_places(group, {obj.id: Place(x, y)})
        self.push(group)
        if isinstance(obj, Switch) and obj.kind in UPLINKED_WHEN_MADE and host is not None:
            self._take_uplink(obj, host)
        return obj.id

    def _take_uplink(self, switch: Switch, host: Host) -> None:
        """A new switch takes its host's first free pNIC as uplink, as ESXi's vSwitch0 does: its own undo step,
        so Ctrl+Z keeps the switch and drops only the uplink."""
        pnic = free_pnic(self.topology, host)
        if pnic is None:
            return
        group = Group("")
        self._uplink(group, switch, pnic.id)
        group.setText(group.text() + " (automatic)")
        self.push(group)
        self.workbench.status.emit(f"{switch.name} took {host.name}/{pnic.name} as its uplink "
                                   "(Edit > Undo to take it back)")

    def add_element(self, owner: Any, field: str) -> Any:
        """Append a fresh element to ``owner.field`` (a pNIC, vNIC, port, rule...); return it."""
        hint = typing.get_type_hints(type(owner))[field]
        cls = next(a for a in typing.get_args(hint) if a is not type(None))
        cls = typing.get_args(cls)[0] if typing.get_origin(cls) is list else cls
        items = getattr(owner, field)
        element = new_element(cls, Namer(self.topology), len(items or []))
        group = Group(f"Add {cls.__name__}")
        if items is None:
            group.apply(SetField(self.document, owner, field, []))
        group.apply(Insert(self.document, owner, field, element))
        self.push(group)
        return element

    def remove_elements(self, owner: Any, field: str, elements: list[Any]) -> None:
        """Remove list elements; ones with an id go through ``delete`` so references to them go too."""
        if not elements:
            raise EditError("select the rows to remove")
        with_ids = [e.id for e in elements if getattr(e, "id", None) in self.index]
        if with_ids:
            self.delete(with_ids)
            return
        group = Group(f"Remove {type(elements[0]).__name__}")
        for element in elements:
            group.apply(Remove(self.document, owner, field, element))
        self.push(group)

    # --- set ------------------------------------------------------------------------------------------

    def set(self, obj: Any, field: str, value: Any, text: str = "", where: str = "",
            merge_key: object = None) -> bool:
        """One field of one object, named in the history for what changed: "Set web01/eth0 IP to 10.0.0.5/24"
        (``where`` names an object without an id, like "fw01 rule 2"). With ``merge_key``, the next edit of the
        same key merges into this undo step (a spin box stepped through values)."""
        where = where or (describe(self.index, obj.id) if getattr(obj, "id", None) in self.index
                          else type(obj).__name__)
        text = text or f"Set {where} {field_label(field)} to {self.value_text(value)}"
        group = Group(text) if merge_key is None else Merging(text, merge_key)
        self._set(group, obj, field, value)
        return self.push(group)

    def value_text(self, value: Any) -> str:
        """A value as the history shows it: references by name, nothing as "none"."""
        if value is None or value == [] or value == "":
            return "none"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, list):
            return ", ".join(self.value_text(v) for v in value)
        if isinstance(value, str) and value in self.index:
            return describe(self.index, value)
        return str(getattr(value, "value", value))

    # --- connect --------------------------------------------------------------------------------------

    def connect(self, a: str, b: str) -> str:
        """Connect two things the way a link drag from ``a`` to ``b`` means; returns what was done."""
        index = self.index
        what = connection(index, a, b)
        group = Group("Connect")
        if what == "network":
            nic_id, net_id = (a, b) if index.kind(a) == "vnic" else (b, a)
            group.setText(f"Connect {describe(index, nic_id)} to {describe(index, net_id)}")
            self._set(group, index.get(nic_id), "network", net_id)
        elif what == "uplink":
            pnic_id, sw_id = (a, b) if index.kind(a) == "pnic" else (b, a)
            self._uplink(group, index.get(sw_id), pnic_id)
        else:
            # A cable has two ends: plugging an end elsewhere unplugs it first.
            patch = index.kind(a) == "switch"
            for link in list(self.topology.links):
                if not patch and (link.a in (a, b) or link.b in (a, b)):
                    group.apply(Remove(self.document, self.topology, "links", link))
            link = Link(Namer(self.topology).id("link"), a, b)
            group.setText(f"Link {describe(index, a)} to {describe(index, b)}")
            group.apply(Insert(self.document, self.topology, "links", link))
        self.push(group)
        return group.text()

    def _uplink(self, group: Group, switch: Switch, pnic_id: str) -> None:
        host = self.index.parent(pnic_id)
        group.setText(f"Uplink {switch.name} to {host.name}/{self.index.get(pnic_id).name}")
        group.apply(Insert(self.document, switch, "uplinks", Uplink(pnic_id)))
        if switch.kind in MULTI_HOST_SWITCHES and host.id not in switch.members:
            self._set(group, switch, "members", [*switch.members, host.id])

    # --- delete ---------------------------------------------------------------------------------------

    def _expand(self, ids: Iterable[str]) -> list[str]:
        """The ids to delete: a host takes what it holds (switches, VMs); parents come before children."""
        topo, index = self.topology, self.index
        out: list[str] = []
        seen: set[str] = set()
        todo = [i for i in ids if i in index]
        while todo:
            oid = todo.pop(0)
            if oid in seen:
                continue
            seen.add(oid)
            out.append(oid)
            if index.kind(oid) == "host":
                todo += [s.id for s in topo.switches if s.host == oid]
                todo += [v.id for v in topo.vms if v.host == oid]
        return out

    def delete(self, ids: Iterable[str], text: str = "") -> int:
        """Delete objects (and what depends on them) in one undo step; returns how many objects went."""
        topo, index = self.topology, self.index
        targets = self._expand(ids)
        if not targets:
            return 0
        gone: set[str] = set()
        for oid in targets:  # everything whose id disappears, nested objects included
            gone.add(oid)
            obj = index.get(oid)
            for sub_field in ("pnics", "portgroups", "vnics", "ports", "interfaces", "nics"):
                gone.update(s.id for s in getattr(obj, sub_field, []) or [])
        names = [getattr(index.get(t), "name", t) for t in targets]
        group = Group(text or f"Delete {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}")
        parents = {t: index.parent(t) for t in targets}
        kinds = {t: index.kind(t) for t in targets}
        for oid in targets:
            obj, parent, kind = index.get(oid), parents[oid], kinds[oid]
            if parent is not None:
                if parent.id in gone:
                    continue  # leaves with its parent
                group.apply(Remove(self.document, parent, SUB_LISTS[kind], obj))
            else:
                list_name = TOP_LISTS[kind]
                group.apply(Remove(self.document, owner_of_list(topo, list_name), list_name, obj))
        self._drop_references(group, gone)
        self._set_places(group, {oid: None for oid in gone if oid in topo.layout.places})
        self.push(group)
        return len(targets)

    def _drop_references(self, group: Group, gone: set[str]) -> None:
        topo = self.topology
        for vm in topo.vms:
            for nic in vm.vnics:
                if nic.network in gone:
                    self._set(group, nic, "network", None)
        for sw in topo.switches:
            if any(u.pnic in gone for u in sw.uplinks):
                self._set(group, sw, "uplinks", [u for u in sw.uplinks if u.pnic not in gone])
            if any(m in gone for m in sw.members):
                self._set(group, sw, "members", [m for m in sw.members if m not in gone])
            if sw.host in gone:
                self._set(group, sw, "host", None)
            for pg in sw.portgroups:
                if pg.uplinks and any(u.pnic in gone for u in pg.uplinks):
                    self._set(group, pg, "uplinks", [u for u in pg.uplinks if u.pnic not in gone])
        for vm in topo.vms:
            if vm.host in gone:
                self._set(group, vm, "host", None)
        for link in list(topo.links):
            if link.a in gone or link.b in gone:
                group.apply(Remove(self.document, topo, "links", link))
        for router in topo.physical_routers:
            if router.switch in gone:
                self._set(group, router, "switch", None)
        for dlr in topo.nsx.dlrs:
            for itf in list(dlr.interfaces):
                if itf.network in gone:
                    group.apply(Remove(self.document, dlr, "interfaces", itf))
        for rule in topo.nsx.dfw.rules:
            if any(t in gone for t in rule.applied_to):
                self._set(group, rule, "applied_to", [t for t in rule.applied_to if t not in gone])

    def disconnect(self, key: str) -> None:
        """Delete a drawn connection: a cable (link id), a vNIC's network (``net:``), an uplink (``up:``),
        a DLR interface (``dlr:``) or an L3 switch's tie to its switch (``l3:``)."""
        kind, _, rest = key.partition(":")
        group = Group("Disconnect")
        if kind == "net":
            self._set(group, self.index.get(rest), "network", None)
        elif kind == "up":
            sw_id, _, pnic = rest.partition(":")
            switch = self.index.get(sw_id)
            self._set(group, switch, "uplinks", [u for u in switch.uplinks if u.pnic != pnic])
        elif kind == "dlr":
            group.apply(Remove(self.document, self.index.parent(rest), "interfaces", self.index.get(rest)))
        elif kind == "l3":
            self._set(group, self.index.get(rest), "switch", None)
        else:
            self.delete([key], "Delete link")
            return
        self.push(group)

    # --- move -----------------------------------------------------------------------------------------

    def move(self, positions: dict[str, tuple[float, float]], containers: dict[str, str | None] | None = None,
             text: str = "Move") -> bool:
        """One drag: new top-left positions, and the container each dragged object was dropped into."""
        group = Group(text)
        self._move(group, positions, containers or {})
        return self.push(group)

    def nudge(self, positions: dict[str, tuple[float, float]], grabbed: list[str]) -> bool:
        """An arrow-key step of ``grabbed`` (``positions`` holds what they carry too); the next steps of the same
        objects merge into this one undo step."""
        names = [describe(self.index, oid) if oid in self.index else "note" for oid in grabbed]
        group = Merging(f"Nudge {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}", frozenset(positions))
        self._move(group, positions, {})
        return self.push(group)

    def move_into(self, group: Group, positions: dict[str, tuple[float, float]]) -> None:
        """Moves that join ``group``, a command already on the undo stack (the room a drop makes is its step)."""
        extra = Group("")
        self._move(extra, positions, {})
        group.absorb(extra)

    def _move(self, group: Group, positions: dict[str, tuple[float, float]],
              containers: dict[str, str | None]) -> None:
        topo, index = self.topology, self.index
        new_places: dict[str, Place | None] = {}
        for oid, (x, y) in positions.items():
            obj = index.get(oid)
            if isinstance(obj, Note):
                self._set(group, obj, "x", float(x))
                self._set(group, obj, "y", float(y))
                continue
            place = topo.layout.places.get(oid)
            if place is None:
                new_places[oid] = Place(float(x), float(y))
            else:
                self._set(group, place, "x", float(x))
                self._set(group, place, "y", float(y))
        self._set_places(group, new_places)
        for oid, container in containers.items():
            self._reparent(group, oid, container)

    def resize(self, oid: str, w: float, h: float, x: float = 0.0, y: float = 0.0) -> bool:
        """A frame's size (``Place.w``/``h``), from dragging its corner."""
        place = self.topology.layout.places.get(oid)
        group = Group(f"Resize {getattr(self.index.get(oid), 'name', oid)}")
        if place is None:
            self._set_places(group, {oid: Place(float(x), float(y), float(w), float(h))})
        else:
            self._set(group, place, "w", float(w))
            self._set(group, place, "h", float(h))
        return self.push(group)

    def _reparent(self, group: Group, oid: str, container: str | None) -> None:
        index = self.index
        obj, kind = index.get(oid), index.kind(oid)
        if kind == "switch" and obj.kind not in MULTI_HOST_SWITCHES:
            if container and index.kind(container) == "host":
                self._set(group, obj, "host", container)
        elif kind == "vm":
            self._set(group, obj, "host", container if index.kind(container) == "host" else None)
        elif kind == "portgroup" and container and index.kind(container) == "switch":
            old, new = index.parent(oid), index.get(container)
            if new is not old and new.kind in PORTGROUP_SWITCHES:
                group.apply(Remove(self.document, old, "portgroups", obj))
                group.apply(Insert(self.document, new, "portgroups", obj))

    # --- copy, paste, duplicate -------------------------------------------------------------------------

    def copy_data(self, ids: Iterable[str]) -> dict[str, Any]:
        """Plain data for the clipboard: the objects, their places, and the links among them."""
        index, topo = self.index, self.topology
        data: dict[str, Any] = {"objects": [], "places": {}, "links": []}
        chosen = [i for i in self._expand(ids) if index.kind(i) in (*TOP_LISTS, "portgroup")]
        nested: set[str] = set(chosen)
        for oid in chosen:
            kind, obj = index.kind(oid), index.get(oid)
            parent = index.parent(oid)
            if kind == "link" or (parent is not None and parent.id in chosen):
                continue
            data["objects"].append({"kind": kind, "parent": parent.id if parent else None, "data": encode(obj)})
            for sub_field in ("pnics", "vnics", "ports", "interfaces", "nics", "portgroups"):
                nested.update(s.id for s in getattr(obj, sub_field, []) or [])
            if oid in topo.layout.places:
                data["places"][oid] = encode(topo.layout.places[oid])
        for pg_id in [i for i in nested if index.kind(i) == "portgroup"]:
            if pg_id in topo.layout.places:
                data["places"][pg_id] = encode(topo.layout.places[pg_id])
        data["links"] = [encode(link) for link in topo.links if link.a in nested and link.b in nested]
        return data

    def paste(self, data: dict[str, Any], dx: float = 30.0, dy: float = 30.0, text: str = "Paste") -> list[str]:
        """Insert copies with fresh ids, shifted by (dx, dy); references among the copies follow them, and each
        address becomes the next free one in its subnet (a copy never clashes with its original)."""
        from ..model import objects as model

        classes = {"host": model.Host, "switch": model.Switch, "vm": model.VM, "physical_switch": model.PhysicalSwitch,
                   "physical_router": model.PhysicalRouter, "physical_host": model.PhysicalHost,
                   "dlr": model.Dlr, "note": model.Note, "portgroup": model.Portgroup}
        namer = Namer(self.topology)
        mapping: dict[str, str] = {}

        def collect(node: Any) -> None:
            if isinstance(node, dict):
                if isinstance(node.get("id"), str):
                    prefix = node["id"].rsplit("-", 1)[0] if "-" in node["id"] else node["id"]
                    mapping[node["id"]] = namer.id(prefix)
                for value in node.values():
                    collect(value)
            elif isinstance(node, list):
                for value in node:
                    collect(value)

        def remap(node: Any, key: str = "") -> Any:
            if isinstance(node, dict):
                return {k: remap(v, k) for k, v in node.items()}
            if isinstance(node, list):
                return [remap(v, key) for v in node]
            if key in REFERENCE_FIELDS and isinstance(node, str):
                return mapping.get(node, node)
            return node

        objects = data.get("objects", [])
        collect([o["data"] for o in objects])
        used = used_addresses(self.index)  # each copy takes the next free address in its subnet
        group = Group(text)
        new_ids: list[str] = []
        places: dict[str, Place | None] = {}
        for entry in objects:
            kind, parent = entry["kind"], entry.get("parent")
            obj = decode(classes[kind], remap(entry["data"]), kind)
            if kind == "note":
                obj.x, obj.y = obj.x + dx, obj.y + dy
            if hasattr(obj, "name") and kind != "note":
                obj.name = namer.name(obj.name.replace("{", "{{").replace("}", "}}") + "-{n}", 2)
            readdress(obj, used)
            if kind == "portgroup":
                owner = self.index.get(mapping.get(parent, parent))
                if owner is None:
                    continue
                group.apply(Insert(self.document, owner, "portgroups", obj))
            else:
                list_name = TOP_LISTS[kind]
                group.apply(Insert(self.document, owner_of_list(self.topology, list_name), list_name, obj))
            new_ids.append(obj.id)
        for oid, place in data.get("places", {}).items():
            if oid in mapping:
                p = decode(Place, place, "place")
                places[mapping[oid]] = Place(p.x + dx, p.y + dy, p.w, p.h, p.color)
        self._set_places(group, places)
        for raw in data.get("links", []):
            link = decode(Link, remap(raw), "link")
            group.apply(Insert(self.document, self.topology, "links", link))
        self.push(group)
        return new_ids

    def duplicate(self, ids: Iterable[str]) -> list[str]:
        return self.paste(self.copy_data(ids), text="Duplicate")

