"""The A/B part of the measure dock: what variant B is, the labels, the work of running both, and the
side-by-side table of results.

Variant A is the dock's current pair in the open design. Variant B is another pair of the same design, or
the same pair names in another design file (which must be deployed too). The running itself is
``vnetbench.measure.run_sides``, shared with ``vnetbench measure --versus``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QHeaderView,
                               QLineEdit, QPushButton, QTableWidget, QTableWidgetItem, QWidget)

from ...backends import Backend, BackendError
from ...measure import Run, RunStatus, Sample, TestSpec, Variant, prepare_side, run_sides
from ...model import Topology, load
from ...predict import Engine, Prediction
from ..dialogs import open_path
from ..endpoints import EndpointPicker
from ..workbench import Snapshot, Workbench

PAIR, FILE = "pair", "file"


class ABControls(QGroupBox):
    """Checkable group: when checked, "Run A/B" measures A then B back to back."""

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__("A/B: compare with a second variant", parent)
        self.workbench = workbench
        self.setCheckable(True)
        self.setChecked(False)
        self.mode = QComboBox()
        self.mode.addItem("B = another pair in this design", PAIR)
        self.mode.addItem("B = the same pair in another design file", FILE)
        self.picker = EndpointPicker(workbench, first_pair=True)
        self.picker.use_selection.setToolTip("Take B's pair from the two VMs selected on the canvas")
        self.src_box, self.dst_box = self.picker.src, self.picker.dst
        self.file = QLineEdit()
        self.file.setPlaceholderText("design file of variant B (deployed)")
        self.browse = QPushButton("Browse…")
        self.label_a, self.label_b = QLineEdit(), QLineEdit()
        self.run_button = QPushButton("Run A/B")
        self.run_button.setToolTip("Run the test on A, then on B, and show both side by side")

        form = QFormLayout(self)
        form.addRow(self.mode)
        form.addRow("B pair", self.picker)
        file_row = QHBoxLayout()
        file_row.addWidget(self.file, 1)
        file_row.addWidget(self.browse)
        form.addRow("B design", file_row)
        form.addRow("Label A", self.label_a)
        form.addRow("Label B", self.label_b)
        form.addRow(self.run_button)
        self.mode.currentIndexChanged.connect(self._mode_changed)
        self.browse.clicked.connect(self._browse)
        self._mode_changed()

    @property
    def by_file(self) -> bool:
        return self.mode.currentData() == FILE

    def set_mode(self, mode: str) -> None:
        self.mode.setCurrentIndex(self.mode.findData(mode))

    def _mode_changed(self, *_args: object) -> None:
        self.picker.setEnabled(not self.by_file)
        for w in (self.file, self.browse):
            w.setEnabled(self.by_file)

    def _browse(self) -> None:
        path = open_path(self, "Design of variant B", "vnetbench designs (*.vnet.yaml *.yaml);;All files (*)")
        if path:
            self.file.setText(path)

    def variant_b(self, design_a: str, pair_a: tuple[str, str]) -> Variant:
        """Variant B (labels unset): the chosen pair here, or A's pair names in the chosen file."""
        if self.by_file:
            return Variant("", self.file.text().strip(), *pair_a)
        pair, index = self.picker.pair, self.workbench.document.index
        names = [getattr(index.get(oid), "name", "") if oid else "" for oid in (pair.src, pair.dst)]
        return Variant("", design_a, names[0], names[1])

    def labels(self, defaults: tuple[str, str]) -> tuple[str, str]:
        """The typed labels, or the defaults (also shown as the fields' placeholders)."""
        self.label_a.setPlaceholderText(defaults[0])
        self.label_b.setPlaceholderText(defaults[1])
        return (self.label_a.text().strip() or defaults[0], self.label_b.text().strip() or defaults[1])


def ab_work(backend: Backend, snapshot: Snapshot, spec: TestSpec, a: Variant, b: Variant, by_file: bool,
            store: Any, on_sample: Callable[[Sample], None],
            on_side: Callable[[int, str, Any], None]) -> Callable[[Any, Any], list[Run]]:
    """What an A/B comparison does on its worker thread: find both sides' endpoints, then run A and B."""
    backend_name = getattr(backend, "name", "")

    def predictor(design: Topology, src: str, dst: str) -> Prediction:
        return Engine(design, spec.family).predict(src, dst, proto=spec.proto)   # the family measured

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
            raise LookupError(f"variant B ({Path(b.design).name}): {exc.args[0] if exc.args else exc}") from None
        return run_sides(spec, [side_a, side_b], backend_name=backend_name, store=store, cancel=cancel,
                         on_sample=on_sample, progress=progress,
                         on_side=lambda n, side: on_side(n, side.variant.label, side.prediction))

    return work


def _prediction_text(run: Run) -> str:
    p = run.prediction
    if p is None:
        return "no prediction"
    parts = [str(p.verdict)]
    if run.spec.kind.unit == "Mbit/s" and p.estimate.throughput_mbps is not None:
        parts.append(f"{p.estimate.throughput_mbps:.0f} Mbit/s")
    if p.estimate.latency_us is not None:
        parts.append(f"+{p.estimate.latency_us:.0f} us one way")
    return ", ".join(parts)


def _figure_text(run: Run) -> str:
    if run.status != RunStatus.OK:
        return f"{run.status}: {run.summary.get('failure', '') or run.error}"
    value, unit = run.headline()
    return f"{value:.4g} {unit}" if value is not None else "no figure"


class ABTable(QTableWidget):
    """Two columns, A and B: the pair, the design, the measured figure, the prediction, and B/A."""

    ROWS = ("Run", "Pair", "Design", "Measured", "Predicted", "B / A")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(len(self.ROWS), 2, parent)
        self.setVerticalHeaderLabels(list(self.ROWS))
        self.setHorizontalHeaderLabels(["A", "B"])
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)   # one line per row (long design names elide; the tooltip has them whole)
        self.setSpan(len(self.ROWS) - 1, 0, 1, 2)

    def show_runs(self, runs: list[Run], ratio: float | None, note: str = "") -> None:
        """Fill A's column and B's (empty when B did not run); the ratio row spans both."""
        self.setHorizontalHeaderLabels([r.label for r in runs] + ["B (not run)"] * (2 - len(runs)))
        for col in range(2):
            run = runs[col] if col < len(runs) else None
            cells = ([f"#{run.id}" if run.id is not None else "not stored", f"{run.src_name} → {run.dst_name}",
                      run.design_name, _figure_text(run), _prediction_text(run)] if run else ["—"] * 5)
            for row, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.setItem(row, col, item)
        unit = runs[0].spec.kind.unit if runs else ""
        text = f"{ratio:.3f}  (B's {unit} over A's)" if ratio is not None else (note or "no ratio")
        self.setItem(len(self.ROWS) - 1, 0, QTableWidgetItem(text))

    def fitted_height(self) -> int:
        """The height that shows every row without scrolling."""
        self.resizeRowsToContents()
        rows = sum(self.rowHeight(r) for r in range(self.rowCount()))
        return self.horizontalHeader().height() + rows + 2 * self.frameWidth() + 4

    def cell_text(self, row: str, col: int) -> str:
        item = self.item(self.ROWS.index(row), col)
        return item.text() if item else ""
