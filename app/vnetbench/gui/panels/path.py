"""The path panel: pick two endpoints and read how traffic between them travels.

One pair is cheap for the incremental engine, so the prediction runs on the GUI thread right after every
edit: a VLAN changed in the inspector updates the verdict, the hop list and the path drawn on the canvas at
once. The panel reads top to bottom: the verdict as a coloured badge with a symbol and words, every reason in
full (the decisive one first), the pNICs crossed, what routed, the rules that matched and the estimate, then
the hops of both directions like a traceroute (the bottleneck hop in bold). The pair is picked with the
shared ``EndpointPicker``.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QComboBox, QDockWidget, QFrame, QHBoxLayout, QLabel, QScrollArea, QSpinBox,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from ...model import Change, Index
from ...model.families import families_in, other
from ...measure.verify import Cell
from ...predict import Prediction, Trace
from ...predict.result import HopKind
from ...predict.printer import details
from ..colors import VERDICT_TEXT_COLORS, verdict_color, verdict_text
from ..editing import heading
from ..endpoints import EndpointPicker
from ..plain import plain, tip as plain_tip
from ..workbench import Workbench, affects_traffic
from .observed import counted, observed_html
from .verify import VerifyRunner

ID_ROLE = Qt.ItemDataRole.UserRole
PROTOCOLS = ["any", "tcp", "udp", "icmp"]


class PathDock(QDockWidget):
    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__("Path", parent)
        self.setObjectName("PathDock")
        self.workbench = workbench
        self.prediction: Prediction | None = None

        self.picker = EndpointPicker(workbench)
        self.src, self.dst, self.use_selection = self.picker.src, self.picker.dst, self.picker.use_selection
        self.proto = QComboBox()
        self.proto.addItems(PROTOCOLS)
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("any")
        self.port.setToolTip("Destination port (tcp/udp); 'any' checks rules for every port")

        self.badge = plain(QLabel())
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setMinimumHeight(28)
        #: a dual-stack pair's answer in the other family, and whether the two differ
        self.families = QLabel()
        self.families.setWordWrap(True)
        self.families.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.families.hide()
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        #: what the last verification observed for the pair (the pNICs that counted its burst), when it ran
        self.observed = QLabel()
        self.observed.setWordWrap(True)
        self.observed.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.observed.hide()
        self.hops = QTreeWidget()
        self.hops.setHeaderLabels(["#", "Hop", "Kind", "Detail", "Observed"])
        self.hops.setUniformRowHeights(True)
        self.hops.setMinimumHeight(140)

        flow = QHBoxLayout()
        flow.addWidget(QLabel("Protocol"))
        flow.addWidget(self.proto)
        flow.addWidget(QLabel("port"))
        flow.addWidget(self.port)
        flow.addStretch(1)
        # One column, read top to bottom: the verdict, every reason in full, then the hops. The body scrolls
        # as a whole when the dock is short, so no reason is ever cut off behind a splitter.
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.picker)
        layout.addLayout(flow)
        layout.addWidget(self.badge)
        layout.addWidget(self.families)
        layout.addWidget(self.details)
        layout.addWidget(self.observed)
        layout.addWidget(self.hops, 1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        self.setWidget(scroll)

        self.picker.pairChanged.connect(self.recompute)
        self.proto.currentIndexChanged.connect(self.recompute)
        self.port.valueChanged.connect(self.recompute)
        self.hops.itemClicked.connect(self._hop_clicked)
        workbench.designChanged.connect(self._design_changed)
        workbench.pairRequested.connect(self.show_pair)
        self.verifier = VerifyRunner.of(workbench)
        self.verifier.verified.connect(self.recompute)
        self.recompute()

    # --- choosing the pair -------------------------------------------------------------------------

    def show_pair(self, src_id: str, dst_id: str) -> None:
        """Show the path between two endpoints (the matrix, the what-if list and the canvas ask for it)."""
        self.show()
        self.raise_()
        self.picker.set_pair(src_id, dst_id)

    def _design_changed(self, change: Change) -> None:
        if affects_traffic(change):
            self.recompute()

    # --- predicting and showing --------------------------------------------------------------------

    def recompute(self) -> None:
        src, dst = self.picker.pair.src, self.picker.pair.dst
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
        self._show_other_family(prediction, None if proto == "any" else proto, port)
        self.workbench.highlight_path(prediction)

    def _show_other_family(self, prediction: Prediction, proto: str | None, port: int | None) -> None:
        """On a dual-stack design, the pair's answer in the other family too; a difference is what an admin
        most wants to know, so it is said first and marked."""
        families = families_in(self.workbench.topology)
        if len(families) < 2:
            self.families.hide()
            return
        shown = self.workbench.engine.family or families[0]
        second = self.workbench.family_engine(other(shown)).predict(prediction.flow.src, prediction.flow.dst,
                                                                    proto, port)
        first, then = verdict_text(str(prediction.verdict)), verdict_text(str(second.verdict))
        if second.verdict == prediction.verdict:
            self.families.setText(f"IPv{other(shown)} answers the same: {then}.")
            self.families.setStyleSheet("")
        else:
            why = html.escape(" ".join([r for r in second.reasons if r not in prediction.reasons][:2]))
            self.families.setText(f"<b>≠ IPv4 and IPv6 differ</b>: IPv{shown} {html.escape(first)}, "
                                  f"IPv{other(shown)} {html.escape(then)}. In IPv{other(shown)}: {why}")
            self.families.setStyleSheet("QLabel { border: 2px solid #d97706; border-radius: 4px; padding: 4px; }")
        self.families.show()

    def _show_nothing(self, message: str) -> None:
        self.prediction = None
        self.badge.setText(message)
        self.badge.setStyleSheet("")
        self.hops.clear()
        self.details.clear()
        self.observed.hide()
        self.families.hide()
        if self.workbench.path is not None:
            self.workbench.highlight_path(None)

    def _show(self, prediction: Prediction) -> None:
        verdict = str(prediction.verdict)
        self.badge.setText(verdict_text(verdict))
        self.badge.setToolTip(plain_tip(" ".join(prediction.reasons)))
        self.badge.setStyleSheet(
            f"QLabel {{ background: {verdict_color(verdict)}; color: {VERDICT_TEXT_COLORS.get(verdict, '#000')};"
            " font-weight: bold; border-radius: 4px; padding: 4px; }")
        self.hops.clear()
        latest = self.verifier.latest
        cell = latest.cell(prediction.flow.src, prediction.flow.dst) if latest is not None else None
        for arrow, trace in (("→", prediction.forward), ("←", prediction.reverse)):
            self.hops.addTopLevelItem(self._trace_item(arrow, trace, cell))
        self.hops.expandAll()
        for column in range(3):
            self.hops.resizeColumnToContents(column)
        self.details.setText(self._details_html(prediction))
        text = observed_html(self.verifier.latest, prediction.flow.src, prediction.flow.dst)
        self.observed.setText(text)
        self.observed.setVisible(bool(text))

    def _trace_item(self, arrow: str, trace: Trace, cell: Cell | None = None) -> QTreeWidgetItem:
        """One direction's hops; a pNIC hop says whether the verification's burst of the pair (``cell``: both
        ways, the echoes and their replies) was counted there."""
        names = self.workbench.document.index
        label = f"{arrow} {_name(names, trace.src)} to {_name(names, trace.dst)}"
        top = QTreeWidgetItem(["", label, "", verdict_text(trace.verdict)])
        bold = QFont()
        bold.setBold(True)
        top.setFont(1, bold)
        for number, hop in enumerate(trace.hops, 1):
            mark = counted(cell, names, hop.object_id) if hop.kind is HopKind.PNIC else ""
            item = QTreeWidgetItem([str(number), hop.name, hop.kind, hop.detail, mark])
            item.setData(0, ID_ROLE, hop.object_id)
            if hop.object_id is not None and hop.object_id == trace.estimate.bottleneck_id:
                for column in range(5):
                    item.setFont(column, bold)
                item.setToolTip(1, "the bottleneck of this direction")
            top.addChild(item)
        return top

    def _details_html(self, prediction: Prediction) -> str:
        """Every reason first (the decisive sentence is what the person looks for), then the flow's facts in
        the shared printer's words, as ``vnetbench predict`` prints them."""
        parts: list[str] = []
        reasons = list(dict.fromkeys([*prediction.reasons, *prediction.forward.reasons]))
        if reasons:
            parts.append("<b>Why:</b><ul style='margin:0'>"
                         + "".join(f"<li>{html.escape(r)}</li>" for r in reasons) + "</ul>")
        parts += [f"<b>{html.escape(heading(title))}:</b> {html.escape(text)}" for title, text in details(prediction)]
        return "<br>".join(parts)

    def _hop_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        object_id = item.data(0, ID_ROLE)
        if object_id:
            self.workbench.select([object_id])


def _name(index: Index, object_id: str) -> str:
    obj = index.get(object_id)
    return getattr(obj, "name", object_id) if obj is not None else object_id
