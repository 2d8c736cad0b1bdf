"""The inspector: every property of the selected object, edited in place, checked as you type.

The form is built from the model dataclass's fields, so a new model field shows up without GUI work.
Each committed edit is one undo command through the ``Editor``; a value that does not parse shows its
message under the field and is not written.
"""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..model import VM, Change, DlrInterface, Link, PhysicalRouter, Switch, Uplink, VNic
from ..model.objects import PORTGROUP_SWITCHES
from .editing import EditError, Editor
from .fields import FieldError, format_value, optional, parse
from .signals import connect_weakly
from .workbench import Workbench

KIND_TITLES = {"host": "Host", "pnic": "pNIC", "switch": "Virtual switch", "portgroup": "Portgroup", "vm": "VM",
               "vnic": "vNIC", "physical_switch": "Physical switch", "port": "Switch port",
               "physical_router": "Physical router", "router_interface": "Router interface",
               "physical_host": "Physical host", "host_nic": "Host NIC", "link": "Link", "dlr": "NSX DLR",
               "dlr_interface": "DLR interface", "note": "Note"}
ERROR_STYLE = "QLineEdit { border: 2px solid #d23b3b; border-radius: 3px; background: #fff5f5; }"


class Inspector(QWidget):
    def __init__(self, workbench: Workbench, editor: Editor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workbench, self.editor = workbench, editor
        self.setObjectName("inspector")
        self.obj: Any = None
        self.editors: list[Any] = []
        self.fields: dict[str, QWidget] = {}
        self.messages: dict[str, QLabel] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.heading = QLabel()
        self.heading.setStyleSheet("font-weight: bold; font-size: 14px; padding: 6px 8px;")
        self.heading.setWordWrap(True)  # a long design title wraps instead of widening the dock
        outer.addWidget(self.heading)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        outer.addWidget(self.scroll)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        connect_weakly(workbench.selectionChanged, self, "show_selection")
        connect_weakly(workbench.designChanged, self, "_design_changed")
        self.show_selection()

    # --- which object ---------------------------------------------------------------------------------

    def show_selection(self, *_: object) -> None:
        ids = self.workbench.selection
        index = self.workbench.document.index
        obj = index.get(ids[0]) if len(ids) == 1 else None
        if len(ids) == 1 and obj is None and ids[0].startswith("net:"):
            obj = index.get(ids[0][4:])  # a vNIC's line: inspect the vNIC
        if obj is None and len(ids) > 1:
            self.show_object(None, f"{len(ids)} objects selected")
        else:
            self.show_object(obj if obj is not None else self.workbench.topology)

    def show_object(self, obj: Any, heading: str = "") -> None:
        self.obj = obj
        self.editors, self.fields, self.messages = [], {}, {}
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 4, 8, 8)
        if obj is None:
            self.heading.setText(heading)
            layout.addWidget(QLabel("Select one object to edit its properties."))
        else:
            index = self.workbench.document.index
            kind = index.kind(getattr(obj, "id", None))
            title = KIND_TITLES.get(kind or "", "Design")
            self.heading.setText(f"{title}: {getattr(obj, 'name', '') or getattr(obj, 'id', '')}")
            layout.addWidget(self._form(obj, ""))
        layout.addStretch(1)
        self.scroll.setWidget(page)

    def _design_changed(self, change: Change) -> None:
        if change.op == "reset":
            self.obj = None
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh(self) -> None:
        """Show the model's current values (after an edit, an undo or a change elsewhere)."""
        index = self.workbench.document.index
        if self.obj is not None and self.obj is not self.workbench.topology and getattr(self.obj, "id", None) \
                and index.get(self.obj.id) is not self.obj:
            self.show_selection()
            return
        if self.obj is None:
            self.show_selection()
            return
        focus = self.focusWidget()
        for editor in self.editors:
            if editor.widget is not focus or not editor.dirty:
                editor.load()
        name = getattr(self.obj, "name", None)
        if name is not None:
            title = self.heading.text().split(":")[0]
            self.heading.setText(f"{title}: {name}")

    # --- the form ---------------------------------------------------------------------------------------

    def _form(self, obj: Any, prefix: str) -> QWidget:
        box = QWidget()
        form = QFormLayout(box)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        hints = typing.get_type_hints(type(obj))
        for f in dataclasses.fields(obj):
            hint = hints[f.name]
            name = f"{prefix}{f.name}"
            if f.name == "format_version" or (obj is self.workbench.topology and f.name in (
                    "hosts", "switches", "vms", "physical_switches", "physical_routers", "physical_hosts", "links",
                    "layout")):
                continue
            value = getattr(obj, f.name)
            inner, _ = optional(hint)
            if dataclasses.is_dataclass(inner) and value is not None:
                group = QGroupBox(f.name.replace("_", " ").capitalize())
                inner_layout = QVBoxLayout(group)
                inner_layout.addWidget(self._form(value, f"{name}."))
                form.addRow(group)
                continue
            element = _list_element(inner)
            if element is not None and dataclasses.is_dataclass(element):
                table = ListEditor(self, obj, f.name, element)
                self.editors.append(table)
                form.addRow(QLabel(f.name.replace("_", " ").capitalize()))
                form.addRow(table.container)
                self.fields[name] = table.table
                continue
            editor = self._editor_for(obj, f.name, hint, name)
            self.editors.append(editor)
            self.fields[name] = editor.widget
            self.messages[name] = editor.message
            column = QWidget()
            column_layout = QVBoxLayout(column)
            column_layout.setContentsMargins(0, 0, 0, 0)
            column_layout.setSpacing(1)
            column_layout.addWidget(editor.widget)
            column_layout.addWidget(editor.message)
            form.addRow(f.name.replace("_", " "), column)
        return box

    def _editor_for(self, obj: Any, field: str, hint: Any, name: str):
        inner, allows_none = optional(hint)
        refs = self.references(obj, field)
        if refs is not None:
            return ComboEditor(self, obj, field, [(None, "(none)")] + refs if allows_none else refs)
        if isinstance(inner, type) and issubclass(inner, Enum):
            choices = [(m, m.value) for m in inner]
            return ComboEditor(self, obj, field, [(None, "(default)")] + choices if allows_none else choices)
        if inner is bool:
            return CheckEditor(self, obj, field)
        return TextEditor(self, obj, field, hint, read_only=field == "id")

    def references(self, obj: Any, field: str) -> list[tuple[Any, str]] | None:
        """The objects a reference field may point at, as (id, label), or None for a plain field."""
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
        if isinstance(obj, Link) and field in ("a", "b"):
            return (pnics + [(p.id, f"{s.name} / {p.name}") for s in topo.physical_switches for p in s.ports]
                    + [(i.id, f"{r.name} / {i.name}") for r in topo.physical_routers for i in r.interfaces]
                    + [(n.id, f"{h.name} / {n.name}") for h in topo.physical_hosts for n in h.nics]
                    + [(s.id, s.name) for s in topo.switches])
        return None

    def switch_kind_for(self, obj: Any):
        parent = self.workbench.document.index.parent(getattr(obj, "id", ""))
        return parent.kind if isinstance(parent, Switch) else None

    def commit(self, obj: Any, field: str, value: Any) -> None:
        label = getattr(obj, "name", None) or type(obj).__name__
        self.editor.set(obj, field, value, f"Set {label} {field.replace('_', ' ')}")


