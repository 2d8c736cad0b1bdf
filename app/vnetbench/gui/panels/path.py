"""The path panel: pick two endpoints and read how traffic between them travels.

One pair is cheap for the incremental engine, so the prediction runs on the GUI thread right after every
edit: a VLAN changed in the inspector updates the verdict, the hop list and the path drawn on the canvas at
once. The panel shows the verdict as a coloured badge with a symbol and words, the hops of both directions
like a traceroute (the bottleneck hop in bold), the pNICs crossed, what routed, the rules that matched, the
reasons and the estimate.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QComboBox, QCompleter, QDockWidget, QFormLayout, QHBoxLayout, QLabel,
                               QPushButton, QSpinBox, QSplitter, QToolButton, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from ...model import Change, Index
from ...predict import Prediction, Trace
from ...predict.printer import details
from ..colors import VERDICT_TEXT_COLORS, verdict_color, verdict_text
from ..workbench import Workbench, affects_traffic

ID_ROLE = Qt.ItemDataRole.UserRole
PROTOCOLS = ["any", "tcp", "udp", "icmp"]
ENDPOINT_KINDS = {"vm": "VM", "physical_host": "physical host"}


def endpoints(index: Index) -> list[tuple[str, str]]:
    """(id, label) of every VM and physical host, VMs first, in design order."""
    topo = index.topology
    items = [(vm.id, vm.name if vm.role == "vm" else f"{vm.name} ({vm.role})") for vm in topo.vms]
    items += [(ph.id, f"{ph.name} (physical host)") for ph in topo.physical_hosts]
    return items


def endpoint_of(index: Index, object_id: str) -> str | None:
    """The VM or physical host an object belongs to (a vNIC -> its VM), or None."""
    kind = index.kind(object_id)
    if kind in ENDPOINT_KINDS:
        return object_id
    if kind in ("vnic", "host_nic"):
        return index.parent(object_id).id
    return None


class EndpointBox(QComboBox):
    """An editable combo over the endpoints, completing on any part of a name."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMinimumContentsLength(12)
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
            self.clear()
            for object_id, label in items:
                self.addItem(label, object_id)
            self.set_id(current)

    def current_id(self) -> str | None:
        index = self.currentIndex()
        if index < 0 or self.itemText(index) != self.currentText():
            return None
        return self.itemData(index)

    def set_id(self, object_id: str | None) -> None:
        index = self.findData(object_id) if object_id is not None else -1
        self.setCurrentIndex(index)
        if index < 0:
            self.setEditText("")


