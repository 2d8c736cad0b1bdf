"""Run long work off the GUI thread: progress, cancellation, and the result delivered by signals.

The GUI thread must never wait on prediction, validation, deploying or measuring. Two tools:

``Task`` runs one callable ``fn(progress, cancel)`` on a thread of its own (not a shared pool, so a long
measurement or a stuck backend call can never hold up the docks' recomputations)::

    task = Task(lambda progress, cancel: backend.apply(plan, progress, cancel))
    task.progress.connect(on_progress)    # (done, total, message)
    task.succeeded.connect(on_result)     # fn's return value
    task.failed.connect(on_error)         # the exception fn raised (Cancelled after task.cancel())
    task.start()
    task.cancel()                         # sets the CancelToken; fn stops at its next check

``progress`` is a ``ProgressFn`` and ``cancel`` a ``CancelToken`` (``vnetbench.backends``), so backend calls
take them as they are. Every signal of a ``Task`` is emitted on the GUI thread, whatever thread ``fn`` runs
in, so slots may touch widgets. A running task keeps itself alive until it has reported.

``Latest`` is for recomputing after edits: ``schedule(build)`` waits ``delay_ms`` for edits to settle, cancels
the run still going, then calls ``build()`` on the GUI thread (the moment to capture a snapshot of the design)
and runs the work it returns; only the newest run's result is reported, so a burst of edits costs one
computation. Its runs' threads start one a turn of the event loop (``Task.start_in_turn``), so the docks
recomputing after the same edit never start theirs all in one turn::

    def build():                      # on the GUI thread, once the edits have settled
        snapshot = workbench.snapshot()
        return lambda progress, cancel: validate(snapshot())

    runner = Latest(150, parent=dock)
    runner.succeeded.connect(dock.show_problems)
    workbench.designChanged.connect(lambda change: runner.schedule(build))

While ``background_hold()`` is held (the canvas drawing a design just opened), ``Latest`` runs wait and start
when it is released: on two cores their threads would take the interpreter from the drawing. Once every run it
held back has reported (the docks hold the new design's first results), it emits ``caught_up``: the collector
then leaves those long-lived results out of later collections (``collector``). A hold taken again before then
(another design opened) emits it too: what the runs that did report made is settled, rather than walked by the
collection at the start of the open (80 ms of the GUI thread after a design of 10,000 VMs).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from shiboken6 import isValid

from ..backends import CancelToken, ProgressFn
from .turns import in_turn

Work = Callable[[ProgressFn, CancelToken], Any]

_alive: set[Task] = set()


class Task(QObject):
    progress = Signal(int, int, str)
    succeeded = Signal(object)
    failed = Signal(object)
    #: After ``succeeded`` or ``failed``.
    finished = Signal()

    # Emitted from the worker thread; connected to this object's slots, so they arrive queued on its thread.
    _progressed = Signal(int, int, str)
    _returned = Signal(object, bool)

    def __init__(self, fn: Work) -> None:
        super().__init__()
        self._fn = fn
        self.token = CancelToken()
        self.running = False
        self._progressed.connect(self._on_progress)
        self._returned.connect(self._on_return)

    def start(self) -> None:
        self.running = True
        _alive.add(self)
        self._thread()

    def start_in_turn(self) -> None:
        """Like ``start``, but the thread starts on a later turn of the event loop (``in_turn``). Starting a
        thread waits until it runs, which takes 15 to 60 ms while other threads compute (it waits for the
        interpreter lock behind them); the docks' runs for a new design all start together, and their starts in
        one turn stopped the window for over 100 ms."""
        self.running = True
        _alive.add(self)
        in_turn(self._thread)

    def _thread(self) -> None:
        # A daemon thread: a task still running when the application quits does not keep it alive.
        threading.Thread(target=self._run, name="vnetbench-task", daemon=True).start()

    def cancel(self) -> None:
        self.token.cancel()

    def _run(self) -> None:
        try:
            result = self._fn(self._report_progress, self.token)
        except BaseException as exc:  # noqa: BLE001 - every failure is delivered to the GUI, never lost in a thread
            self._emit(self._returned, exc, False)
        else:
            self._emit(self._returned, result, True)

    def _report_progress(self, done: int, total: int, message: str) -> None:
        self._emit(self._progressed, done, total, message)

    def _emit(self, signal: Any, *args: Any) -> None:
        """Emit from the worker thread unless the application has already destroyed this object (at exit a
        daemon thread can outlive it; there is nobody left to tell)."""
        if isValid(self):
            try:
                signal.emit(*args)
            except RuntimeError:
                pass  # deleted between the check and the emit

    @Slot(int, int, str)
    def _on_progress(self, done: int, total: int, message: str) -> None:
        self.progress.emit(done, total, message)

    @Slot(object, bool)
    def _on_return(self, value: Any, ok: bool) -> None:
        self.running = False
        try:
            (self.succeeded if ok else self.failed).emit(value)
            self.finished.emit()
        finally:
            _alive.discard(self)


class BackgroundHold(QObject):
    """Holds back every ``Latest`` recomputation while held; ``released`` lets the waiting ones start, and
    ``caught_up`` says that all of them have reported since."""

    released = Signal()
    caught_up = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.held = False
        self._catching_up: set[Task] = set()

    @property
    def catching_up(self) -> bool:
        """Released, and runs it held back are still computing."""
        return not self.held and bool(self._catching_up)

    def hold(self) -> None:
        if self.catching_up:   # another design replaces the one whose first results were still coming in: what
            self.caught_up.emit()   # they made is settled, as once all have reported (``collector``)
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.released.emit()   # the waiting runs start (``follow``)
            if not self._catching_up:
                self.caught_up.emit()

    def follow(self, task: Task, owner: QObject) -> None:
        """``task`` is a run this hold held back: ``caught_up`` waits for it to report, or for ``owner`` (who
        wants the result) to be deleted."""
        self._catching_up.add(task)
        task.finished.connect(lambda: self._reported(task))
        owner.destroyed.connect(lambda *_: self._reported(task))

    def _reported(self, task: Task) -> None:
        self._catching_up.discard(task)
        if not self._catching_up and not self.held and isValid(self):   # (at exit Qt may have deleted it)
            self.caught_up.emit()


_HOLD: BackgroundHold | None = None


def background_hold() -> BackgroundHold:
    global _HOLD
    if _HOLD is None:
        _HOLD = BackgroundHold()
    return _HOLD


class Latest(QObject):
    """Debounced recomputation where only the newest result counts (see the module docstring)."""

    started = Signal()
    progress = Signal(int, int, str)
    succeeded = Signal(object)
    failed = Signal(object)

    def __init__(self, delay_ms: int = 150, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start)
        self._delay = delay_ms
        self._build: Callable[[], Work] | None = None
        self._task: Task | None = None
        self._held_back = False   # the run due now was scheduled or due while the hold was held
        background_hold().released.connect(self._resume)

    @property
    def busy(self) -> bool:
        return self._timer.isActive() or (self._task is not None and self._task.running)

    def schedule(self, build: Callable[[], Work], delay_ms: int | None = None) -> None:
        """Run ``build()``'s work after the delay (restarted by every call); a run still going is cancelled."""
        self._build = build
        self._held_back = self._held_back or background_hold().held
        if self._task is not None:
            self._task.cancel()
        self._timer.start(self._delay if delay_ms is None else delay_ms)

    def _resume(self) -> None:
        if self._build is not None and not self._timer.isActive():
            self._start()

    def _start(self) -> None:
        hold = background_hold()
        if self._build is None or hold.held:
            self._held_back = self._held_back or self._build is not None
            return
        task = Task(self._build())
        self._build = None
        if not isValid(self):  # the owner was deleted while build() ran (garbage collection can do that)
            return
        self._task = task
        if self._held_back:
            self._held_back = False
            hold.follow(task, self)
        task.progress.connect(lambda d, t, m: self._deliver(task, self.progress, d, t, m))
        task.succeeded.connect(lambda value: self._deliver(task, self.succeeded, value))
        task.failed.connect(lambda exc: self._deliver(task, self.failed, exc))
        self.started.emit()
        task.start_in_turn()

    def _deliver(self, task: Task, signal: Any, *args: Any) -> None:
        if isValid(self) and task is self._task and not task.token.cancelled and not self._timer.isActive():
            signal.emit(*args)
