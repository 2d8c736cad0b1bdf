"""The inspector's field editors: the right control for each kind of value, each checking what is typed.

Text fields parse on every keystroke and commit when editing finishes; drop-downs and checkboxes commit at
once. Every editor has a ``widget`` (what tests and the keyboard reach), a ``message`` label under it (what
is wrong and how to fix it, never written to the model), ``load()`` to show the model's value again, and
``dirty`` while the person has typed something not yet committed. Each commit is one undo step named by the
``where`` the editor was given ("web01/eth0"), so the history reads "Set web01/eth0 IP to 10.0.0.5/24".
"""

from __future__ import annotations

import dataclasses
import ipaddress
import typing
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker, QSize, Qt
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPushButton, QSpinBox, QStyle, QStyleOptionFrame, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from ..model import SwitchKind
from ..model.vlan import VlanError, VlanMode, parse_vlan
from .editing import EditError
from .fields import FieldError, address_problem, format_value, optional
from .plain import plain

if TYPE_CHECKING:
    from .inspector import Inspector

#: The longest IPv4 address, which an address field shows whole.
WIDEST_IPV4 = "255.255.255.255"
ERROR_STYLE = "QLineEdit { border: 2px solid #d23b3b; border-radius: 3px; background: #fff5f5; color: #1d2433; }"
Choices = list[tuple[Any, str]]


def message_label(name: str) -> QLabel:
    label = plain(QLabel())
    label.setObjectName(f"message-{name}")
    label.setWordWrap(True)
    label.setStyleSheet("color: #c62828; font-size: 11px;")
    label.hide()
    return label


class TextEditor:
    """A line edit that parses on every keystroke and commits when editing finishes."""

    def __init__(self, inspector: Inspector, obj: Any, field: str, hint: Any, where: str,
                 read_only: bool = False) -> None:
        self.inspector, self.obj, self.field, self.hint, self.where = inspector, obj, field, hint, where
        self.widget = QLineEdit()
        self.widget.setObjectName(f"field-{field}")
        self.widget.setReadOnly(read_only)
        self.message = message_label(field)
        self.dirty = False
        self.load()
        self.widget.textEdited.connect(self.check)
        self.widget.editingFinished.connect(self.finish)

    def shown(self, value: Any) -> str:
        return self.inspector.shown(self.obj, self.field, value)

    def load(self) -> None:
        self.widget.setText(self.shown(getattr(self.obj, self.field)))
        self.dirty = False
        self.show_message(None)

    def value(self) -> Any:
        return self.inspector.parse(self.widget.text(), self.obj, self.field, self.hint)

    def check(self) -> bool:
        self.dirty = True
        try:
            self.value()
        except FieldError as exc:
            self.show_message(str(exc))
            return False
        self.show_message(None)
        return True

    def show_message(self, message: str | None) -> None:
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
        self.dirty = False
        value = self.value()
        self.commit(value)
        if isinstance(value, list) and self.shown(value) != self.widget.text():
            self.widget.setText(self.shown(value))  # as stored: addresses in their canonical short form

    def commit(self, value: Any, merge: bool = False) -> None:
        current = getattr(self.obj, self.field)
        if value != current or type(value) is not type(current):
            self.inspector.commit(self.obj, self.field, value, self.where, merge=merge)


class ComboEditor:
    """A fixed choice: an enum, a reference shown by name, a vNIC type the guest supports."""

    def __init__(self, inspector: Inspector, obj: Any, field: str, choices: Choices, where: str) -> None:
        self.inspector, self.obj, self.field, self.choices, self.where = inspector, obj, field, list(choices), where
        self.widget = QComboBox()
        self.widget.setObjectName(f"field-{field}")
        # as wide as the form gives it, not as wide as the longest name: the inspector must never scroll sideways
        self.widget.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.widget.setMinimumContentsLength(8)
        self.message = message_label(field)
        self.dirty = False
        for _, label in self.choices:
            self.widget.addItem(label)
        self.load()
        self.widget.activated.connect(self.finish)

    def load(self) -> None:
        current = getattr(self.obj, self.field)
        values = [v for v, _ in self.choices]
        if current not in values:  # a value the choices do not offer (a missing object, an unsupported type)
            label = f"{format_value(current)} (not offered here)"
            self.choices.append((current, label))
            self.widget.addItem(label)
            values.append(current)
        with QSignalBlocker(self.widget):
            self.widget.setCurrentIndex(values.index(current))

    def finish(self, row: int) -> None:
        value = self.choices[row][0]
        if value != getattr(self.obj, self.field):
            self.inspector.commit(self.obj, self.field, value, self.where)