class PathDock(QDockWidget):
    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__("Path", parent)
        self.setObjectName("PathDock")
        self.workbench = workbench
        self.prediction: Prediction | None = None

        self.src = EndpointBox()
        self.dst = EndpointBox()
        self.swap = QToolButton()
        self.swap.setText("⇅")
        self.swap.setToolTip("Swap source and destination")
        self.use_selection = QPushButton("Use selection")
        self.use_selection.setToolTip("Take the two VMs selected on the canvas")
        self.proto = QComboBox()
        self.proto.addItems(PROTOCOLS)
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("any")
        self.port.setToolTip("Destination port (tcp/udp); 'any' checks rules for every port")

        self.badge = QLabel()
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setMinimumHeight(28)
        self.hops = QTreeWidget()
        self.hops.setHeaderLabels(["#", "Hop", "Kind", "Detail"])
        self.hops.setUniformRowHeights(True)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)

        pick = QFormLayout()
        pair = QHBoxLayout()
        pair.addWidget(self.src, 1)
        pair.addWidget(self.swap)
        pick.addRow("From", pair)
        pick.addRow("To", self.dst)
        flow = QHBoxLayout()
        flow.addWidget(self.proto)
        flow.addWidget(QLabel("port"))
        flow.addWidget(self.port)
        flow.addStretch(1)
        flow.addWidget(self.use_selection)
        pick.addRow("Protocol", flow)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.hops)
        split.addWidget(self.details)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(pick)
        layout.addWidget(self.badge)
        layout.addWidget(split, 1)
        self.setWidget(body)

        self.src.currentIndexChanged.connect(self.recompute)
        self.dst.currentIndexChanged.connect(self.recompute)
        self.proto.currentIndexChanged.connect(self.recompute)
        self.port.valueChanged.connect(self.recompute)
        self.swap.clicked.connect(self._swap)
        self.use_selection.clicked.connect(self._use_selection)
        self.hops.itemClicked.connect(self._hop_clicked)
        workbench.designChanged.connect(self._design_changed)
        workbench.selectionChanged.connect(self._selection_changed)
        workbench.pairRequested.connect(self.show_pair)

        self._refill()
        self._selection_changed(workbench.selection)
        self.recompute()

    # --- choosing the pair -------------------------------------------------------------------------

    def show_pair(self, src_id: str, dst_id: str) -> None:
        """Show the path between two endpoints (the matrix and the what-if list call this through the workbench)."""
        with QSignalBlocker(self.src), QSignalBlocker(self.dst):
            self.src.set_id(src_id)
            self.dst.set_id(dst_id)
        self.show()
        self.raise_()
        self.recompute()

    def _swap(self) -> None:
        self.show_pair(self.dst.current_id() or "", self.src.current_id() or "")

    def _selected_pair(self, ids: list[str]) -> list[str]:
        index = self.workbench.document.index
        found: list[str] = []
        for object_id in ids:
            endpoint = endpoint_of(index, object_id)
            if endpoint and endpoint not in found:
                found.append(endpoint)
        return found

    def _selection_changed(self, ids: list[str]) -> None:
        self.use_selection.setEnabled(len(self._selected_pair(ids)) == 2)

    def _use_selection(self) -> None:
        pair = self._selected_pair(self.workbench.selection)
        if len(pair) == 2:
            self.show_pair(pair[0], pair[1])

    def _refill(self) -> None:
        items = endpoints(self.workbench.document.index)
        self.src.fill(items)
        self.dst.fill(items)

    def _design_changed(self, change: Change) -> None:
        if not affects_traffic(change):
            return
        if change.op != "set" or change.field in ("name", "role", "id"):
            self._refill()
        self.recompute()

    # --- predicting and showing --------------------------------------------------------------------

    def recompute(self) -> None:
        src, dst = self.src.current_id(), self.dst.current_id()
        if not src or not dst:
            self._show_nothing("Choose two endpoints" if self.src.count() > 1 else "Add two VMs to see a path")
            return
        proto = self.proto.currentText()
        port = self.port.value() or None
        try:
            prediction = self.workbench.engine.predict(src, dst, None if proto == "any" else proto, port)
        except (LookupError, ValueError) as exc:
            self._show_nothing(f"Cannot predict: {exc}")
            return
        self.prediction = prediction
        self._show(prediction)
        self.workbench.highlight_path(prediction)

    def _show_nothing(self, message: str) -> None:
        self.prediction = None
        self.badge.setText(message)
        self.badge.setStyleSheet("")
        self.hops.clear()
        self.details.clear()
        if self.workbench.path is not None:
            self.workbench.highlight_path(None)

    def _show(self, prediction: Prediction) -> None:
        verdict = str(prediction.verdict)
        self.badge.setText(verdict_text(verdict))
        self.badge.setToolTip(" ".join(prediction.reasons))
        self.badge.setStyleSheet(
            f"QLabel {{ background: {verdict_color(verdict)}; color: {VERDICT_TEXT_COLORS.get(verdict, '#000')};"
            " font-weight: bold; border-radius: 4px; padding: 4px; }")
        self.hops.clear()
        for arrow, trace in (("→", prediction.forward), ("←", prediction.reverse)):
            self.hops.addTopLevelItem(self._trace_item(arrow, trace))
        self.hops.expandAll()
        for column in range(3):
            self.hops.resizeColumnToContents(column)
        self.details.setText(self._details_html(prediction))

    def _trace_item(self, arrow: str, trace: Trace) -> QTreeWidgetItem:
        names = self.workbench.document.index
        label = f"{arrow} {_name(names, trace.src)} to {_name(names, trace.dst)}"
        top = QTreeWidgetItem(["", label, "", verdict_text(trace.verdict)])
        bold = QFont()
        bold.setBold(True)
        top.setFont(1, bold)
        for number, hop in enumerate(trace.hops, 1):
            item = QTreeWidgetItem([str(number), hop.name, hop.kind, hop.detail])
            item.setData(0, ID_ROLE, hop.object_id)
            if _is_bottleneck(hop.name, trace.estimate.bottleneck):
                for column in range(4):
                    item.setFont(column, bold)
                item.setToolTip(1, "the bottleneck of this direction")
            top.addChild(item)
        return top

    def _details_html(self, prediction: Prediction) -> str:
        """The flow's facts and reasons in the shared printer's words (as ``vnetbench predict`` prints them)."""
        parts = [f"<b>{html.escape(title.capitalize())}:</b> {html.escape(text)}" for title, text in details(prediction)]
        reasons = list(dict.fromkeys([*prediction.reasons, *prediction.forward.reasons]))
        if reasons:
            parts.append("<b>Why:</b><ul style='margin:0'>"
                         + "".join(f"<li>{html.escape(r)}</li>" for r in reasons) + "</ul>")
        return "<br>".join(parts)

    def _hop_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        object_id = item.data(0, ID_ROLE)
        if object_id:
            self.workbench.select([object_id])


def _is_bottleneck(hop_name: str, bottleneck: str) -> bool:
    """The estimate names its bottleneck by the hop's name, possibly followed by a detail: "web01/eth0 (vmxnet3)"."""
    return bool(bottleneck) and (bottleneck == hop_name or bottleneck.startswith(hop_name + " "))


def _name(index: Index, object_id: str) -> str:
    obj = index.get(object_id)
    return getattr(obj, "name", object_id) if obj is not None else object_id


