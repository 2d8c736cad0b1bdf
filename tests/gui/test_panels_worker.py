"""The worker plumbing the docks share: results, errors and progress arrive on the GUI thread; cancel works;
``Latest`` runs a burst of requests once and reports only the newest."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from PySide6.QtCore import QTimer

from vnetbench.backends import BackendError, Cancelled
from vnetbench.gui.worker import Latest, Task

pytestmark = pytest.mark.gui


def test_task_delivers_progress_and_result_on_the_gui_thread(qtbot):
    gui = threading.get_ident()
    seen = []

    def work(progress, cancel):
        for i in range(3):
            progress(i, 3, f"step {i}")
        return threading.get_ident()

    task = Task(work)
    task.progress.connect(lambda done, total, msg: seen.append((done, msg, threading.get_ident() == gui)))
    with qtbot.waitSignal(task.succeeded, timeout=5000) as result:
        task.start()
    assert result.args[0] != gui, "the work ran on another thread"
    assert seen == [(0, "step 0", True), (1, "step 1", True), (2, "step 2", True)]
    assert not task.running


def test_task_delivers_errors_and_cancels(qtbot):
    failing = Task(lambda progress, cancel: (_ for _ in ()).throw(BackendError("no lab", "start it")))
    with qtbot.waitSignal(failing.failed, timeout=5000) as error:
        failing.start()
    assert isinstance(error.args[0], BackendError) and error.args[0].hint == "start it"

    started = threading.Event()

    def endless(progress, cancel):
        started.set()
        while True:
            cancel.check()
            time.sleep(0.005)

    task = Task(endless)
    with qtbot.waitSignal(task.failed, timeout=5000) as stopped:
        task.start()
        assert started.wait(5)
        task.cancel()
    assert isinstance(stopped.args[0], Cancelled)


def test_latest_coalesces_a_burst_and_reports_the_newest(qtbot):
    runner = Latest(50)
    builds, results = [], []
    runner.succeeded.connect(results.append)
    for n in range(5):
        runner.schedule(lambda n=n: builds.append(n) or (lambda progress, cancel: n * 10))
    qtbot.waitUntil(lambda: bool(results), timeout=5000)
    qtbot.wait(100)
    assert builds == [4] and results == [40]

    # A run overtaken by a newer request is not reported.
    gate = threading.Event()
    runner.schedule(lambda: lambda progress, cancel: gate.wait(5) and "old", delay_ms=0)
    qtbot.waitUntil(lambda: runner._task is not None and runner._task.running, timeout=5000)
    runner.schedule(lambda: lambda progress, cancel: "new", delay_ms=0)
    gate.set()
    qtbot.waitUntil(lambda: results[-1] == "new", timeout=5000)
    qtbot.wait(100)
    assert results == [40, "new"]

    # A one-off delay does not replace the debounce delay.
    runner.schedule(lambda: lambda progress, cancel: "later")
    assert runner._timer.remainingTime() > 20


def test_latest_waits_while_the_background_is_held(qtbot):
    """While a just-opened design is drawn the docks' recomputations wait, then run once it is released."""
    from vnetbench.gui.worker import background_hold

    runner = Latest(10)
    builds, results = [], []
    runner.succeeded.connect(results.append)
    hold = background_hold()
    hold.hold()
    try:
        runner.schedule(lambda: builds.append(1) or (lambda progress, cancel: "done"))
        qtbot.wait(200)
        assert builds == [] and results == [], "started while held"
    finally:
        hold.release()
    qtbot.waitUntil(lambda: results == ["done"], timeout=5000)
    assert builds == [1]


def test_runs_started_together_start_their_threads_one_a_turn(qtbot):
    """``Latest`` runs due in the same turn (the docks after one edit, or after an open) start their threads on
    turns of their own: starting a thread waits for it to run, and the starts behind computing threads add up."""
    gate = threading.Event()
    runners = [Latest(0) for _ in range(3)]
    reported = []
    for runner in runners:
        runner.succeeded.connect(reported.append)
    started_by_turn: list[int] = []

    def alive() -> int:
        return sum(t.name == "vnetbench-task" and t.is_alive() for t in threading.enumerate())

    before = alive()

    def turn() -> None:   # a zero timer queued behind the starts: it runs once each turn
        started_by_turn.append(alive() - before)
        if len(started_by_turn) < 5:
            QTimer.singleShot(0, turn)

    def due() -> None:   # the runners' timers have fired, in this turn: none has started its thread yet
        assert all(r.busy for r in runners) and alive() == before
        QTimer.singleShot(0, turn)

    try:
        for runner in runners:
            runner.schedule(lambda: lambda progress, cancel: gate.wait(5) and "done")
        QTimer.singleShot(0, due)
        qtbot.waitUntil(lambda: len(started_by_turn) == 5, timeout=5000)
        assert started_by_turn[-1] == 3
        assert all(b - a <= 1 for a, b in zip([0, *started_by_turn], started_by_turn)), started_by_turn
    finally:
        gate.set()
    qtbot.waitUntil(lambda: len(reported) == 3, timeout=5000)
    assert reported == ["done"] * 3


def test_the_designer_hands_the_interpreter_lock_over_often():
    """The designer's process switches threads every ``SWITCH_INTERVAL`` (not Python's 5 ms): every call the
    event loop makes into Python waits for the lock at most that long while a worker computes."""
    from vnetbench.gui.app import SWITCH_INTERVAL, share_the_interpreter

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        share_the_interpreter()
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL) and SWITCH_INTERVAL < 0.005
    finally:
        sys.setswitchinterval(before)
