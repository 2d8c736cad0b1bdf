"""The inspector: the properties of the selected object that apply to its kind, edited in place.

The form is built from the model dataclass's fields (a new model field shows up without GUI work), less the
fields that do not apply to this object: a standard vSwitch shows no members, macvtap mode, NAT gateway or
VNI; a plain VM no forwarding rules; a design without NSX no NSX tables; an access port no trunk list. Fixed
choices are drop-downs (a vNIC's type offers only what its guest OS supports), yes/no are checkboxes,
references show names, and an address is one row: address / prefix, gateway. Each committed edit is one
undo command named for what changed ("Set web01/eth0 IP to 10.0.0.5/24"); a value that does not parse shows
its message under the field and is not written. Editors live in ``editors``; parsing in ``fields``.
"""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (QFormLayout, QFrame, QGroupBox, QLabel, QPushButton, QScrollArea, QVBoxLayout,
                               QWidget)

from ..model import (VM, Change, DlrInterface, HostKind, HostNic, Link, NicType, PhysicalRouter, Port, PortMode,
                     Portgroup, RouterInterface, Switch, SwitchKind, Topology, Uplink, VmRole, VNic)
from ..model.forwarding import PVLAN_SWITCHES
from ..model.nictypes import GUESTS, allowed_nic_types
from ..model.objects import MULTI_HOST_SWITCHES, PORTGROUP_SWITCHES, Route
from ..model.routing import route_owners
from ..model.text import one_line
from ..model.vlan import VlanError, VlanMode, parse_vlan
from .editing import Editor, describe, field_label, heading
from .editors import (AddressEditor, CheckEditor, Choices, ComboEditor, ListEditor, TextEditor, VlanEditor,
                      fit_address)
from .fields import FieldError, format_value, optional, parse
from .plain import plain
from .signals import connect_weakly
from .workbench import Workbench

KIND_TITLES = {"host": "Host", "pnic": "pNIC", "switch": "Virtual switch", "portgroup": "Portgroup", "vm": "VM",
               "vnic": "vNIC", "physical_switch": "Physical switch", "port": "Switch port",
               "physical_router": "Physical router", "router_interface": "Router interface",
               "physical_host": "Physical host", "host_nic": "Host NIC", "link": "Link", "dlr": "NSX DLR",
               "dlr_interface": "DLR interface", "note": "Note"}
#: Design lists drawn on the canvas (selected and edited there, not as tables of the design).
DRAWN_LISTS = {"hosts", "switches", "vms", "physical_switches", "physical_routers", "physical_hosts", "links",
               "layout", "format_version"}
#: Objects whose address is a row of address / prefix (and gateway, when they have one).
ADDRESSED = (VNic, HostNic, RouterInterface, DlrInterface)
#: Fields whose text may name objects, written as names and stored as ids (a rule's src/dst may also be "any" or
#: an address, kept as typed).
NAMED_REFERENCES = {"members", "applied_to", "src", "dst"}


def uses_nsx(topology: Topology) -> bool:
    return bool(topology.nsx.dlrs or topology.nsx.dfw.rules
                or any(sw.kind is SwitchKind.NSX_SEGMENT for sw in topology.switches)
                or any(vm.role is VmRole.NSX_EDGE for vm in topology.vms))


def _vlan_mode(value: Any, kind: SwitchKind) -> VlanMode | None:
    try:
        return parse_vlan(value, kind).mode
    except VlanError:
        return None


#: Switch kinds whose teaming policy the design may state (``Switch.teaming``).
TEAMED = (SwitchKind.VSS, SwitchKind.VDS)


def teaming_fields(kind: SwitchKind) -> dict[str, bool]:
    """Which of a switch's teaming, LACP, private VLAN and VLAN filtering fields apply to its kind."""
    return {"teaming": kind in TEAMED, "lags": kind is SwitchKind.VDS, "pvlans": kind in PVLAN_SWITCHES,
            "vlan_filtering": kind is SwitchKind.LINUX_BRIDGE}


