"""Issue 32: a large design is read, laid out and validated in a child process, so the designer's GUI thread
never waits for the interpreter lock that work would hold (``gui.offload``); cancelling ends the child, and a
bad large file still gives a clear message. The times are ``tests/bench/bench_open.py``'s."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from vnetbench.backends import Cancelled
from vnetbench.gui import jobs, offload
from vnetbench.gui.panels import problems as problems_panel
from vnetbench.gui.panels.problems import ProblemsDock
from vnetbench.gui.worker import Task
from vnetbench.gui.workbench import Workbench

pytestmark = pytest.mark.gui

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "bench"))
from generate import generate  # noqa: E402


def test_work_runs_in_a_child_process_kept_for_the_next_call():
    first = offload.in_process(os.getpid)
    assert first != os.getpid()
    assert offload.in_process(os.getpid) == first, "the child is kept for the next call"


def test_cancel_ends_the_child_and_the_next_call_starts_another(qtbot):
    pid = offload.in_process(os.getpid)
    task = Task(lambda progress, cancel: offload.in_process(time.sleep, 600, cancel=cancel))
    errors: list[BaseException] = []
    task.failed.connect(errors.append)
    task.start()
    qtbot.wait(300)
    with qtbot.waitSignal(task.finished, timeout=10_000):
        task.cancel()
    assert len(errors) == 1 and isinstance(errors[0], Cancelled)
    # time.sleep has a lane of its own: os.getpid's child was not touched, and sleep's was ended
    assert offload.in_process(os.getpid) == pid
    assert offload.in_process(time.sleep, 0) is None


def test_a_failure_comes_back_with_its_message(tmp_path):
    bad = tmp_path / "bad.vnet.json"
    bad.write_text('{"vms": 3}')
    with pytest.raises(Exception, match="bad.vnet.json: format_version") as raised:
        offload.in_process(jobs.read_and_lay_out, str(bad))
    assert "Traceback" not in str(raised.value)


def test_a_large_bad_file_gives_a_clear_message(window, qtbot, tmp_path):
    bad = tmp_path / "broken.vnet.json"
    bad.write_text('{"format_version": 1, "vms": [' + '{"id": "vm", "name": "x"}, ' * 40_000 + "\n")
    assert bad.stat().st_size >= 512 * 1024   # opened in the background
    with qtbot.waitSignal(window.opener.failed, timeout=60_000) as failed:
        assert window.open_file(str(bad))
    message = failed.args[0]
    assert "broken.vnet.json" in message and "Traceback" not in message
    assert any(q.startswith("Cannot open the design: ") for q in window.questions)


def test_a_large_design_is_validated_in_the_child(qtbot, monkeypatch):
    calls: list[object] = []

    def in_process(fn, *args, **kwargs):
        calls.append(fn)
        return original(fn, *args, **kwargs)
    original = problems_panel.in_process
    monkeypatch.setattr(problems_panel, "in_process", in_process)
    design = generate(1500, 75, seed=5)
    design.vms[0].vnics[0].network = "pg-missing"
    workbench = Workbench(design)
    assert len(workbench.snapshot_bytes()) >= offload.LARGE_BYTES
    dock = ProblemsDock(workbench)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: any("pg-missing" in p.message for p in dock.problems), timeout=60_000)
    assert calls and all(fn is jobs.check_pickled for fn in calls)


def test_a_small_design_is_validated_in_a_thread(qtbot, monkeypatch):
    monkeypatch.setattr(problems_panel, "in_process", lambda *a, **k: pytest.fail("a small design went to a child"))
    design = generate(20, 2, seed=6)
    dock = ProblemsDock(Workbench(design))
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.summary.text() != "Checking…", timeout=10_000)
