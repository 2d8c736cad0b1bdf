"""One measurement: the pair and test settings of the measure dock, the work a run does on its worker thread,
and how its result reads (the figures beside the prediction, contradictions flagged in red)."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel, QProgressBar,
                               QPushButton, QSpinBox, QVBoxLayout, QWidget)

from ...backends import Backend, discover
from ...measure import Run, RunStatus, RunStore, Sample, TestKind, TestSpec, compare, make_run, measure
from ...backends import sockperf_inet6
from ...measure.result import summary_lines
from ...model.families import Family
from ...predict import Prediction
from ..endpoints import EndpointPicker
from ..family_box import FamilyBox
from ..workbench import Snapshot, Workbench

_KIND_TEXT = {"throughput": "Throughput (iperf3)", "sweep": "Message-size sweep (iperf3)",
              "rr": "Round trip 1024/1024 (sockperf)", "pps": "UDP 64 B packet rate (iperf3)"}


class RunControls(QWidget):
    """Pair, test, its parameters, the backend, and Measure / Cancel with a progress bar."""

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.picker = EndpointPicker(workbench, first_pair=True)
        self.picker.use_selection.setToolTip("Measure between the two VMs selected on the canvas")
        self.kind_box = QComboBox()
        for kind in TestKind:
            self.kind_box.addItem(_KIND_TEXT[kind.value], kind.value)
        self.duration = QDoubleSpinBox(minimum=0.5, maximum=3600, value=5.0, decimals=1, suffix=" s")
        self.streams = QSpinBox(minimum=1, maximum=128, value=1, prefix="streams ")
        self.protocol = QComboBox()
        self.protocol.addItems(["tcp", "udp"])
        self.udp_rate = QDoubleSpinBox(minimum=0.1, maximum=100000, value=100.0, suffix=" Mbit/s")
        self.size = QSpinBox(minimum=14, maximum=65000, value=1024, suffix=" B")
        self.reverse = QCheckBox("Reverse (B sends)")
        self.family = FamilyBox("The address family the test runs over (the design uses both); the prediction "
                                "beside the curve is that family's")
        self.family_note = QLabel()
        self.family_note.setWordWrap(True)
        self.family_note.hide()
        self.backend_box = QComboBox()
        for info in discover():  # by the manifest's title: no plugin is imported until it measures
            if info.exception is None:
                self.backend_box.addItem(info.title, info.name)
        self.measure_button = QPushButton("Measure")
        self.cancel_button = QPushButton("Cancel")
        self.progress = QProgressBar(maximum=1000)
        self.progress.setTextVisible(True)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(self.picker)
        form.addRow("Test", self.kind_box)
        form.addRow("Duration", row(self.duration, self.streams))
        form.addRow("Protocol", row(self.protocol, self.udp_rate))
        form.addRow("Message", row(self.size, self.reverse))
        form.addRow("Family", self.family)
        form.setRowVisible(self.family, False)
        form.addRow(self.family_note)
        self._form = form
        form.addRow("Backend", self.backend_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(form)
        layout.addStretch(1)
        # Measure, Cancel and the progress bar: placed by the dock under the form's scroll area, so a short
        # dock (a small or scaled screen) scrolls the form and never hides the button
        self.actions = QWidget()
        actions = QVBoxLayout(self.actions)
        actions.setContentsMargins(4, 0, 4, 4)
        actions.addWidget(row(self.measure_button, self.cancel_button))
        actions.addWidget(self.progress)
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.protocol.currentIndexChanged.connect(self._kind_changed)
        self.family.currentIndexChanged.connect(self._kind_changed)
        self.follow(workbench.families())

    def _kind_changed(self, *_args: object) -> None:
        kind = TestKind(self.kind_box.currentData())
        self.streams.setEnabled(kind in (TestKind.THROUGHPUT, TestKind.SWEEP))
        self.protocol.setEnabled(kind is TestKind.THROUGHPUT)
        self.udp_rate.setEnabled(kind is TestKind.THROUGHPUT and self.protocol.currentText() == "udp")
        self.size.setEnabled(kind is TestKind.RR)
        self.duration.setToolTip("per message size" if kind is TestKind.SWEEP else "")
        self._exclude_rr_over_ipv6(kind)

    def _exclude_rr_over_ipv6(self, kind: TestKind) -> None:
        """Round trips over IPv6 preload a shim built with gcc (``sockperf_inet6``). Where neither gcc nor a
        shim built before is there, a round trip and IPv6 exclude each other: while one is chosen the other
        cannot be, with the reason in a note under the form (only a dual-stack design offers the choice)."""
        kinds, families = self.kind_box.model(), self.family.model()
        assert isinstance(kinds, QStandardItemModel) and isinstance(families, QStandardItemModel)
        rr = kinds.item(self.kind_box.findData(TestKind.RR.value))
        ipv6 = families.item(self.family.findData(6))
        reason = sockperf_inet6.unavailable()
        over_ipv6 = reason is not None and self.family.family == 6
        round_trip = reason is not None and kind is TestKind.RR
        rr.setEnabled(not over_ipv6)
        note = f"{reason[0].upper()}{reason[1:]}." if reason else ""
        rr.setToolTip(note if over_ipv6 else "")
        ipv6.setEnabled(not round_trip)
        ipv6.setToolTip(note if round_trip else "")
        self.family_note.setText(note)
        self.family_note.setVisible(self.family.dual and (over_ipv6 or round_trip))

    def follow(self, families: list[Family]) -> None:
        """Offer the family switch when the design uses both ``families`` (``FamilyBox.follow``)."""
        self.family.follow(families)
        self._form.setRowVisible(self.family, self.family.dual)
        self._kind_changed()

    def spec(self) -> TestSpec:
        return TestSpec(TestKind(self.kind_box.currentData()), duration=self.duration.value(),
                        streams=self.streams.value(), protocol=self.protocol.currentText(),
                        udp_rate_mbps=self.udp_rate.value(), message_size=self.size.value(),
                        reverse=self.reverse.isChecked(), family=self.family.family)


def row(*widgets: QWidget) -> QWidget:
    """Widgets side by side, as one form field."""
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget, 1)
    return box


def run_work(backend: Backend, snapshot: Snapshot, src: str, dst: str, spec: TestSpec, prediction: Prediction | None,
             store: RunStore, on_sample: Callable[[Sample], None]) -> Callable[[Any, Any], Run]:
    """What a run does on its worker thread: find the endpoints, probe, store the run unless cancelled."""
    backend_name = getattr(backend, "name", "")

    def work(progress: Any, cancel: Any) -> Run:
        design = snapshot()
        m = measure(spec, backend.endpoint(design, src), backend.endpoint(design, dst), cancel=cancel,
                    on_sample=on_sample, progress=progress)
        run = make_run(m, design, src, dst, prediction, backend=backend_name)
        if m.status != RunStatus.CANCELLED:
            store.add(run)
        return run

    return work


def describe_run(run: Run) -> str:
    """Rich text: the figures, the prediction beside them, and each flag (contradictions in red)."""
    parts = [f"<b>{html.escape(run.title)}</b>"]
    if run.status == RunStatus.OK:
        parts += [html.escape(line) for line in summary_lines(run.spec, run.summary)]
    else:
        parts.append(f"<span style='color:#c0392b'><b>{run.status}:</b> {html.escape(run.error)}</span>")
    comparison = compare(run)
    parts.append(html.escape(comparison.lines()[0]))
    for flag in comparison.flags:
        color = "#c0392b" if flag.severity == "contradiction" else "#b9770e"
        parts.append(f"<span style='color:{color}'><b>{flag.severity.upper()}</b>: {html.escape(flag.message)}</span>")
    return "<br>".join(parts)


def describe_headline(run: Run) -> str:
    """One line per run of an overlay: its figure beside the prediction, and whether they contradict."""
    comparison = compare(run)
    flag = " <span style='color:#c0392b'><b>CONTRADICTION</b></span>" if comparison.contradicts else ""
    return (f"<b>#{run.id}</b> {html.escape(run.src_name)} → {html.escape(run.dst_name)}: "
            f"{html.escape(comparison.figure())}{flag}")
