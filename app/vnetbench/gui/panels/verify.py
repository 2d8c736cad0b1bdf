"""Verify from the designer: one verification of the deployed design at a time, shared by the matrix dock and
the deploy dock, run off the GUI thread with progress and Cancel (``vnetbench.measure.verify`` does the work).

The backend is the deploy dock's connection when there is one, else the local lab. A dual-stack design is verified
in the family the asking dock's switch names (the CLI's ``verify --family``). The matrix dock colours each
verified cell by its outcome (``OUTCOME_COLORS``) and says in its tooltip where reality differs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from ...backends import Backend, BackendError, CancelToken, ProgressFn, backend_class
from ...measure.store import RunStore, StoreError
from ...measure.verify import Outcome, Verification, Verifier, plan_pairs
from ...predict import Engine
from ..worker import Task

#: A verified cell's fill: confirmed green, contradicted red; a cell not checked keeps its verdict's colour.
OUTCOME_COLORS = {Outcome.CONFIRMED: "#2e7d32", Outcome.CONTRADICTED: "#c62828"}


class VerifyRunner(QObject):
    """``start()`` verifies the workbench's design where it is deployed; ``verified`` carries the result."""

    started = Signal()
    progress = Signal(int, int, str)
    verified = Signal(object)
    failed = Signal(object)

    @classmethod
    def of(cls, workbench: Any) -> VerifyRunner:
        """The one runner of ``workbench`` (the matrix and deploy docks share it)."""
        runner = getattr(workbench, "_verify_runner", None)
        if runner is None:
            runner = workbench._verify_runner = cls(workbench)
        return runner

    def __init__(self, workbench: Any) -> None:
        super().__init__(workbench)
        self.workbench = workbench
        self.task: Task | None = None
        self.latest: Verification | None = None
        self.family: int = 4            # the address family of the verification running or last run
        self._own: Backend | None = None

    @property
    def busy(self) -> bool:
        return self.task is not None and self.task.running

    def backend(self) -> Backend:
        shared = self.workbench.connected_backend
        if shared is not None:
            return shared
        if self._own is None:
            self._own = backend_class("local")()
        return self._own

    def start(self, family: int | None = None) -> None:
        """Verify over ``family`` (4 or 6; None: the design's first family, IPv4 when it has it)."""
        if self.busy:
            return
        backend = self.backend()
        design_of = self.workbench.snapshot()
        self.family = family or self.workbench.families()[0]
        fam = self.family

        def work(progress: ProgressFn, cancel: CancelToken) -> Verification:
            design = design_of()
            engine = Engine(design, 6 if fam == 6 else 4)
            matrix = engine.matrix()
            plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
            scope += ", IPv6" if fam == 6 else ""   # as ``vnetbench verify --family 6`` stores it
            result = Verifier(backend, design, plans, scope, progress=progress, cancel=cancel, limits=left,
                              family=fam).run()
            try:
                RunStore().add_verification(result)
            except StoreError as exc:
                result.limits.append(f"not stored: {exc}")
            return result

        self.task = Task(work)
        self.task.progress.connect(self.progress)
        self.task.succeeded.connect(self._done)
        self.task.failed.connect(self.failed)
        self.started.emit()
        self.task.start()

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def _done(self, result: Verification) -> None:
        self.latest = result
        self.workbench.status.emit(self.headline(result))
        self.verified.emit(result)

    def headline(self, result: Verification) -> str:
        """The result's headline, naming the family it was verified over when the design uses both (or IPv6)."""
        dual = len(self.workbench.families()) > 1
        return result.headline() + (f" over IPv{self.family}" if dual or self.family == 6 else "")


def failure_text(error: BaseException) -> str:
    return error.message if isinstance(error, BackendError) else f"verify failed: {error}"