class CheckEditor:
    def __init__(self, inspector: Inspector, obj: Any, field: str, where: str) -> None:
        self.inspector, self.obj, self.field, self.where = inspector, obj, field, where
        self.widget = QCheckBox()
        self.widget.setObjectName(f"field-{field}")
        self.message = message_label(field)
        self.dirty = False
        self.load()
        self.widget.clicked.connect(self.finish)

    def load(self) -> None:
        with QSignalBlocker(self.widget):
            self.widget.setChecked(bool(getattr(self.obj, self.field)))

    def finish(self, checked: bool) -> None:
        if checked != getattr(self.obj, self.field):
            self.inspector.commit(self.obj, self.field, checked, self.where)


def fit_address(edit: QLineEdit) -> None:
    """Make ``edit`` wide enough to show the longest IPv4 address whole, in its font (so at any scale)."""
    option = QStyleOptionFrame()
    edit.initStyleOption(option)
    metrics = edit.fontMetrics()
    margins = edit.textMargins()
    # + 4: the two pixels QLineEdit keeps inside its frame on each side, besides the text margins
    text = QSize(metrics.horizontalAdvance(WIDEST_IPV4) + margins.left() + margins.right() + 4, metrics.height())
    edit.setMinimumWidth(edit.style().sizeFromContents(QStyle.ContentsType.CT_LineEdit, option, text, edit).width())


class AddressEditor(TextEditor):
    """Address and prefix length in one row: ``[10.0.0.5] / [24]``, the address wide enough for any IPv4 one.

    The model keeps ``ip`` as ``address/prefix``; typing ``10.0.0.5/24`` into the address works too. The
    gateway (when the object has one) is its own ``TextEditor`` on the row below, so each is its own undo step.
    """

    def __init__(self, inspector: Inspector, obj: Any, where: str) -> None:
        self.prefix = QSpinBox()
        self.prefix.setObjectName("field-prefix")
        self.prefix.setRange(0, 32)
        self.prefix.setValue(24)
        self.prefix.setToolTip("Prefix length: 24 is a 255.255.255.0 netmask")
        super().__init__(inspector, obj, "ip", str | None, where)
        self.address = self.widget
        self.address.setPlaceholderText("address")
        fit_address(self.address)
        self.row = QWidget()
        layout = QHBoxLayout(self.row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.address, 1)
        layout.addWidget(QLabel("/"))
        layout.addWidget(self.prefix)
        self.prefix.valueChanged.connect(self._prefix_changed)

    def load(self) -> None:
        self.show_value(getattr(self.obj, "ip") or "")
        self.dirty = False
        self.show_message(None)

    def show_value(self, value: str) -> None:
        """``address/prefix`` shown apart, in the two boxes."""
        address, _, prefix = value.partition("/")
        with QSignalBlocker(self.widget), QSignalBlocker(self.prefix):
            self.widget.setText(address)
            if prefix.isdigit():
                self.prefix.setMaximum(128 if ":" in address else 32)
                self.prefix.setValue(int(prefix))

    def value(self) -> str | None:
        """``address/prefix`` from the row, or None when the address is empty; ``FieldError`` if it is wrong."""
        text = self.widget.text().strip()
        if not text:
            return None
        if "/" not in text:
            text = f"{text}/{self.prefix.value()}"
        problem = address_problem(text, with_prefix=True)
        if problem:
            raise FieldError(problem)
        return str(ipaddress.ip_interface(text).ip) + "/" + text.rsplit("/", 1)[1]

    def commit(self, value: Any, merge: bool = False) -> None:
        if value is not None and "/" in self.widget.text():  # typed with its prefix: show them apart
            self.show_value(value)
        super().commit(value, merge)

    def _prefix_changed(self, _value: int) -> None:
        if self.widget.text().strip() and self.check():
            self.dirty = False
            self.commit(self.value(), merge=True)  # stepping through prefixes is one undo step


#: The portgroup VLAN drop-down: (label, what choosing it writes for a vSS, for the other switch kinds).
VLAN_MODES = (("No VLAN", 0, 0), ("VLAN (access)", None, None), ("All VLANs (trunk)", 4095, "trunk"),
              ("Trunk ranges", None, "trunk "))


