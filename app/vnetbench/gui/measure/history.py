"""The stored runs of the measure dock: this design's by default (a toggle shows every design's), export,
and turning selected runs into a calibration profile.

A run belongs to the open design when it was measured on a design of the same name or the same digest, the
rule the exported results use, so a renamed design still finds its runs.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QHBoxLayout, QInputDialog, QLabel,
                               QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget)

from ...measure import Run, RunStore, StoreError, design_digest, save_calibration
from ...measure.compare import CalibrationWriteError
from ...model import Topology
from ...model.text import one_line
from ..dialogs import save_path
from ..plain import plain, tip

RUN_ROLE = Qt.ItemDataRole.UserRole
#: How many stored runs the list shows at most (newest first).
SHOWN = 200


def of_design(runs: list[Run], topology: Topology) -> list[Run]:
    """The runs measured on this design: by its name, else by what it means (the digest encodes the whole
    design, a second at 10,000 VMs, so it is computed only when a run's name does not already answer)."""
    digest: str | None = None
    mine = []
    for run in runs:
        if run.design_name != topology.name:
            digest = digest or design_digest(topology)
            if run.design_digest != digest:
                continue
        mine.append(run)
    return mine


def run_line(run: Run) -> str:
    """``#3 05-02 14:10  web01→db01  throughput  941 Mbit/s  [label]``."""
    value, unit = run.headline()
    figure = (f"{value:.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}") if value is not None else run.status
    stamp = time.strftime("%m-%d %H:%M", time.localtime(run.started))
    label = f"  [{run.label}]" if run.label else ""
    return f"#{run.id} {stamp}  {run.src_name}→{run.dst_name}  {run.spec.kind.value}  {figure}{label}"


class HistoryPanel(QWidget):
    """The list of stored runs; ``selected`` carries the ids picked (several overlay in the plot)."""

    selected = Signal(list)
    #: A sentence for the dock's result line (an export done, a failure).
    told = Signal(str)

    def __init__(self, store: RunStore, topology: Topology, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.topology = topology
        self.heading = plain(QLabel())
        self.all_designs = QCheckBox("All designs")
        self.all_designs.setToolTip("Show the runs of every design, not only the open one")
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setMinimumWidth(160)
        self.list.setToolTip("Select several runs (Ctrl+click) to overlay them in the plot")
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Export the selected run as CSV or JSON")
        self.calibrate_button = QPushButton("Calibration…")
        self.calibrate_button.setToolTip("Save the selected runs as a calibration profile for estimates")
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.all_designs)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.calibrate_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.all_designs.toggled.connect(lambda _on: self.refresh())
        self.list.itemSelectionChanged.connect(lambda: self.selected.emit(self.selected_ids()))
        self.export_button.clicked.connect(self._export_clicked)
        self.calibrate_button.clicked.connect(self._calibrate_clicked)

    def follow(self, topology: Topology) -> None:
        """The open design changed (another file opened, or renamed): list its runs."""
        self.topology = topology
        self.refresh()

    def refresh(self, select: list[int] | None = None) -> None:
        """Fill the list from the store, this design's runs unless "All designs" is ticked."""
        listing = self.store.scan(SHOWN)
        runs = listing.runs
        if not self.all_designs.isChecked():
            runs = of_design(runs, self.topology)
        scope = "all designs" if self.all_designs.isChecked() else "this design"
        damaged = ", ".join(f"#{run_id}" for run_id, _ in listing.damaged)
        self.heading.setText(f"Stored runs: {scope}" + (f" ({damaged} damaged: cannot be read)" if damaged else ""))
        self.heading.setToolTip(f"The runs measured on {scope}; select several to overlay them")
        with QSignalBlocker(self.list):
            self.list.clear()
            for run in runs:
                item = QListWidgetItem(one_line(run_line(run)))
                item.setData(RUN_ROLE, run.id)
                item.setToolTip(tip(f"{run.title}\ndesign: {run.design_name}"))
                self.list.addItem(item)
                item.setSelected(run.id in (select or []))
        if select:
            self.selected.emit(self.selected_ids())

    def shown_ids(self) -> list[int]:
        return [self.list.item(i).data(RUN_ROLE) for i in range(self.list.count())]

    def selected_ids(self) -> list[int]:
        return [item.data(RUN_ROLE) for item in self.list.selectedItems()]

    def select(self, ids: list[int]) -> None:
        """Select these runs; ``selected`` carries them in the order given (an A/B overlay draws A first)."""
        with QSignalBlocker(self.list):
            for i in range(self.list.count()):
                item = self.list.item(i)
                item.setSelected(item.data(RUN_ROLE) in ids)
        shown = set(self.shown_ids())
        self.selected.emit([i for i in ids if i in shown])

    def clear_selection(self) -> None:
        with QSignalBlocker(self.list):
            self.list.clearSelection()

    def export_selected(self, path: str) -> None:
        ids = self.selected_ids()
        if len(ids) != 1:
            raise StoreError("select one run to export")
        self.store.export(ids[0], path)

    def save_calibration(self, name: str) -> str:
        return str(save_calibration([self.store.get(i) for i in self.selected_ids()], name))

    def _export_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) != 1:
            self.told.emit("Select one stored run to export.")
            return
        path = save_path(self, "Export run", f"run-{ids[0]}.csv", "CSV (*.csv);;JSON (*.json)")
        if not path:
            return
        try:
            self.export_selected(path)
        except (StoreError, OSError) as exc:
            self.told.emit(str(exc))
        else:
            self.told.emit(f"Run #{ids[0]} exported to {path}")

    def _calibrate_clicked(self) -> None:
        name, ok = QInputDialog.getText(self, "Save as calibration", "Profile name:")
        if not ok or not name:
            return
        try:
            path = self.save_calibration(name)
        except CalibrationWriteError as exc:
            self.told.emit(str(exc))
        else:
            self.told.emit(f"Calibration profile written to {path}; set it as the design's calibration to use "
                           "it in estimates.")
