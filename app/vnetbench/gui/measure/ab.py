"""The A/B part of the measure dock: what variant B is, the labels, and the side-by-side table of results.

Variant A is the dock's current pair in the open design. Variant B is another pair of the same design, or
the same pair names in another design file (which must be deployed too). The running itself is
``vnetbench.measure.run_sides``, shared with ``vnetbench measure --versus``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QPushButton, QTableWidget, QTableWidgetItem,
                               QWidget)

from ...measure import Run, RunStatus, Variant

PAIR, FILE = "pair", "file"


class ABControls(QGroupBox):
    """Checkable group: when checked, "Run A/B" measures A then B back to back."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("A/B: compare with a second variant", parent)
        self.setCheckable(True)
        self.setChecked(False)
        self.mode = QComboBox()
        self.mode.addItem("B = another pair in this design", PAIR)
        self.mode.addItem("B = the same pair in another design file", FILE)
        self.src_box, self.dst_box = QComboBox(), QComboBox()
        self.file = QLineEdit()
        self.file.setPlaceholderText("design file of variant B (deployed)")
        self.browse = QPushButton("Browse…")
        self.label_a, self.label_b = QLineEdit(), QLineEdit()
        self.run_button = QPushButton("Run A/B")
        self.run_button.setToolTip("Run the test on A, then on B, and show both side by side")

        form = QFormLayout(self)
        form.addRow(self.mode)
        pair = QHBoxLayout()
        pair.addWidget(self.src_box, 1)
        pair.addWidget(QLabel("→"))
        pair.addWidget(self.dst_box, 1)
        form.addRow("B pair", pair)
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
        for w in (self.src_box, self.dst_box):
            w.setEnabled(not self.by_file)
        for w in (self.file, self.browse):
            w.setEnabled(self.by_file)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Design of variant B", self.file.text() or str(Path.home()),
                                              "vnetbench designs (*.vnet.yaml *.yaml);;All files (*)")
        if path:
            self.file.setText(path)

    def variant_b(self, design_a: str, pair_a: tuple[str, str]) -> Variant:
        """Variant B (labels unset): the chosen pair here, or A's pair names in the chosen file."""
        if self.by_file:
            return Variant("", self.file.text().strip(), *pair_a)
        return Variant("", design_a, self.src_box.currentText(), self.dst_box.currentText())

    def labels(self, defaults: tuple[str, str]) -> tuple[str, str]:
        """The typed labels, or the defaults (also shown as the fields' placeholders)."""
        self.label_a.setPlaceholderText(defaults[0])
        self.label_b.setPlaceholderText(defaults[1])
        return (self.label_a.text().strip() or defaults[0], self.label_b.text().strip() or defaults[1])


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