class VlanEditor(TextEditor):
    """A portgroup's VLAN: what kind it is (a drop-down) and the tag or ranges (typed, in the admin's notation:
    ``300``, ``4095`` on a vSS, ``trunk 10-20,30`` on a vDS or OVS)."""

    def __init__(self, inspector: Inspector, obj: Any, field: str, hint: Any, where: str, kind: SwitchKind) -> None:
        self.kind = kind
        self.mode = QComboBox()
        self.mode.setObjectName("field-vlan-mode")
        for label, _, _ in VLAN_MODES:
            if kind is not SwitchKind.VSS or label != "Trunk ranges":
                self.mode.addItem(label)
        super().__init__(inspector, obj, field, hint, where)
        self.widget.setPlaceholderText("1-4094" + ("" if kind is SwitchKind.VSS else ", or trunk 10-20"))
        self.row = QWidget()
        layout = QHBoxLayout(self.row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.mode)
        layout.addWidget(self.widget, 1)
        self.mode.activated.connect(self._mode_chosen)

    def load(self) -> None:
        super().load()
        try:
            vlan = parse_vlan(getattr(self.obj, self.field), self.kind)
        except VlanError:
            return
        if vlan.mode is VlanMode.TRUNK:
            label = "All VLANs (trunk)" if vlan.ranges == ((1, 4094),) else "Trunk ranges"
        else:
            label = "No VLAN" if vlan.mode is VlanMode.NONE else "VLAN (access)"
        with QSignalBlocker(self.mode):
            self.mode.setCurrentText(label)

    def _mode_chosen(self, row: int) -> None:
        label = self.mode.itemText(row)
        vss, other = next((v, o) for lbl, v, o in VLAN_MODES if lbl == label)
        value = vss if self.kind is SwitchKind.VSS else other
        if value is None or (isinstance(value, str) and value.endswith(" ")):  # the tag or ranges are typed next
            self.widget.setText(value or "")
            self.widget.setFocus()
            self.widget.end(False)
            return
        if value != getattr(self.obj, self.field):
            self.inspector.commit(self.obj, self.field, value, self.where)


class ListEditor:
    """A table for a list of small objects (pNICs, ports, rules, routes, uplinks): edit cells, add, remove.

    Drop-downs for fixed choices and references (shown by name), checkboxes for yes/no; ids stay hidden.
    """

    def __init__(self, inspector: Inspector, owner: Any, field: str, element: type, where: str) -> None:
        self.inspector, self.owner, self.field, self.element, self.where = inspector, owner, field, element, where
        self.hints = typing.get_type_hints(element)
        self.columns = [f.name for f in dataclasses.fields(element) if f.name != "id"]
        self.widget = self.table = QTableWidget(0, len(self.columns))
        self.table.setObjectName(f"list-{field}")
        self.table.setHorizontalHeaderLabels([c.replace("_", " ") for c in self.columns])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setMinimumHeight(90)
        self.dirty = False
        self.message = message_label(field)
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

    def row_where(self, row: int, element: Any) -> str:
        """How a row is named in the history: by its name, else "vSwitch0 uplink 1"."""
        name = getattr(element, "name", "")
        return f"{self.where}/{name}" if name else f"{self.where} {self.field.rstrip('s')} {row + 1}"

    def load(self) -> None:
        self._loading = True
        items = self.items()
        self.table.setRowCount(len(items))
        for row, element in enumerate(items):
            for col, name in enumerate(self.columns):
                self.table.removeCellWidget(row, col)
                widget = self._cell_widget(element, name, self.row_where(row, element))
                value = getattr(element, name)
                nested = dataclasses.is_dataclass(value) or (isinstance(value, list) and value
                                                             and dataclasses.is_dataclass(value[0]))
                text = "" if widget is not None else (f"{len(value)} items" if isinstance(value, list) and nested
                                                      else "…" if nested else self.inspector.shown(element, name, value))
                cell = QTableWidgetItem(text)
                if widget is not None or nested:
                    cell.setFlags(cell.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, col, cell)
                if widget is not None:
                    self.table.setCellWidget(row, col, widget)
        self._loading = False

    def _cell_widget(self, element: Any, name: str, where: str) -> QWidget | None:
        """A drop-down or a checkbox for the cell, when its value is a fixed choice or yes/no."""
        choices = self.inspector.choices(element, name, self.hints[name])
        if choices is not None:
            editor: ComboEditor | CheckEditor = ComboEditor(self.inspector, element, name, choices, where)
        elif optional(self.hints[name])[0] is bool:
            editor = CheckEditor(self.inspector, element, name, where)
        else:
            return None
        editor.widget.setProperty("editor", editor)  # the widget keeps its editor alive
        return editor.widget

    def cell_changed(self, cell: QTableWidgetItem) -> None:
        if self._loading:
            return
        element = self.items()[cell.row()]
        name = self.columns[cell.column()]
        try:
            value = self.inspector.parse(cell.text(), element, name, self.hints[name], owner=self.owner)
        except FieldError as exc:
            self.message.setText(f"{name}: {exc}")
            self.message.show()
            self.inspector.workbench.status.emit(f"{name}: {exc}")
            self.load()
            return
        self.message.hide()
        if value != getattr(element, name):
            self.inspector.commit(element, name, value, self.row_where(cell.row(), element))

    def add(self) -> None:
        self.inspector.editor.add_element(self.owner, self.field)

    def remove(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        items = self.items()
        try:
            self.inspector.editor.remove_elements(self.owner, self.field, [items[r] for r in rows if r < len(items)])
        except EditError as exc:
            self.inspector.workbench.status.emit(str(exc))
