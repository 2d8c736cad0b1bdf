"""The measure dock: pick a pair and a test, press Measure, watch the curve grow beside the prediction.

Three parts side by side: the controls (a "Test" tab, ``run.RunControls``, and an "A/B" tab,
``ab.ABControls``), the plot with the result under it, and the stored runs (``history.HistoryPanel``). The
controls scroll and the plot keeps a readable minimum size, so the dock fits a short bottom strip.

A run happens on a worker thread (``gui.worker.Task``): endpoints are looked up in the chosen backend, the
probe runs, samples cross to the GUI thread through a queued signal and are plotted as they arrive (iperf3
every 0.5 s, sockperf every 0.25 s). The finished run is stored and listed; selecting several stored runs
overlays them. A run holds the deployment's measure lock, the one ``vnetbench measure`` takes, from before
its prediction to its end: a second measurement of one lab (from the CLI or another window) is refused at
once, naming the process that holds it. A failed probe shows its reason (not installed, no route, refused, timeout). A/B mode runs
the same test on variant A (the current pair) and variant B back to back, then shows both side by side.
"""

from __future__ import annotations

import html
import time
from contextlib import ExitStack
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDockWidget, QFrame, QLabel, QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from ...backends import Backend, BackendError, backend_class
from ...backends.locking import Busy
from ...measure import Run, RunStatus, RunStore, Sample, Scenario, TestSpec, Variant, default_labels, ratio, via
from ...measure.runner import measure_locks
from ...model import Change, TopologyFileError, load
from ...predict import Prediction
from ..family_box import follow_later
from ..needs import UsesConnection
from ..workbench import Workbench
from ..worker import Task
from .ab import ABControls, ABTable, ab_work
from .history import HistoryPanel
from .plot import COLORS, RunPlot
from .run import RunControls, describe_headline, describe_run, run_work


class _SampleBridge(QObject):
    """Lives on the GUI thread; the worker emits, the dock receives queued."""

    sample = Signal(object)
    #: An A/B side starts: its index, label and prediction.
    side = Signal(int, str, object)


