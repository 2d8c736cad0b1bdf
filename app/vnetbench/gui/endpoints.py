"""The endpoints of a path or a measurement (VMs and physical hosts), and the one widget that picks a pair.

The path dock, the measure dock and its A/B variant all pick a pair the same way: two searchable boxes, a
swap button and "Use selection" (the two endpoints selected on the canvas; a vNIC stands for its VM). The
chosen pair is kept as data (``EndpointPicker.pair``), so callers read ids, never combo-box text.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QComboBox, QCompleter, QGridLayout, QLabel, QToolButton, QWidget
from shiboken6 import isValid

from ..model import Change, Index
from ..model.hostos import endpoint_hosts
from .signals import connect_weakly
from .turns import in_turn
from .workbench import Workbench, affects_traffic

#: Index kinds that are endpoints themselves, and the kinds that stand for their owner.
ENDPOINT_KINDS = frozenset({"vm", "physical_host"})
OWNED_BY_ENDPOINT = frozenset({"vnic", "host_nic"})


@dataclass(frozen=True)
class Pair:
    """A source and a destination endpoint id (either may be missing while the person is choosing)."""

    src: str | None = None
    dst: str | None = None

    @property
    def complete(self) -> bool:
        return bool(self.src and self.dst and self.src != self.dst)


def endpoints(index: Index) -> list[tuple[str, str]]:
    """(id, label) of every VM, physical host and hosted hypervisor's host OS, VMs first, in design order."""
    topo = index.topology
    items = [(vm.id, vm.name if vm.role == "vm" else f"{vm.name} ({vm.role})") for vm in topo.vms]
    items += [(ph.id, f"{ph.name} (physical host)") for ph in topo.physical_hosts]
    items += [(h.id, f"{h.name} (host OS)") for h in endpoint_hosts(topo)]
    return items


def endpoint_of(index: Index, object_id: str) -> str | None:
    """The VM or physical host an object belongs to (a vNIC -> its VM), or None."""
    kind = index.kind(object_id)
    if kind in ENDPOINT_KINDS:
        return object_id
    if kind in OWNED_BY_ENDPOINT:
        return index.parent(object_id).id
    return None


def selected_endpoints(index: Index, ids: list[str]) -> list[str]:
    """The distinct endpoints the selected objects stand for, in selection order."""
    found: list[str] = []
    for object_id in ids:
        endpoint = endpoint_of(index, object_id)
        if endpoint and endpoint not in found:
            found.append(endpoint)
    return found


class EndpointList(QAbstractListModel):
    """The endpoints as a list model that reads the (id, label) list as the view asks: filling a box with 10,000
    VMs is one reset, not 10,000 rows made on the GUI thread."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[tuple[str, str]] = []
        self.rows: dict[str, int] = {}

    def set_items(self, items: list[tuple[str, str]]) -> None:
        self.beginResetModel()
        self.items = items
        self.rows = {object_id: row for row, (object_id, _) in enumerate(items)}
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.items)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self.items):
            return None
        object_id, label = self.items[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return label
        return object_id if role == Qt.ItemDataRole.UserRole else None


class EndpointBox(QComboBox):
    """An editable combo over the endpoints, completing on any part of a name."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = EndpointList(self)
        self.setModel(self.list)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMinimumContentsLength(10)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        completer = QCompleter(self.model(), self)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setCompleter(completer)
        self.lineEdit().setPlaceholderText("VM or physical host")

    def fill(self, items: list[tuple[str, str]]) -> None:
        current = self.current_id()
        with QSignalBlocker(self):
            self.list.set_items(items)
            self.set_id(current)

    def current_id(self) -> str | None:
        index = self.currentIndex()
        if index < 0 or self.itemText(index) != self.currentText():
            return None
        return self.itemData(index)

    def set_id(self, object_id: str | None) -> None:
        index = self.list.rows.get(object_id, -1) if object_id is not None else -1
        self.setCurrentIndex(index)
        if index < 0:
            self.setEditText("")


class EndpointPicker(QWidget):
    """From / To boxes, a swap button and "Use selection"; ``pairChanged`` carries the new ``Pair``."""

    pairChanged = Signal(object)

    def __init__(self, workbench: Workbench, parent: QWidget | None = None, first_pair: bool = False) -> None:
        super().__init__(parent)
        self.workbench = workbench
        #: Preselect the first two endpoints (a measurement is one click away), else start empty.
        self.first_pair = first_pair
        self.src, self.dst = EndpointBox(), EndpointBox()
        self.swap = QToolButton()
        self.swap.setText("⇅")
        self.swap.setToolTip("Swap source and destination")
        self.use_selection = QToolButton()
        self.use_selection.setText("Use selection")
        self.use_selection.setToolTip("Take the two VMs (or physical hosts) selected on the canvas")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(2)
        grid.addWidget(QLabel("From"), 0, 0)
        grid.addWidget(self.src, 0, 1)
        grid.addWidget(self.swap, 0, 2, 2, 1)
        grid.addWidget(QLabel("To"), 1, 0)
        grid.addWidget(self.dst, 1, 1)
        grid.addWidget(self.use_selection, 2, 1, 1, 2, Qt.AlignmentFlag.AlignRight)
        grid.setColumnStretch(1, 1)
        self.src.currentIndexChanged.connect(self._changed)
        self.dst.currentIndexChanged.connect(self._changed)
        self.swap.clicked.connect(lambda: self.set_pair(self.pair.dst, self.pair.src))
        self.use_selection.clicked.connect(self._use_selection)
        # A new design is listed on a later turn of the event loop, a turn for each picker (``in_turn``): the path
        # and measure docks' three pickers listing 10,000 VMs in six boxes (with the docks' other handlers of the
        # new design) made the open's longest block.
        self._refill_pending = False
        connect_weakly(workbench.designChanged, self, "_design_changed")
        connect_weakly(workbench.selectionChanged, self, "_selection_changed")
        self.refill()
        self._selection_changed(workbench.selection)

    @property
    def pair(self) -> Pair:
        return Pair(self.src.current_id(), self.dst.current_id())

    def set_pair(self, src: str | None, dst: str | None) -> None:
        """Choose both ends at once: one ``pairChanged``, not two."""
        if self._refill_pending:   # a new design not listed yet: its endpoints first
            self.refill()
        with QSignalBlocker(self.src), QSignalBlocker(self.dst):
            self.src.set_id(src)
            self.dst.set_id(dst)
        self._changed()

    def _refill_when_pending(self) -> None:
        if self._refill_pending and isValid(self):   # (not listed meanwhile, and not deleted)
            self.refill()

    def refill(self) -> None:
        self._refill_pending = False
        items = endpoints(self.workbench.document.index)
        before = self.pair
        self.src.fill(items)
        self.dst.fill(items)
        if self.first_pair and not self.pair.complete and len(items) > 1:
            self.set_pair(items[0][0], items[1][0])
        elif self.pair != before:
            self._changed()

    def _changed(self, *_: object) -> None:
        self.pairChanged.emit(self.pair)

    def _design_changed(self, change: Change) -> None:
        if change.op == "reset":
            if not self._refill_pending:
                self._refill_pending = True
                in_turn(self._refill_when_pending)
        elif affects_traffic(change) and (change.op != "set" or change.field in ("name", "role", "id")):
            self.refill()

    def _selection_changed(self, ids: list[str]) -> None:
        self.use_selection.setEnabled(len(selected_endpoints(self.workbench.document.index, ids)) == 2)

    def _use_selection(self) -> None:
        chosen = selected_endpoints(self.workbench.document.index, self.workbench.selection)
        if len(chosen) == 2:
            self.set_pair(*chosen)
