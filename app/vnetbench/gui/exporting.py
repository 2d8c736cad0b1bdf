"""File > Export: every format of ``vnetbench.export`` from the window, written off the GUI thread.

Diagrams show the path highlighted on the canvas (the workbench's prediction) and, when "Only the
selection" is ticked, just the selected objects. Results and the report read this design's runs from the
run store ``vnetbench measure`` writes to. The file name is asked through ``ask_path`` so tests can answer
it without a modal dialog.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from ..export import FORMATS, Exported, Options, export
from .dialogs import last_folder, remember, save_path
from .worker import Task
from .workbench import Workbench

#: Menu entries in order; None is a separator. Diagram formats honour the selection and the path.
ENTRIES: list[tuple[str, str] | None] = [
    ("svg", "Diagram as &SVG…"), ("png", "Diagram as &PNG…"), ("pdf", "Diagram as P&DF…"), None,
    ("drawio", "&draw.io / diagrams.net…"), ("dot", "&Graphviz DOT…"), ("mermaid", "&Mermaid…"), None,
    ("matrix-csv", "Verdict matrix as CSV…"), ("matrix-json", "Verdict matrix as JSON…"),
    ("matrix-png", "Verdict matrix as PNG heatmap…"), ("matrix-svg", "Verdict matrix as SVG heatmap…"), None,
    ("results-csv", "Measured results as CSV…"), ("results-json", "Measured results as JSON…"),
    ("results-png", "Measured results as PNG plots…"), ("results-svg", "Measured results as SVG plots…"), None,
    ("report-html", "&Report as HTML…"), ("report-pdf", "Report as PD&F…"),
]
DIAGRAMS = frozenset({"svg", "png", "pdf", "drawio", "dot", "mermaid"})


class Exporter(QObject):
    """One window's export menu. ``finished`` carries the ``Exported`` record, ``failed`` a sentence."""

    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, workbench: Workbench, window: QWidget | None, base_name: Callable[[], str]) -> None:
        super().__init__(window)
        self.workbench = workbench
        self.window = window
        self.base_name = base_name
        self.only_selection = QAction("Only the &selection", self)
        self.only_selection.setCheckable(True)
        self.actions: dict[str, QAction] = {}
        for entry in ENTRIES:
            if entry is not None:
                fmt, label = entry
                action = QAction(label, self)
                action.triggered.connect(lambda _=False, fmt=fmt: self.ask_and_export(fmt))
                self.actions[fmt] = action

    def menu(self) -> QMenu:
        menu = QMenu("&Export", self.window)
        menu.addAction(self.only_selection)
        menu.addSeparator()
        for entry in ENTRIES:
            if entry is None:
                menu.addSeparator()
            else:
                menu.addAction(self.actions[entry[0]])
        return menu

    def ask_path(self, fmt: str, suggested: Path) -> str | None:
        suffix = FORMATS[fmt][1].rsplit(".", 1)[-1]
        return save_path(self.window, "Export", str(suggested), f"{fmt} (*.{suffix});;All files (*)")

    def ask_and_export(self, fmt: str) -> Task | None:
        name = re.sub(r"[^\w.-]+", "-", self.base_name()).strip("-") or "design"
        path = self.ask_path(fmt, last_folder() / f"{name}{FORMATS[fmt][1]}")
        if not path:
            return None
        remember(path)
        return self.export_to(fmt, path)

    def options(self, fmt: str) -> Options:
        selection = self.workbench.selection
        select = selection if fmt in DIAGRAMS and self.only_selection.isChecked() and selection else None
        return Options(select=select, prediction=self.workbench.path if fmt in DIAGRAMS else None)

    def export_to(self, fmt: str, path: str) -> Task:
        """Export on a worker thread from a snapshot of the design, so editing can go on meanwhile."""
        snapshot = self.workbench.snapshot()
        options = self.options(fmt)

        def work(progress, cancel) -> Exported:
            topology = snapshot()
            if fmt.startswith(("results-", "report-")):
                from ..export.results import load_runs
                from ..measure.store import data_dir

                store = data_dir() / "runs.sqlite"
                options.runs = load_runs(store, topology) if store.is_file() else []
            return export(topology, fmt, path, options)

        task = Task(work)
        task.succeeded.connect(self._done)
        task.failed.connect(lambda exc: self._failed(path, exc))
        self.workbench.status.emit(f"Exporting {Path(path).name}…")
        task.start()
        return task

    def _done(self, done: Exported) -> None:
        self.workbench.status.emit(f"Exported {done.path}")
        self.finished.emit(done)

    def _failed(self, path: str, exc: BaseException) -> None:
        message = f"Export to {path} failed: {exc}"
        self.workbench.status.emit(message)
        self.failed.emit(message)
