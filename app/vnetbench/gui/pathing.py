"""Shows the path for a requested pair on the canvas when no path dock is installed to do it.

The prediction runs in a worker over a snapshot of the design (never on the GUI thread); a burst of edits
costs one run, and only the newest answer is drawn.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from ..model import Change
from .signals import connect_weakly
from .workbench import Workbench
from .worker import Latest


class PathController(QObject):
    def __init__(self, workbench: Workbench, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workbench = workbench
        self.pair: tuple[str, str] | None = None
        self.runner = Latest(60, self)
        self.runner.succeeded.connect(workbench.highlight_path)
        self.runner.failed.connect(lambda exc: workbench.status.emit(f"Cannot predict: {exc}"))
        connect_weakly(workbench.pairRequested, self, "show_pair")
        connect_weakly(workbench.designChanged, self, "_changed")

    def show_pair(self, src: str, dst: str) -> None:
        self.pair = (src, dst)
        self.runner.schedule(self._build, 0)

    def _changed(self, change: Change) -> None:
        if change.op == "reset":
            self.pair = None
        elif self.pair is not None:
            self.runner.schedule(self._build)

    def _build(self):
        from ..predict import predict

        snapshot, (src, dst) = self.workbench.snapshot(), self.pair
        return lambda progress, cancel: predict(snapshot(), src, dst)