def vnic_teaming_field(index: Any, nic: VNic, field: str) -> bool:
    """A vNIC's pin applies on a teamed switch's portgroup; its bridge VLANs on a VLAN-filtering bridge."""
    network = index.get(nic.network) if nic.network else None
    switch = index.parent(nic.network) if isinstance(network, Portgroup) else network
    if not isinstance(switch, Switch):
        return False
    return switch.kind in TEAMED if field == "uplink" else switch.vlan_filtering


class Inspector(QWidget):
    def __init__(self, workbench: Workbench, editor: Editor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workbench, self.editor = workbench, editor
        self.setObjectName("inspector")
        self.obj: Any = None
        self.editors: list[Any] = []
        self.fields: dict[str, QWidget] = {}
        self.messages: dict[str, QLabel] = {}
        self._layout_key: tuple = ()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.heading = plain(QLabel())
        self.heading.setStyleSheet("font-weight: bold; font-size: 14px; padding: 6px 8px;")
        self.heading.setWordWrap(True)  # a long design title wraps instead of widening the dock
        outer.addWidget(self.heading)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        outer.addWidget(self.scroll)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        connect_weakly(workbench.selectionChanged, self, "show_selection")
        connect_weakly(workbench.designChanged, self, "_design_changed")
        self.show_selection()

    @property
    def index(self):
        return self.workbench.document.index

    # --- which object ---------------------------------------------------------------------------------

    def show_selection(self, *_: object) -> None:
        ids = self.workbench.selection
        obj = self.index.get(ids[0]) if len(ids) == 1 else None
        if len(ids) == 1 and obj is None and ids[0].startswith("net:"):
            obj = self.index.get(ids[0][4:])  # a vNIC's line: inspect the vNIC
        if obj is None and len(ids) > 1:
            self.show_object(None, f"{len(ids)} objects selected")
        else:
            self.show_object(obj if obj is not None else self.workbench.topology)

    def show_object(self, obj: Any, heading: str = "") -> None:
        self.obj = obj
        self.editors, self.fields, self.messages = [], {}, {}
        self._layout_key = self.layout_key(obj)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 4, 8, 8)
        if obj is None:
            self.heading.setText(heading)
            layout.addWidget(QLabel("Select one object to edit its properties."))
        else:
            self.heading.setText(self.title(obj))
            layout.addWidget(self._form(obj, "", self.where(obj)))
        layout.addStretch(1)
        self.scroll.setWidget(page)

    def title(self, obj: Any) -> str:
        kind = self.index.kind(getattr(obj, "id", None))
        name = "" if obj is self.workbench.topology else describe(self.index, obj.id)
        return one_line(f"{KIND_TITLES.get(kind or '', 'Design')}: {name or getattr(obj, 'name', '')}")

    def where(self, obj: Any) -> str:
        """How the object is named in the history."""
        return "the design" if obj is self.workbench.topology else describe(self.index, obj.id)

    def _design_changed(self, change: Change) -> None:
        if change.op == "reset":
            self.obj = None
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh(self) -> None:
        """Show the model's current values (after an edit, an undo or a change elsewhere); the form is rebuilt
        when the fields that apply changed (a port made a trunk shows its VLAN list)."""
        obj = self.obj
        if obj is None or (obj is not self.workbench.topology and getattr(obj, "id", None)
                           and self.index.get(obj.id) is not obj):
            self.show_selection()
            return
        if self.layout_key(obj) != self._layout_key:
            bar = self.scroll.verticalScrollBar()
            kept = bar.value()  # a rule added: the form grows, and stays where the person was
            self.show_object(obj)
            self.scroll.widget().adjustSize()
            bar.setValue(kept)
            return
        focus = self.focusWidget()
        for editor in self.editors:
            if editor.widget is not focus or not editor.dirty:
                editor.load()
        self.heading.setText(self.title(obj))

    def layout_key(self, obj: Any) -> tuple:
        """What decides the form's rows: which fields apply, and the lengths of the lists shown."""
        if obj is None:
            return ()
        return tuple((f.name, len(getattr(obj, f.name) or []) if isinstance(getattr(obj, f.name), list) else 0,
                      self.layout_key(getattr(obj, f.name)) if dataclasses.is_dataclass(getattr(obj, f.name)) else ())
                     for f in dataclasses.fields(obj) if self.applies(obj, f.name))

    # --- which fields ------------------------------------------------------------------------------------

    def applies(self, obj: Any, field: str) -> bool:
        """Whether ``field`` means anything for this object (a VNI on a standard vSwitch does not)."""
        topo = self.workbench.topology
        if obj is topo:
            return field not in DRAWN_LISTS and (field != "nsx" or uses_nsx(topo))
        if isinstance(obj, Switch):
            kind = obj.kind
            return {"host": kind not in MULTI_HOST_SWITCHES, "members": kind in MULTI_HOST_SWITCHES,
                    "macvtap_mode": kind is SwitchKind.MACVTAP,
                    "host_address": kind in (SwitchKind.HOSTED_HOSTONLY, SwitchKind.HOSTED_NAT),
                    "nat_gateway": kind is SwitchKind.HOSTED_NAT, "vni": kind is SwitchKind.NSX_SEGMENT,
                    "uplinks": kind not in (SwitchKind.HOSTED_HOSTONLY, SwitchKind.HOSTED_NAT),
                    **teaming_fields(kind),
                    "portgroups": False}.get(field, True)  # portgroups are objects of their own on the canvas
        if isinstance(obj, VM):
            host = self.index.get(obj.host) if obj.host else None
            return {"forwarding": obj.role is not VmRole.VM,
                    "hardware_version": host is None or host.kind is not HostKind.KVM}.get(field, True)
        if isinstance(obj, Port):
            trunk = obj.mode is PortMode.TRUNK
            return {"access_vlan": not trunk, "allowed": trunk, "native_vlan": trunk}.get(field, True)
        if isinstance(obj, Portgroup):
            switch = self.index.parent(obj.id)
            kind = switch.kind if isinstance(switch, Switch) else SwitchKind.VSS
            trunk = _vlan_mode(obj.vlan, kind) is VlanMode.TRUNK
            return {"native_vlan": trunk and kind is not SwitchKind.VSS,
                    "uplinks": kind in (SwitchKind.VSS, SwitchKind.VDS),
                    "teaming": kind in TEAMED, "pvlan": kind in PVLAN_SWITCHES}.get(field, True)
        if isinstance(obj, VNic):
            if field == "guest_vlan":
                return self._on_trunk(obj)
            if field == "physical_function":  # the pNIC of a passthrough adapter, never of a vmxnet3
                return obj.type in (NicType.SRIOV, NicType.DIRECTPATH)
            if field in ("uplink", "bridge_vlans"):
                return vnic_teaming_field(self.index, obj, field)
        return True

    def _on_trunk(self, nic: VNic) -> bool:
        network = self.index.get(nic.network) if nic.network else None
        switch = self.index.parent(nic.network) if isinstance(network, Portgroup) else None
        return isinstance(switch, Switch) and _vlan_mode(network.vlan, switch.kind) is VlanMode.TRUNK

    # --- the form ---------------------------------------------------------------------------------------

    def _form(self, obj: Any, prefix: str, where: str) -> QWidget:
        box = QWidget()
        form = QFormLayout(box)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        hints = typing.get_type_hints(type(obj))
        for f in dataclasses.fields(obj):
            name, value = f"{prefix}{f.name}", getattr(obj, f.name)
            if not self.applies(obj, f.name) or f.name == "id" or (isinstance(obj, ADDRESSED) and f.name == "gateway"):
                continue
            inner, _ = optional(hints[f.name])
            if dataclasses.is_dataclass(inner) and value is not None:
                group = QGroupBox(heading(field_label(f.name)))
                QVBoxLayout(group).addWidget(self._form(value, f"{name}.", f"{where} {field_label(f.name)}"))
                form.addRow(group)
            elif f.name == "vnics":
                self._vnic_forms(form, obj, prefix, where)
            elif isinstance(obj, ADDRESSED) and f.name == "ip":
                self._address_row(form, obj, prefix, where, hints)
            elif _list_element(inner) is not None and dataclasses.is_dataclass(_list_element(inner)):
                table = ListEditor(self, obj, f.name, _list_element(inner), where)
                self.editors.append(table)
                form.addRow(QLabel(heading(field_label(f.name))))
                form.addRow(table.container)
                self.fields[name] = table.table
            else:
                editor = self._editor_for(obj, f.name, hints[f.name], where)
                self._add_row(form, name, field_label(f.name), editor, getattr(editor, "row", editor.widget))
        return box

    def _add_row(self, form: QFormLayout, name: str, label: str, editor: Any, widget: QWidget) -> None:
        self.editors.append(editor)
        self.fields[name] = editor.widget
        self.messages[name] = editor.message
        if isinstance(editor, VlanEditor):
            self.fields[f"{name}-mode"] = editor.mode
        column = QWidget()
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.setSpacing(1)
        column_layout.addWidget(widget)
        column_layout.addWidget(editor.message)
        form.addRow(label, column)

    def _address_row(self, form: QFormLayout, obj: Any, prefix: str, where: str, hints: dict) -> None:
        """``address [10.0.0.5] / [24]``, and below it ``gateway [10.0.0.1]`` when the object has one."""
        editor = AddressEditor(self, obj, where)
        self.fields[f"{prefix}prefix"] = editor.prefix
        self._add_row(form, f"{prefix}ip", "address", editor, editor.row)
        if hasattr(obj, "gateway"):
            gateway = TextEditor(self, obj, "gateway", hints["gateway"], where)
            gateway.widget.setPlaceholderText("none")
            fit_address(gateway.widget)
            self._add_row(form, f"{prefix}gateway", "gateway", gateway, gateway.widget)

    def _vnic_forms(self, form: QFormLayout, vm: VM, prefix: str, where: str) -> None:
        """A VM's vNICs: a small form each (name, type, network, address row), not a half-hidden table."""
        for i, nic in enumerate(vm.vnics):
            group = QGroupBox(f"vNIC {nic.name}")
            inner = QVBoxLayout(group)
            inner.setContentsMargins(6, 4, 6, 6)
            inner.addWidget(self._form(nic, f"{prefix}vnics.{i}.", describe(self.index, nic.id)))
            form.addRow(group)
        add = QPushButton("Add vNIC")
        add.clicked.connect(lambda: self.editor.add_element(vm, "vnics"))
        form.addRow(add)

    def _editor_for(self, obj: Any, field: str, hint: Any, where: str):
        choices = self.choices(obj, field, hint)
        if choices is not None:
            return ComboEditor(self, obj, field, choices, where)
        inner, _ = optional(hint)
        if inner is bool:
            return CheckEditor(self, obj, field, where)
        if isinstance(obj, Portgroup) and field == "vlan":
            return VlanEditor(self, obj, field, hint, where, self.switch_kind_for(obj) or SwitchKind.VSS)
        return TextEditor(self, obj, field, hint, where)

    def choices(self, obj: Any, field: str, hint: Any) -> Choices | None:
        """The values a field may take when they are a fixed list (as (value, label)), else None."""
        inner, allows_none = optional(hint)
        refs = self.references(obj, field)
        if refs is not None:
            return [(None, "(none)"), *refs] if allows_none else refs
        if isinstance(obj, VNic) and field == "type":
            vm = self.index.parent(obj.id)
            host = self.index.get(vm.host) if vm is not None and vm.host else None
            allowed = allowed_nic_types(host.kind if host is not None else HostKind.ESXI, vm.guest_os if vm else "")
            return [(t, t.value) for t in type(obj.type) if t in allowed]
        if isinstance(obj, VM) and field == "guest_os":
            return [(key, f"{guest.label} ({key})") for key, guest in GUESTS.items()]
        if isinstance(inner, type) and issubclass(inner, Enum):
            return ([(None, "(default)")] if allows_none else []) + [(m, m.value) for m in inner]
        return None

    def references(self, obj: Any, field: str) -> Choices | None:
        """The objects a reference field may point at, as (id, name), or None for a plain field."""
        topo = self.workbench.topology
        networks = ([(pg.id, f"{sw.name} / {pg.name}") for sw in topo.switches if sw.kind in PORTGROUP_SWITCHES
                     for pg in sw.portgroups]
                    + [(sw.id, sw.name) for sw in topo.switches if sw.kind not in PORTGROUP_SWITCHES])
        pnics = [(p.id, f"{h.name} / {p.name}") for h in topo.hosts for p in h.pnics]
        if isinstance(obj, (VNic, DlrInterface)) and field == "network":
            return networks
        if isinstance(obj, (Switch, VM)) and field == "host":
            return [(h.id, h.name) for h in topo.hosts]
        if isinstance(obj, PhysicalRouter) and field == "switch":
            return [(s.id, s.name) for s in topo.physical_switches]
        if isinstance(obj, Uplink) and field == "pnic":
            return pnics
        if isinstance(obj, Route) and field == "interface":  # the router's own interfaces, by name
            owner = next((o for o in route_owners(topo) if any(r is obj for r in o.routes)), None)
            return [(name, name) for _, name, _ in owner.interfaces] if owner is not None else None
        if isinstance(obj, Link) and field in ("a", "b"):
            return (pnics + [(p.id, f"{s.name} / {p.name}") for s in topo.physical_switches for p in s.ports]
                    + [(i.id, f"{r.name} / {i.name}") for r in topo.physical_routers for i in r.interfaces]
                    + [(n.id, f"{h.name} / {n.name}") for h in topo.physical_hosts for n in h.nics]
                    + [(s.id, s.name) for s in topo.switches])
        return None

    def switch_kind_for(self, obj: Any) -> SwitchKind | None:
        parent = self.index.parent(getattr(obj, "id", ""))
        return parent.kind if isinstance(parent, Switch) else None

    # --- values as text ------------------------------------------------------------------------------

    def shown(self, obj: Any, field: str, value: Any) -> str:
        """A value as the form shows it: object ids as names."""
        if field in NAMED_REFERENCES:
            items = value if isinstance(value, list) else [value]
            return ", ".join(describe(self.index, v) if isinstance(v, str) and v in self.index else format_value(v)
                             for v in items)
        return format_value(value)

    def parse(self, text: str, obj: Any, field: str, hint: Any, owner: Any = None) -> Any:
        """What the person typed, as the model's value; names of objects become their ids."""
        if field in NAMED_REFERENCES:
            text = ", ".join(self._id_of(token.strip()) for token in text.split(",") if token.strip())
        kind = (owner.kind if isinstance(owner, Switch) else self.switch_kind_for(obj)) if field == "vlan" else None
        return parse(text, hint, field, kind, self.index)

    def _id_of(self, token: str) -> str:
        if token in self.index or token.lower() == "any" or any(c.isdigit() for c in token.split("/")[0][:1]):
            return token  # an id, "any", an address or a network
        found = [oid for oid in self.index.entries if describe(self.index, oid) == token]
        if not found:
            raise FieldError(f"nothing in the design is called {token!r}: write names separated by commas")
        return found[0]

    def commit(self, obj: Any, field: str, value: Any, where: str, merge: bool = False) -> None:
        """One edit, one undo step named for it; ``merge``: a run of them (a prefix spun up) is one step."""
        self.editor.set(obj, field, value, where=where, merge_key=(id(obj), field) if merge else None)


def _list_element(hint: Any) -> Any:
    return typing.get_args(hint)[0] if typing.get_origin(hint) is list else None
