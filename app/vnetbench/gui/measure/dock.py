"""The measure dock: pick a pair and a test, press Measure, watch the curve grow beside the prediction.

The run happens on a worker thread (``gui.worker.Task``): endpoints are looked up in the chosen backend, the
probe runs, samples cross to the GUI thread through a queued signal and are plotted as they arrive (iperf3
every 0.5 s, sockperf every 0.25 s). The finished run is stored; the history lists stored runs, and
selecting several overlays them. Final figures sit beside the prediction's estimate, with contradictions
flagged in red. A failed probe shows its reason (not installed, no route, refused, timeout).

A/B mode runs the same test on variant A (the current pair) and variant B (another pair, or the same pair in
another deployed design) back to back through ``measure.run_sides`` (the code behind ``measure --versus``),
then shows both side by side: a two-column table with the ratio B/A, and both curves overlaid.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDockWidget, QDoubleSpinBox,
                               QFileDialog, QFormLayout, QHBoxLayout, QInputDialog, QLabel, QListWidget,
                               QListWidgetItem, QProgressBar, QPushButton, QSpinBox, QSplitter, QVBoxLayout,
                               QWidget)

from ...backends import Backend, BackendError, backend_class, discover
from ...measure import (Run, RunStatus, RunStore, Sample, Scenario, StoreError, TestKind, TestSpec, Variant, compare,
                        default_labels, make_run, measure, prepare_side, ratio, run_sides, save_calibration, via)
from ...measure.compare import CalibrationWriteError
from ...measure.result import summary_lines
from ...model import Topology, load
from ...predict import Prediction, predict
from ..workbench import Workbench
from ..worker import Task
from .ab import ABControls, ABTable

RUN_ROLE = Qt.ItemDataRole.UserRole
#: Curve colours for overlaid runs (the live run is the first).
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
_KIND_TEXT = {"throughput": "Throughput (iperf3)", "sweep": "Message-size sweep (iperf3)",
              "rr": "Round trip 1024/1024 (sockperf)", "pps": "UDP 64 B packet rate (iperf3)"}


class _SampleBridge(QObject):
    """Lives on the GUI thread; the worker emits, the dock receives queued."""

    sample = Signal(object)
    #: An A/B side starts: its index, label and prediction.
    side = Signal(int, str, object)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def describe_run(run: Run) -> str:
    """Rich text: the figures, the prediction beside them, and each flag (contradictions in red)."""
    parts = [f"<b>{_escape(run.title)}</b>"]
    if run.status == RunStatus.OK:
        parts += [_escape(line) for line in summary_lines(run.spec, run.summary)]
    else:
        parts.append(f"<span style='color:#c0392b'><b>{run.status}:</b> {_escape(run.error)}</span>")
    comparison = compare(run)
    parts.append(_escape(comparison.lines()[0]))
    for flag in comparison.flags:
        color = "#c0392b" if flag.severity == "contradiction" else "#b9770e"
        parts.append(f"<span style='color:{color}'><b>{flag.severity.upper()}</b>: {_escape(flag.message)}</span>")
    return "<br>".join(parts)


def describe_headline(run: Run) -> str:
    """One line per run of an overlay: its figure beside the prediction, and whether they contradict."""
    comparison = compare(run)
    figure = comparison.figure()
    flag = " <span style='color:#c0392b'><b>CONTRADICTION</b></span>" if comparison.contradicts else ""
    return f"<b>#{run.id}</b> {_escape(run.src_name)} → {_escape(run.dst_name)}: {_escape(figure)}{flag}"


class MeasureDock(QDockWidget):
    """See the module docstring. ``backend`` may be set (tests, a connected backend); else the chosen plugin."""

    #: A run finished (stored or not), on the GUI thread.
    runFinished = Signal(object)
    #: An A/B comparison ended, on the GUI thread: the list of its runs (B missing if cancelled during A), or
    #: None when it could not start (B not deployed, an unknown name).
    abFinished = Signal(object)

    def __init__(self, workbench: Workbench, parent: QWidget | None = None, store: RunStore | None = None) -> None:
        super().__init__("Measure", parent)
        self.setObjectName("MeasureDock")
        self.workbench = workbench
        self.store = store or RunStore()
        self.backend: Backend | None = None
        self.task: Task | None = None
        self.last_run: Run | None = None
        self.live: list[Sample] = []
        self.live_times: list[float] = []   # when each live sample reached the plot (monotonic seconds)
        self._bridge = _SampleBridge(self)
        self._bridge.sample.connect(self._on_sample)
        self._bridge.side.connect(self._on_side)
        self.ab_runs: list[Run] = []
        self.ab_ratio: float | None = None
        self._ab_spec: TestSpec | None = None

        self.src_box, self.dst_box = QComboBox(), QComboBox()
        self.use_selection = QPushButton("Use selection")
        self.use_selection.setToolTip("Measure between the two VMs selected on the canvas")
        self.kind_box = QComboBox()
        for kind in TestKind:
            self.kind_box.addItem(_KIND_TEXT[kind.value], kind.value)
        self.duration = QDoubleSpinBox(minimum=0.5, maximum=3600, value=5.0, decimals=1, suffix=" s")
        self.streams = QSpinBox(minimum=1, maximum=128, value=1)
        self.protocol = QComboBox()
        self.protocol.addItems(["tcp", "udp"])
        self.udp_rate = QDoubleSpinBox(minimum=0.1, maximum=100000, value=100.0, suffix=" Mbit/s")
        self.size = QSpinBox(minimum=14, maximum=65000, value=1024, suffix=" B")
        self.reverse = QCheckBox("Reverse (B sends)")
        self.backend_box = QComboBox()
        for info in discover():
            if info.ok:
                self.backend_box.addItem(info.backend.title, info.name)
        self.measure_button = QPushButton("Measure")
        self.cancel_button = QPushButton("Cancel")
        self.progress = QProgressBar(maximum=1000)
        self.progress.setTextVisible(True)
        self.result = QLabel("Pick two VMs and a test, then Measure. The design must be deployed.")
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.RichText)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.plot = pg.PlotWidget(background="w")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.addLegend(offset=(-10, 10))
        self._live_curve: Any = None
        self._estimate: float | None = None

        self.ab = ABControls()
        self.ab_table = ABTable()
        self.ab_table.hide()

        self.history = QListWidget()
        self.history.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.export_button = QPushButton("Export…")
        self.calibrate_button = QPushButton("Save as calibration…")

        form = QFormLayout()
        pair = QHBoxLayout()
        pair.addWidget(self.src_box, 1)
        pair.addWidget(QLabel("→"))
        pair.addWidget(self.dst_box, 1)
        form.addRow("Pair", pair)
        form.addRow("", self.use_selection)
        form.addRow("Test", self.kind_box)
        form.addRow("Duration", self.duration)
        form.addRow("Streams", self.streams)
        proto = QHBoxLayout()
        proto.addWidget(self.protocol)
        proto.addWidget(self.udp_rate, 1)
        form.addRow("Protocol", proto)
        form.addRow("Message", self.size)
        form.addRow("", self.reverse)
        form.addRow("Backend", self.backend_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.measure_button)
        buttons.addWidget(self.cancel_button)
        controls = QWidget()
        left = QVBoxLayout(controls)
        left.setContentsMargins(4, 4, 4, 4)
        left.addLayout(form)
        left.addLayout(buttons)
        left.addWidget(self.ab)
        left.addWidget(self.progress)
        left.addWidget(self.result, 1)

        side = QWidget()
        right = QVBoxLayout(side)
        right.setContentsMargins(4, 4, 4, 4)
        right.addWidget(QLabel("Stored runs (select several to overlay)"))
        right.addWidget(self.history, 1)
        hb = QHBoxLayout()
        hb.addWidget(self.export_button)
        hb.addWidget(self.calibrate_button)
        right.addLayout(hb)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(controls)
        self._middle = QSplitter(Qt.Orientation.Vertical)
        self._middle.addWidget(self.plot)
        self._middle.addWidget(self.ab_table)
        self._middle.setStretchFactor(0, 1)
        splitter.addWidget(self._middle)
        splitter.addWidget(side)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 640, 400])
        self.setWidget(splitter)

        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.protocol.currentIndexChanged.connect(self._kind_changed)
        self.measure_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.ab.run_button.clicked.connect(self.start_ab)
        self.ab.toggled.connect(self._refresh_ab_labels)
        self.ab.toggled.connect(lambda on: self.ab.run_button.setEnabled(on and not self.running))
        self.ab.mode.currentIndexChanged.connect(self._refresh_ab_labels)
        self.ab.file.textChanged.connect(self._refresh_ab_labels)
        for box in (self.src_box, self.dst_box, self.ab.src_box, self.ab.dst_box):
            box.currentIndexChanged.connect(self._refresh_ab_labels)
        self.use_selection.clicked.connect(self._use_selection)
        self.history.itemSelectionChanged.connect(self._history_selected)
        self.export_button.clicked.connect(self._export_clicked)
        self.calibrate_button.clicked.connect(self._calibrate_clicked)
        workbench.designChanged.connect(self._fill_pairs)
        workbench.selectionChanged.connect(self._selection_changed)
        workbench.pairRequested.connect(self.set_pair)
        self._fill_pairs()
        self._kind_changed()
        self._set_busy(False)
        self.refresh_history()

    # --- the pair and the spec ---------------------------------------------------------------------------

    def _endpoints(self) -> list[tuple[str, str]]:
        topo = self.workbench.topology
        return [(vm.id, vm.name) for vm in topo.vms] + [(h.id, h.name) for h in topo.physical_hosts]

    def _fill_pairs(self, *_change: object) -> None:
        endpoints = self._endpoints()
        for box in (self.src_box, self.dst_box, self.ab.src_box, self.ab.dst_box):
            current = box.currentData()
            box.blockSignals(True)
            box.clear()
            for oid, name in endpoints:
                box.addItem(name, oid)
            index = box.findData(current)
            box.setCurrentIndex(index if index >= 0 else 0)
            box.blockSignals(False)
        for src_box, dst_box in ((self.src_box, self.dst_box), (self.ab.src_box, self.ab.dst_box)):
            if dst_box.count() > 1 and dst_box.currentIndex() == src_box.currentIndex():
                dst_box.setCurrentIndex(1)

    def set_pair(self, src_id: str, dst_id: str) -> None:
        """Measure between these endpoints next (the matrix, the path dock or the canvas asked for them)."""
        for box, oid in ((self.src_box, src_id), (self.dst_box, dst_id)):
            index = box.findData(oid)
            if index >= 0:
                box.setCurrentIndex(index)

    def _selected_endpoints(self) -> list[str]:
        index = self.workbench.document.index
        out = []
        for oid in self.workbench.selection:
            kind = index.kind(oid)
            owner = oid if kind in ("vm", "physical_host") else (
                index.parent(oid).id if kind in ("vnic", "host_nic") else None)
            if owner and owner not in out:
                out.append(owner)
        return out

    def _selection_changed(self, _ids: list) -> None:
        self.use_selection.setEnabled(len(self._selected_endpoints()) >= 2)

    def _use_selection(self) -> None:
        chosen = self._selected_endpoints()
        if len(chosen) >= 2:
            self.set_pair(chosen[0], chosen[1])

    def _kind_changed(self, *_args: object) -> None:
        kind = TestKind(self.kind_box.currentData())
        self.streams.setEnabled(kind in (TestKind.THROUGHPUT, TestKind.SWEEP))
        self.protocol.setEnabled(kind is TestKind.THROUGHPUT)
        self.udp_rate.setEnabled(kind is TestKind.THROUGHPUT and self.protocol.currentText() == "udp")
        self.size.setEnabled(kind is TestKind.RR)
        self.duration.setToolTip("per message size" if kind is TestKind.SWEEP else "")

    def spec(self) -> TestSpec:
        return TestSpec(TestKind(self.kind_box.currentData()), duration=self.duration.value(),
                        streams=self.streams.value(), protocol=self.protocol.currentText(),
                        udp_rate_mbps=self.udp_rate.value(), message_size=self.size.value(),
                        reverse=self.reverse.isChecked())

    def _backend(self) -> Backend:
        if self.backend is None:
            name = self.backend_box.currentData()
            if name is None:
                raise BackendError("no backend plugin is available", "install one (the local lab comes with vnetbench)")
            self.backend = backend_class(name)()
            self.backend.connect()
        return self.backend

    # --- running -----------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the chosen test (the Measure button)."""
        if self.task is not None and self.task.running:
            return
        src, dst = self.src_box.currentData(), self.dst_box.currentData()
        if not src or not dst or src == dst:
            self._show_error("Pick two different VMs to measure between.")
            return
        spec = self.spec()
        try:
            spec.check()
            backend = self._backend()
            prediction = self.workbench.engine.predict(src, dst, proto=spec.proto)
        except (ValueError, BackendError, LookupError) as exc:
            self._show_error(str(exc))
            return
        snapshot = self.workbench.snapshot()
        backend_name = getattr(backend, "name", "")
        bridge = self._bridge
        store = self.store

        def work(progress: Any, cancel: Any) -> Run:
            design = snapshot()
            src_ep, dst_ep = backend.endpoint(design, src), backend.endpoint(design, dst)
            m = measure(spec, src_ep, dst_ep, on_sample=bridge.sample.emit, cancel=cancel, progress=progress)
            run = make_run(m, design, src, dst, prediction, backend=backend_name)
            if m.status != RunStatus.CANCELLED:
                store.add(run)
            return run

        self.ab_table.hide()
        self._begin_live(spec, prediction)
        self.result.setText(f"Measuring {self.src_box.currentText()} → {self.dst_box.currentText()}: "
                            f"{_escape(spec.label())}…")
        self.task = Task(work)
        self.task.progress.connect(self._on_progress)
        self.task.succeeded.connect(self._on_done)
        self.task.failed.connect(self._on_failed)
        self._set_busy(True)
        self.task.start()

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.result.setText("Cancelling…")

    @property
    def running(self) -> bool:
        return self.task is not None and self.task.running

    def _set_busy(self, busy: bool) -> None:
        self.measure_button.setEnabled(not busy)
        self.ab.run_button.setEnabled(not busy and self.ab.isChecked())
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy)
        if busy:
            self.progress.setValue(0)
            self.progress.setFormat("starting…")

    def _begin_live(self, spec: TestSpec, prediction: Prediction | None, title: str | None = None,
                    color: str = COLORS[0]) -> None:
        self.history.blockSignals(True)
        self.history.clearSelection()
        self.history.blockSignals(False)
        self.live, self.live_times = [], []
        self.plot.clear()
        self.plot.setLogMode(x=False, y=False)
        self.plot.setLabel("bottom", "time", units="s")
        self.plot.setLabel("left", spec.kind.unit)
        pair = f"{self.src_box.currentText()} → {self.dst_box.currentText()}"
        self.plot.setTitle(title or f"{pair}: {spec.label()} (live)")
        self.plot.setXRange(0, spec.total_seconds, padding=0.02)
        self._live_curve = self.plot.plot([], [], pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5,
                                          symbolBrush=color, name="live")
        trace = None if prediction is None else prediction.reverse if spec.reverse else prediction.forward
        self._estimate = trace.estimate.throughput_mbps if trace is not None and spec.kind.unit == "Mbit/s" else None
        self._draw_estimate(self._estimate, str(prediction.verdict) if prediction is not None else "")

    def _on_sample(self, sample: Sample) -> None:
        self.live.append(sample)
        self.live_times.append(time.monotonic())
        if self._live_curve is not None:
            self._live_curve.setData([s.t for s in self.live], [s.value for s in self.live])
            # a fixed time axis and a zero baseline: the curve grows left to right at its true scale
            self.plot.setYRange(0, 1.15 * max([s.value for s in self.live] + [self._estimate or 0]), padding=0)

    def _on_progress(self, done: int, total: int, message: str) -> None:
        self.progress.setMaximum(total)
        self.progress.setValue(done)
        self.progress.setFormat(message)

    def _on_done(self, run: Run) -> None:
        self._set_busy(False)
        self.last_run = run
        self.result.setText(describe_run(run))
        if run.status == RunStatus.FAILED:
            text = pg.TextItem(f"no data: {run.summary.get('failure', 'failed')}", color="#c0392b")
            self.plot.addItem(text)
        self.refresh_history(select=run.id)
        self.runFinished.emit(run)
        self.workbench.status.emit(f"measured {run.title}")

    def _on_failed(self, exc: BaseException) -> None:
        self._set_busy(False)
        self._show_error(str(exc))
        self.runFinished.emit(None)

    def _show_error(self, message: str) -> None:
        self.result.setText(f"<span style='color:#c0392b'>{_escape(message)}</span>")

    # --- A/B ---------------------------------------------------------------------------------------------

    def _design_a(self) -> str:
        """Variant A's design, named by the main window's file when there is one."""
        path = getattr(self.parent(), "path", None)
        return str(path) if path else (self.workbench.topology.name or "this design")

    def _ab_variants(self) -> tuple[Variant, Variant]:
        pair_a = (self.src_box.currentText(), self.dst_box.currentText())
        design_a = self._design_a()
        return Variant("", design_a, *pair_a), self.ab.variant_b(design_a, pair_a)

    def _ab_defaults(self, a: Variant, b: Variant) -> tuple[str, str]:
        """Default labels (shared with ``measure --versus``): file names, "via fw01", or the pairs."""
        routed: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        if not self.ab.by_file:
            try:
                routed = tuple(via(self.workbench.engine.predict(v.src, v.dst))  # type: ignore[assignment]
                               for v in (a, b))
            except LookupError:
                pass
        return default_labels(a, b, routed, arrow="→")

    def _refresh_ab_labels(self, *_args: object) -> None:
        if self.ab.isChecked() and self.src_box.count():
            self.ab.labels(self._ab_defaults(*self._ab_variants()))

    def start_ab(self) -> None:
        """Run the test on A, then on B (the Run A/B button); both runs are stored under their labels."""
        if self.running:
            return
        a, b = self._ab_variants()
        if self.src_box.currentData() == self.dst_box.currentData():
            self._show_error("Pick two different VMs for variant A.")
            return
        if self.ab.by_file and not b.design:
            self._show_error("Pick the design file of variant B (Browse…); it must be deployed too.")
            return
        if not self.ab.by_file and (b.src, b.dst) == (a.src, a.dst):
            self._show_error("Variant B is the same pair as A: pick another pair, or another design file.")
            return
        if not self.ab.by_file and b.src == b.dst:
            self._show_error("Pick two different VMs for variant B.")
            return
        label_a, label_b = self.ab.labels(self._ab_defaults(a, b))
        a, b = Variant(label_a, a.design, a.src, a.dst), Variant(label_b, b.design, b.src, b.dst)
        spec = self.spec()
        try:
            Scenario(spec, (a, b)).check()
            backend = self._backend()
        except (ValueError, BackendError) as exc:
            self._show_error(str(exc))
            return
        snapshot = self.workbench.snapshot()
        backend_name = getattr(backend, "name", "")
        bridge, store, by_file = self._bridge, self.store, self.ab.by_file

        def predictor(design: Topology, src: str, dst: str) -> Prediction:
            return predict(design, src, dst, proto=spec.proto)

        def work(progress: Any, cancel: Any) -> list[Run]:
            design_a = snapshot()
            side_a = prepare_side(backend, design_a, a, predictor)
            try:
                design_b = load(b.design) if by_file else design_a
                side_b = prepare_side(backend, design_b, b, predictor)
            except BackendError as exc:
                raise BackendError(f"variant B ({Path(b.design).name}): {exc.message}",
                                   "deploy design B too (open it and Deploy, or `vnetbench lab up FILE`), "
                                   "then run the A/B again" if by_file else exc.hint) from None
            except (ValueError, LookupError) as exc:
                raise LookupError(f"variant B ({Path(b.design).name}): {exc.args[0] if exc.args else exc}") \
                    from None
            return run_sides(spec, [side_a, side_b], backend_name=backend_name, store=store, cancel=cancel,
                             on_sample=bridge.sample.emit, progress=progress,
                             on_side=lambda n, side: bridge.side.emit(n, side.variant.label, side.prediction))

        self.ab_table.hide()
        self.ab_runs, self.ab_ratio, self._ab_spec = [], None, spec
        self.result.setText(f"A/B: {_escape(label_a)} then {_escape(label_b)}: {_escape(spec.label())}…")
        self.task = Task(work)
        self.task.progress.connect(self._on_progress)
        self.task.succeeded.connect(self._on_ab_done)
        self.task.failed.connect(self._on_ab_failed)
        self._set_busy(True)
        self.task.start()

    def _on_side(self, n: int, label: str, prediction: Any) -> None:
        assert self._ab_spec is not None
        title = f"{'AB'[n]}: {label}: {self._ab_spec.label()} (live)"
        self._begin_live(self._ab_spec, prediction, title=title, color=COLORS[n])

    def _on_ab_done(self, runs: list[Run]) -> None:
        self._set_busy(False)
        self.ab_runs = runs
        self.ab_ratio = ratio(runs[0], runs[1]) if len(runs) == 2 else None
        note = ""
        if not runs:
            note = "cancelled before A started"
        elif runs[-1].status == RunStatus.CANCELLED:
            note = f"cancelled during {'AB'[len(runs) - 1]}" + ("; B did not run" if len(runs) == 1 else "")
        self.ab_table.show_runs(runs, self.ab_ratio, note)
        self.ab_table.show()
        table_h = self.ab_table.fitted_height()
        self._middle.setSizes([max(self._middle.height() - table_h, 150), table_h])
        stored = [r for r in runs if r.id is not None]
        self.refresh_history()
        if stored:
            self.history.blockSignals(True)
            for i in range(self.history.count()):
                item = self.history.item(i)
                item.setSelected(item.data(RUN_ROLE) in [r.id for r in stored])
            self.history.blockSignals(False)
            self.show_runs(stored)   # A then B, overlaid in distinct colours with a legend
            self.result.setText("<br>".join(map(describe_headline, stored)))
        if len(stored) == 2:
            self.plot.setTitle(f"A/B: {runs[0].label} vs {runs[1].label}: {runs[0].spec.label()}")
        if note:
            self.result.setText(f"A/B {_escape(note)}." + (f"<br>{describe_run(runs[0])}" if runs else ""))
        self.abFinished.emit(runs)
        ratio_text = f"B/A = {self.ab_ratio:.3f}" if self.ab_ratio is not None else "no ratio"
        self.workbench.status.emit(f"A/B {note or 'done: ' + ratio_text}")

    def _on_ab_failed(self, exc: BaseException) -> None:
        self._set_busy(False)
        self._show_error(str(exc))
        self.abFinished.emit(None)

    # --- history and overlays ----------------------------------------------------------------------------

    def refresh_history(self, select: int | None = None) -> None:
        self.history.blockSignals(True)
        self.history.clear()
        for run in self.store.list(200):
            value, unit = run.headline()
            figure = (f"{value:.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}") if value is not None \
                else run.status
            stamp = time.strftime("%m-%d %H:%M", time.localtime(run.started))
            label = f"  [{run.label}]" if run.label else ""
            item = QListWidgetItem(f"#{run.id} {stamp}  {run.src_name}→{run.dst_name}  {run.spec.kind.value}  "
                                   f"{figure}{label}")
            item.setData(RUN_ROLE, run.id)
            item.setToolTip(run.title)
            self.history.addItem(item)
            if run.id == select:
                item.setSelected(True)
        self.history.blockSignals(False)
        if select is not None:
            self._history_selected()

    def selected_ids(self) -> list[int]:
        return [item.data(RUN_ROLE) for item in self.history.selectedItems()]

    def select_runs(self, ids: list[int]) -> None:
        self.history.blockSignals(True)
        for i in range(self.history.count()):
            item = self.history.item(i)
            item.setSelected(item.data(RUN_ROLE) in ids)
        self.history.blockSignals(False)
        self._history_selected()

    def _history_selected(self) -> None:
        if self.running:
            return
        ids = self.selected_ids()
        if not ids:
            return
        runs = [self.store.get(i) for i in ids]
        self.show_runs(runs)
        self.result.setText(describe_run(runs[0]) if len(runs) == 1 else "<br>".join(map(describe_headline, runs)))

    def show_runs(self, runs: list[Run]) -> None:
        """Overlay runs: sweeps as throughput per message size, the others as their samples over time."""
        self.plot.clear()
        self._live_curve = None
        unit = runs[0].spec.kind.unit
        shown = [r for r in runs if r.spec.kind.unit == unit]
        sweeps = all(r.spec.kind is TestKind.SWEEP and r.summary.get("points") for r in shown)
        self.plot.setLogMode(x=sweeps, y=False)
        self.plot.setLabel("bottom", "message size" if sweeps else "time", units="B" if sweeps else "s")
        self.plot.setLabel("left", unit)
        skipped = len(runs) - len(shown)
        title = "overlay of " + ", ".join(f"#{r.id}" for r in shown) if len(shown) > 1 else shown[0].title
        self.plot.setTitle(title + (f" ({skipped} in other units not shown)" if skipped else ""))
        for n, run in enumerate(shown):
            color = COLORS[n % len(COLORS)]
            if sweeps:
                xs = [p["size"] for p in run.summary["points"]]
                ys = [p["throughput_mbps"] for p in run.summary["points"]]
            else:
                xs, ys = [s.t for s in run.samples], [s.value for s in run.samples]
            label = f"#{run.id} {run.src_name}→{run.dst_name}" + (f" {run.label}" if run.label else "")
            self.plot.plot(xs, ys, pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5, symbolBrush=color,
                           name=label)
        self.plot.enableAutoRange()  # a live run fixed the axes; stored runs fit their own data
        if len(shown) == 1 and unit == "Mbit/s":
            p = shown[0].prediction
            self._draw_estimate(p.estimate.throughput_mbps if p else None, str(p.verdict) if p else "")

    def _draw_estimate(self, estimate: float | None, verdict: str) -> None:
        """The prediction's throughput estimate as a dashed line, so the measurement is read against it."""
        if estimate is None:
            return
        line = pg.InfiniteLine(pos=estimate, angle=0, pen=pg.mkPen("#7f8c8d", width=1, style=Qt.PenStyle.DashLine),
                               label=f"predicted {verdict}: {estimate:.0f} Mbit/s",
                               labelOpts={"position": 0.02, "color": "#7f8c8d", "anchors": [(0, 1), (0, 1)]})
        self.plot.addItem(line)

    def export_selected(self, path: str) -> None:
        ids = self.selected_ids()
        if len(ids) != 1:
            raise StoreError("select one run to export")
        self.store.export(ids[0], path)

    def _export_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) != 1:
            self._show_error("Select one stored run to export.")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export run", f"run-{ids[0]}.csv",
                                              "CSV (*.csv);;JSON (*.json)")
        if path:
            try:
                self.export_selected(path)
            except (StoreError, OSError) as exc:
                self._show_error(str(exc))
            else:
                self.workbench.status.emit(f"run #{ids[0]} exported to {path}")

    def save_calibration(self, name: str) -> str:
        path = save_calibration([self.store.get(i) for i in self.selected_ids()], name)
        return str(path)

    def _calibrate_clicked(self) -> None:
        name, ok = QInputDialog.getText(self, "Save as calibration", "Profile name:")
        if not ok or not name:
            return
        try:
            path = self.save_calibration(name)
        except CalibrationWriteError as exc:
            self._show_error(str(exc))
        else:
            self.workbench.status.emit(f"calibration profile written to {path}")
            self.result.setText(f"Calibration profile written to {_escape(path)}; set it as the design's "
                                "calibration to use it in estimates.")