def _list_element(hint: Any) -> Any:
    return typing.get_args(hint)[0] if typing.get_origin(hint) is list else None


class TextEditor:
    """A line edit that parses on every keystroke and commits when editing finishes."""

    def __init__(self, inspector: Inspector, obj: Any, field: str, hint: Any, read_only: bool = False) -> None:
        self.inspector, self.obj, self.field, self.hint = inspector, obj, field, hint
        self.widget = QLineEdit()
        self.widget.setObjectName(f"field-{field}")
        self.widget.setReadOnly(read_only)
        self.message = QLabel()
        self.message.setObjectName(f"message-{field}")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c62828; font-size: 11px;")
        self.message.hide()
        self.dirty = False
        self.load()
        self.widget.textEdited.connect(self.check)
        self.widget.editingFinished.connect(self.finish)

    def load(self) -> None:
        self.widget.setText(format_value(getattr(self.obj, self.field)))
        self.dirty = False
        self._show(None)

    def value(self) -> Any:
        index = self.inspector.workbench.document.index
        return parse(self.widget.text(), self.hint, self.field, self.inspector.switch_kind_for(self.obj)
                     if self.field == "vlan" else None, index)

    def check(self) -> bool:
        self.dirty = True
        try:
            self.value()
        except FieldError as exc:
            self._show(str(exc))
            return False
        self._show(None)
        return True

    def _show(self, message: str | None) -> None:
        self.message.setText(message or "")
        self.message.setVisible(bool(message))
        self.widget.setStyleSheet(ERROR_STYLE if message else "")
        self.widget.setToolTip(message or "")

    def finish(self) -> None:
        if not self.dirty or self.widget.isReadOnly():
            return
        if not self.check():
            self.inspector.workbench.status.emit(f"{self.field}: {self.message.text()}")
            return
        value = self.value()
        self.dirty = False
        current = getattr(self.obj, self.field)
        if value != current or type(value) is not type(current):
            self.inspector.commit(self.obj, self.field, value)


