"""The problems panel: what validation finds in the design, kept current while the user edits.

Validation runs on a worker thread, 150 ms after the last edit, so typing in the inspector never waits for it
on a large design; a run overtaken by a newer edit is dropped. A large design is validated in a child process
that the thread waits for (``offload``): the GUI thread never waits for the interpreter lock it would hold.
The list is a view of ``ProblemsModel``, so showing hundreds of problems makes no row until it is painted.
Clicking a problem selects its object. The list is always there, empty or not: what it shows never changes
the dock's size (nothing moves under the mouse when problems appear); ``counted`` tells the window how many there are, for its status-bar badge.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import QDockWidget, QLabel, QTreeView, QVBoxLayout, QWidget

from ...model import Change
from ...model.validate import Problem
from ..colors import SEVERITY_SYMBOLS
from ..jobs import check_pickled
from ..offload import LARGE_BYTES, in_process
from ..plain import plain
from ..workbench import Workbench, affects_traffic
from ..worker import Latest, Work
from .problem_list import ID_ROLE, ProblemsModel

_ORDER = {"error": 0, "warning": 1, "info": 2}


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
        self.model = ProblemsModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.header().setResizeContentsPrecision(0)   # fitting a column reads the rows on screen only
        self.tree.clicked.connect(self._clicked)
        self.tree.activated.connect(self._clicked)

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
            self.model.set_problems([])
            self.summary.setText("Checking…")
            self.setWindowTitle("Problems")
            self.checking.emit()
        if affects_traffic(change):
            self._runner.schedule(self._work)

    def _work(self) -> Work:
        data = self.workbench.snapshot_bytes()
        if len(data) < LARGE_BYTES:
            return lambda progress, cancel: check_pickled(data)
        return lambda progress, cancel: in_process(check_pickled, data, cancel=cancel)

    def _show(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: _ORDER.get(str(p.severity), 3))
        self.model.set_problems(self.problems)
        for column in range(3):
            self.tree.resizeColumnToContents(column)
        counts = {s: sum(str(p.severity) == s for p in self.problems) for s in _ORDER}
        self.summary.setText(summary_text(counts) if self.problems else "No problems found.")
        self.setWindowTitle(f"Problems ({len(self.problems)})" if self.problems else "Problems")
        self.counted.emit(counts)

    def _failed(self, error: BaseException) -> None:
        self.summary.setText(f"Validation could not run: {error}")

    def _clicked(self, index: QModelIndex) -> None:
        object_id = index.data(ID_ROLE)
        if object_id:
            self.workbench.select([object_id])


def summary_text(counts: dict[str, int]) -> str:
    """``✖ 1 error, ⚠ 2 warnings``: the counts that are not zero, worst first."""
    return ", ".join(f"{SEVERITY_SYMBOLS[s]} {n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n)
