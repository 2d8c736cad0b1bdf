"""The problems panel: what validation finds in the design, kept current while the user edits.

Validation runs on a worker thread, 150 ms after the last edit, so typing in the inspector never waits for
it on a large design; a run overtaken by a newer edit is dropped. Clicking a problem selects its object.
The list is always there, empty or not: what it shows never changes the dock's size (nothing moves under the
mouse when problems appear); ``counted`` tells the window how many there are, for its status-bar badge.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QDockWidget, QLabel, QStyle, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
                               QWidget)

from ...model import Change
from ...model.validate import Problem
from ...predict.lint import check
from ..colors import SEVERITY_COLORS, SEVERITY_SYMBOLS
from ..plain import plain, tip as plain_tip
from ..workbench import Workbench, affects_traffic
from ..worker import Latest, Work

_ICONS = {"error": QStyle.StandardPixmap.SP_MessageBoxCritical,
          "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
          "info": QStyle.StandardPixmap.SP_MessageBoxInformation}
_ORDER = {"error": 0, "warning": 1, "info": 2}
ID_ROLE = Qt.ItemDataRole.UserRole


class ProblemsDock(QDockWidget):
    #: The problems after a validation run, counted by severity ({"error": 1, "warning": 0, "info": 2}).
    counted = Signal(dict)
    #: A new design is being checked: what was counted is not known yet (a large one takes a while).
    checking = Signal()

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__("Problems", parent)
        self.setObjectName("ProblemsDock")
        self.workbench = workbench
        self.problems: list[Problem] = []

        self.summary = plain(QLabel("Checking…"))
        self.tree = QTreeWidget()
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Severity", "Problem", "Where", "Fix"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree)
        self.setWidget(body)

        self._runner = Latest(150, self)
        self._runner.succeeded.connect(self._show)
        self._runner.failed.connect(self._failed)
        workbench.designChanged.connect(self._design_changed)
        self._runner.schedule(self._work, delay_ms=0)

    def _design_changed(self, change: Change) -> None:
        if change.op == "reset":  # another design: nothing is known about it until its check is done
            self.problems = []
            self.tree.clear()
            self.summary.setText("Checking…")
            self.setWindowTitle("Problems")
            self.checking.emit()
        if affects_traffic(change):
            self._runner.schedule(self._work)

    def _work(self) -> Work:
        snapshot = self.workbench.snapshot()
        return lambda progress, cancel: check(snapshot())

    def _show(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: _ORDER.get(str(p.severity), 3))
        self.tree.clear()
        items = [self._item(p) for p in self.problems]
        self.tree.addTopLevelItems(items)
        for column in range(3):
            self.tree.resizeColumnToContents(column)
        counts = {s: sum(str(p.severity) == s for p in self.problems) for s in _ORDER}
        self.summary.setText(summary_text(counts) if self.problems else "No problems found.")
        self.setWindowTitle(f"Problems ({len(self.problems)})" if self.problems else "Problems")
        self.counted.emit(counts)

    def _item(self, problem: Problem) -> QTreeWidgetItem:
        severity = str(problem.severity)
        item = QTreeWidgetItem([severity, problem.message, problem.path or "", problem.hint or ""])
        pixmap = _ICONS.get(severity)
        if pixmap is not None:
            item.setIcon(0, self.style().standardIcon(pixmap))
        item.setForeground(0, QBrush(QColor(SEVERITY_COLORS.get(severity, "#000000"))))
        item.setData(0, ID_ROLE, problem.object_id)
        tip = problem.message + (f"\nFix: {problem.hint}" if problem.hint else "")
        for column in range(4):
            item.setToolTip(column, plain_tip(tip))
        return item

    def _failed(self, error: BaseException) -> None:
        self.summary.setText(f"Validation could not run: {error}")

    def _clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        object_id = item.data(0, ID_ROLE)
        if object_id:
            self.workbench.select([object_id])


def summary_text(counts: dict[str, int]) -> str:
    """``✖ 1 error, ⚠ 2 warnings``: the counts that are not zero, worst first."""
    return ", ".join(f"{SEVERITY_SYMBOLS[s]} {n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n)