class ComboEditor:
    def __init__(self, inspector: Inspector, obj: Any, field: str, choices: list[tuple[Any, str]]) -> None:
        self.inspector, self.obj, self.field, self.choices = inspector, obj, field, choices
        self.widget = QComboBox()
        self.widget.setObjectName(f"field-{field}")
        self.message = QLabel()
        self.message.hide()
        self.dirty = False
        for _, label in choices:
            self.widget.addItem(label)
        self.load()
        self.widget.activated.connect(self.finish)

    def load(self) -> None:
        current = getattr(self.obj, self.field)
        values = [v for v, _ in self.choices]
        if current not in values:
            self.choices.append((current, f"{current} (missing)"))
            self.widget.addItem(f"{current} (missing)")
            values.append(current)
        self.widget.setCurrentIndex(values.index(current))

    def finish(self, row: int) -> None:
        value = self.choices[row][0]
        if value != getattr(self.obj, self.field):
            self.inspector.commit(self.obj, self.field, value)


class CheckEditor:
    def __init__(self, inspector: Inspector, obj: Any, field: str) -> None:
        self.inspector, self.obj, self.field = inspector, obj, field
        self.widget = QCheckBox()
        self.widget.setObjectName(f"field-{field}")
        self.message = QLabel()
        self.message.hide()
        self.dirty = False
        self.load()
        self.widget.clicked.connect(self.finish)

    def load(self) -> None:
        self.widget.setChecked(bool(getattr(self.obj, self.field)))

    def finish(self, checked: bool) -> None:
        if checked != getattr(self.obj, self.field):
            self.inspector.commit(self.obj, self.field, checked)


class ListEditor:
    """A table for a list of small objects (pNICs, ports, rules, routes, uplinks): edit cells, add, remove."""

    def __init__(self, inspector: Inspector, owner: Any, field: str, element: type) -> None:
        self.inspector, self.owner, self.field, self.element = inspector, owner, field, element
        self.hints = typing.get_type_hints(element)
        self.columns = [f.name for f in dataclasses.fields(element)]
        self.widget = self.table = QTableWidget(0, len(self.columns))
        self.table.setObjectName(f"list-{field}")
        self.table.setHorizontalHeaderLabels([c.replace("_", " ") for c in self.columns])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setMinimumHeight(110)
        self.dirty = False
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c62828; font-size: 11px;")
        self.message.hide()
        add, remove = QPushButton("Add"), QPushButton("Remove")
        add.clicked.connect(self.add)
        remove.clicked.connect(self.remove)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        self.container = QWidget()
        layout = QVBoxLayout(self.container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self._loading = False
        self.load()
        self.table.itemChanged.connect(self.cell_changed)

    def items(self) -> list[Any]:
        return getattr(self.owner, self.field) or []

    def load(self) -> None:
        self._loading = True
        items = self.items()
        self.table.setRowCount(len(items))
        for row, element in enumerate(items):
            for col, name in enumerate(self.columns):
                value = getattr(element, name)
                editable = name != "id" and not dataclasses.is_dataclass(value) and not (
                    isinstance(value, list) and value and dataclasses.is_dataclass(value[0]))
                text = format_value(value) if not dataclasses.is_dataclass(value) else "…"
                if isinstance(value, list) and value and dataclasses.is_dataclass(value[0]):
                    text = f"{len(value)} items"
                cell = QTableWidgetItem(text)
                if not editable:
                    cell.setFlags(cell.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, col, cell)
        self._loading = False

    def cell_changed(self, cell: QTableWidgetItem) -> None:
        if self._loading:
            return
        element = self.items()[cell.row()]
        name = self.columns[cell.column()]
        kind = self.owner.kind if isinstance(self.owner, Switch) and name == "vlan" else None
        try:
            value = parse(cell.text(), self.hints[name], name, kind, self.inspector.workbench.document.index)
        except FieldError as exc:
            self.message.setText(f"{name}: {exc}")
            self.message.show()
            self.inspector.workbench.status.emit(f"{name}: {exc}")
            self.load()
            return
        self.message.hide()
        if value != getattr(element, name):
            self.inspector.commit(element, name, value)

    def add(self) -> None:
        self.inspector.editor.add_element(self.owner, self.field)

    def remove(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        items = self.items()
        try:
            self.inspector.editor.remove_elements(self.owner, self.field, [items[r] for r in rows if r < len(items)])
        except EditError as exc:
            self.inspector.workbench.status.emit(str(exc))
