"""The worker plumbing the docks share: results, errors and progress arrive on the GUI thread; cancel works;
``Latest`` runs a burst of requests once and reports only the newest."""

from __future__ import annotations

import threading
import time

import pytest

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