def scrolling(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area


class MeasureDock(UsesConnection, QDockWidget):
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
        self._locks: ExitStack | None = None  # the measure locks a running measurement holds

        self.controls = RunControls(workbench)
        c = self.controls
        self.picker, self.kind_box, self.duration, self.measure_button, self.cancel_button = (
            c.picker, c.kind_box, c.duration, c.measure_button, c.cancel_button)
        self.src_box, self.dst_box = c.picker.src, c.picker.dst
        self.ab = ABControls(workbench)
        self.ab_table = ABTable()
        self.ab_table.hide()
        self.plot = RunPlot()
        self.result = QLabel("Pick two VMs and a test, then Measure. The design must be deployed.")
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.RichText)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.runs = HistoryPanel(self.store, workbench.topology)
        self.history = self.runs.list

        tabs = QTabWidget()
        test = QWidget()
        test_layout = QVBoxLayout(test)
        test_layout.setContentsMargins(0, 0, 0, 0)
        test_layout.setSpacing(0)
        self.controls_area = scrolling(self.controls)
        test_layout.addWidget(self.controls_area, 1)
        test_layout.addWidget(self.controls.actions)  # always in sight, however short the dock
        tabs.addTab(test, "Test")
        tabs.addTab(scrolling(self.ab), "A/B")
        tabs.setMinimumWidth(220)
        self._tabs = tabs
        self._middle = QSplitter(Qt.Orientation.Vertical)
        self._middle.addWidget(self.plot)
        self._middle.addWidget(self.ab_table)
        self._middle.setStretchFactor(0, 1)
        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        centre_layout.addWidget(self._middle, 1)
        result_area = scrolling(self.result)
        result_area.setMaximumHeight(110)  # five lines; a longer text scrolls, the plot keeps the room
        result_area.setMinimumHeight(14)  # a line: on a short (scaled) screen the canvas keeps half the height
        centre_layout.addWidget(result_area)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(tabs)
        splitter.addWidget(centre)
        splitter.addWidget(self.runs)
        for column, stretch in enumerate((0, 1, 0)):  # the plot takes what the screen has to spare
            splitter.setStretchFactor(column, stretch)
        splitter.setChildrenCollapsible(False)
        self.splitter = splitter
        self._user_split = False           # once the user drags a divider, the columns stay as they set them
        splitter.splitterMoved.connect(self._split_by_user)
        self.setWidget(splitter)

        self.measure_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.ab.run_button.clicked.connect(self.start_ab)
        self.ab.toggled.connect(self._refresh_ab_labels)
        self.ab.toggled.connect(lambda on: self.ab.run_button.setEnabled(on and not self.running))
        self.ab.mode.currentIndexChanged.connect(self._refresh_ab_labels)
        self.ab.file.textChanged.connect(self._refresh_ab_labels)
        self.picker.pairChanged.connect(self._refresh_ab_labels)
        self.ab.picker.pairChanged.connect(self._refresh_ab_labels)
        self.runs.selected.connect(self._history_selected)
        self.runs.told.connect(self.result.setText)
        workbench.pairRequested.connect(self.set_pair)
        workbench.designChanged.connect(self._design_changed)
        workbench.designChanged.connect(follow_later(self, workbench.families, self.controls.follow))
        self._set_busy(False)
        self.refresh_history()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        width = event.size().width()  # the splitter inside is resized after this
        if not self._user_split and self.isVisible() and width >= 600:
            # the controls and the runs a column each, the plot the rest; the controls get the width their form
            # asks for (it grows with the scale factor), with room for its scroll bar on a short dock, up to a third
            side = min(330, width // 4)
            form = self._tabs.sizeHint().width() + self.controls_area.verticalScrollBar().sizeHint().width()
            left = min(max(side, form), width // 3)
            self.splitter.setSizes([left, width - left - side, side])

    def _split_by_user(self) -> None:
        self._user_split = True

    # --- the pair and the backend --------------------------------------------------------------------------

    def set_pair(self, src_id: str, dst_id: str) -> None:
        """Measure between these endpoints next (the matrix, the path dock or the canvas asked for them)."""
        self.picker.set_pair(src_id, dst_id)

    def _names(self) -> tuple[str, str]:
        index, pair = self.workbench.document.index, self.picker.pair
        return tuple(getattr(index.get(oid), "name", "") if oid else "" for oid in (pair.src, pair.dst))

    def spec(self) -> TestSpec:
        return self.controls.spec()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.follow_deploy()

    def connection_available(self, backend: Backend | None) -> None:
        """The deploy dock's connection (``needs.UsesConnection``): measured through, and shown in the box."""
        super().connection_available(backend)
        self.follow_deploy()

    def follow_deploy(self) -> None:
        """Show the deploy dock's backend in the backend box once it is connected (a tab coming to the front)."""
        shared = self.connection
        box = self.controls.backend_box
        if shared is not None and box.currentData() != shared.name and box.findData(shared.name) >= 0:
            box.setCurrentIndex(box.findData(shared.name))

    def _backend(self) -> Backend:
        """The deploy dock's backend and connection whenever it has one (what was deployed is measured where
        it was deployed; the backend box follows it), else the chosen plugin, which must need no settings."""
        shared = self.connection
        if shared is not None:
            self.follow_deploy()
            return shared
        name = self.controls.backend_box.currentData()
        if name is None:
            raise BackendError("no backend plugin is available", "install one (the local lab comes with vnetbench)")
        if self.backend is None or self.backend.name != name:
            try:
                cls = backend_class(name)  # imported now, when it is first used
            except LookupError as exc:
                raise BackendError(str(exc), "choose another backend, or install what it needs") from None
            if any(f.required for f in cls.settings_fields):
                raise BackendError(f"{cls.title} is not connected",
                                   "connect it in the Deploy dock (choose it there and Plan), then measure")
            self.backend = cls()
            self.backend.connect()
        return self.backend

    def _design_changed(self, change: Change) -> None:
        """Another design opened, or this one renamed: the stored runs follow it."""
        if change.op == "reset" or (change.obj is self.workbench.topology and change.field == "name"):
            self.runs.follow(self.workbench.topology)

    def _predict(self, src: str | None, dst: str | None, spec: TestSpec) -> Prediction:
        """The prediction the run is compared with: the one of the family it measures."""
        engine = self.workbench.engine
        if (engine.family or self.controls.family.families[0]) != spec.family:
            engine = self.workbench.family_engine(spec.family)
        return engine.predict(src, dst, proto=spec.proto)

    # --- running -----------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the chosen test (the Measure button)."""
        if self.running:
            return
        pair = self.picker.pair
        if not pair.complete:
            self._show_error("Pick two different VMs to measure between.")
            return
        spec = self.spec()
        try:
            spec.check()
            backend = self._backend()
        except (ValueError, BackendError) as exc:
            self._show_error(str(exc))
            return
        if not self._lock(backend, [self.workbench.topology.id]):
            return
        try:
            prediction = self._predict(pair.src, pair.dst, spec)
        except (ValueError, LookupError) as exc:
            self._release()
            self._show_error(str(exc))
            return
        work = run_work(backend, self.workbench.snapshot(), pair.src, pair.dst, spec, prediction, self.store,
                        self._bridge.sample.emit)
        self.ab_table.hide()
        names = self._names()
        self._begin_live(spec, prediction, f"{names[0]} → {names[1]}: {spec.label()} (live)")
        self.result.setText(f"Measuring {html.escape(names[0])} → {html.escape(names[1])}: "
                            f"{html.escape(spec.label())}…")
        self._run(work, self._on_done, self._on_failed)

    def _lock(self, backend: Backend, design_ids: list[str]) -> bool:
        """Take the measure lock of each deployment measured (``measure_locks``); False, with the reason
        shown, when another measurement holds one."""
        try:
            self._locks = measure_locks(backend.deployment(design_id) for design_id in design_ids)
        except Busy as busy:
            self._show_error(f"Another measurement of this deployment is running (process {busy.holder}): two "
                             "at once would disturb both figures. Wait for it to finish, then Measure again.")
            return False
        except OSError as exc:
            self._show_error(f"Cannot take the measure lock: {exc.strerror or exc}")
            return False
        return True

    def _release(self) -> None:
        if self._locks is not None:
            self._locks.close()
            self._locks = None

    def _run(self, work: Any, done: Any, failed: Any) -> None:
        self.task = Task(work)
        self.task.progress.connect(self._on_progress)
        self.task.succeeded.connect(done)
        self.task.failed.connect(failed)
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
        self.controls.progress.setVisible(busy)
        if busy:
            self.controls.progress.setValue(0)
            self.controls.progress.setFormat("starting…")

    def _begin_live(self, spec: TestSpec, prediction: Prediction | None, title: str, color: str = COLORS[0]) -> None:
        """A run starts: the dock comes to the front and the plot waits for its first sample."""
        self.show()
        self.raise_()
        self.runs.clear_selection()
        self.live, self.live_times = [], []
        self.plot.begin_live(spec, prediction, title, color)

    def _on_sample(self, sample: Sample) -> None:
        self.live.append(sample)
        self.live_times.append(time.monotonic())
        self.plot.show_live(self.live)

    def _on_progress(self, done: int, total: int, message: str) -> None:
        self.controls.progress.setMaximum(total)
        self.controls.progress.setValue(done)
        self.controls.progress.setFormat(message)

    def _on_done(self, run: Run) -> None:
        self._release()
        self._set_busy(False)
        self.last_run = run
        self.result.setText(describe_run(run))
        if run.status == RunStatus.FAILED:
            self.plot.show_failure(f"no data: {run.summary.get('failure', 'failed')}")
        self.refresh_history(select=run.id)
        self.runFinished.emit(run)
        self.workbench.status.emit(f"measured {run.title}")

    def _on_failed(self, exc: BaseException) -> None:
        self._release()
        self._set_busy(False)
        self._show_error(str(exc))
        self.runFinished.emit(None)

    def _show_error(self, message: str) -> None:
        self.result.setText(f"<span style='color:#c0392b'>{html.escape(message)}</span>")

    # --- A/B ---------------------------------------------------------------------------------------------

    def _design_a(self) -> str:
        """Variant A's design, named by the main window's file when there is one."""
        path = getattr(self.parent(), "path", None)
        return str(path) if path else (self.workbench.topology.name or "this design")

    def _ab_variants(self) -> tuple[Variant, Variant]:
        pair_a = self._names()
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
        if self.ab.isChecked() and self.picker.pair.complete:
            self.ab.labels(self._ab_defaults(*self._ab_variants()))

    def start_ab(self) -> None:
        """Run the test on A, then on B (the Run A/B button); both runs are stored under their labels."""
        if self.running:
            return
        a, b = self._ab_variants()
        if not self.picker.pair.complete:
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
        if not self._lock(backend, [self.workbench.topology.id, *self._design_ids(b)]):
            return
        work = ab_work(backend, self.workbench.snapshot(), spec, a, b, self.ab.by_file, self.store,
                       self._bridge.sample.emit, self._bridge.side.emit)
        self.ab_table.hide()
        self.ab_runs, self.ab_ratio, self._ab_spec = [], None, spec
        self.result.setText(f"A/B: {html.escape(label_a)} then {html.escape(label_b)}: {html.escape(spec.label())}…")
        self._run(work, self._on_ab_done, self._on_ab_failed)

    def _design_ids(self, b: Variant) -> list[str]:
        """Variant B's design id when it is another file (one that cannot be read: none, the run says why)."""
        if not self.ab.by_file:
            return []
        try:
            return [load(b.design).id]
        except TopologyFileError:
            return []

    def _on_side(self, n: int, label: str, prediction: Any) -> None:
        assert self._ab_spec is not None
        title = f"{'AB'[n]}: {label}: {self._ab_spec.label()} (live)"
        self._begin_live(self._ab_spec, prediction, title=title, color=COLORS[n])

    def _on_ab_done(self, runs: list[Run]) -> None:
        self._release()
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
            self.runs.select([r.id for r in stored])  # A then B, overlaid in distinct colours with a legend
            self.result.setText("<br>".join(map(describe_headline, stored)))
        if len(stored) == 2:
            self.plot.setTitle(f"A/B: {runs[0].label} vs {runs[1].label}: {runs[0].spec.label()}")
        if note:
            self.result.setText(f"A/B {html.escape(note)}." + (f"<br>{describe_run(runs[0])}" if runs else ""))
        self.abFinished.emit(runs)
        ratio_text = f"B/A = {self.ab_ratio:.3f}" if self.ab_ratio is not None else "no ratio"
        self.workbench.status.emit(f"A/B {note or 'done: ' + ratio_text}")

    def _on_ab_failed(self, exc: BaseException) -> None:
        self._release()
        self._set_busy(False)
        self._show_error(str(exc))
        self.abFinished.emit(None)

    # --- history and overlays ----------------------------------------------------------------------------

    def refresh_history(self, select: int | None = None) -> None:
        self.runs.refresh([select] if select is not None else None)

    def selected_ids(self) -> list[int]:
        return self.runs.selected_ids()

    def select_runs(self, ids: list[int]) -> None:
        self.runs.select(ids)

    def _history_selected(self, ids: list[int]) -> None:
        if self.running or not ids:
            return
        runs = [self.store.get(i) for i in ids]
        self.show_runs(runs)
        self.result.setText(describe_run(runs[0]) if len(runs) == 1 else "<br>".join(map(describe_headline, runs)))

    def show_runs(self, runs: list[Run]) -> None:
        self.plot.show_runs(runs)

    def export_selected(self, path: str) -> None:
        self.runs.export_selected(path)

    def save_calibration(self, name: str) -> str:
        return self.runs.save_calibration(name)
