"""The designer's Measure dock takes the measure lock ``vnetbench measure`` takes (issue 33, item 7).

Real parts: a real Qt dock, the real local lab backend, real lock files, and a real second process (a lock
holder, or the ``vnetbench measure`` CLI). Nothing is deployed: the lock is taken before the prediction and
the backend's set-up, so a refused run says who holds the lock, never that the lab is missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from vnetbench import resources_dir
from vnetbench.backends import BackendError
from vnetbench.backends.locking import Busy
from vnetbench.gui.measure import MeasureDock
from vnetbench.gui.workbench import Workbench
from vnetbench.measure.runner import measure_locks
from vnetbench.model import load, save
from vnetbench_local import LocalLabBackend

pytestmark = pytest.mark.gui

EXAMPLE = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"
HOLD = ("import sys, time\nfrom vnetbench.measure.runner import measure_locks\n"
        "with measure_locks([sys.argv[1]]):\n    print('held', flush=True)\n    time.sleep(120)\n")


@pytest.fixture
def lab(tmp_path, monkeypatch):
    """A design file, the local lab backend of a lab folder of its own (nothing deployed), the environment."""
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(tmp_path / "lab"))
    design = load(EXAMPLE)
    design.id = f"lock-{os.getpid()}-{tmp_path.name}"[:60]
    path = tmp_path / "d.vnet.yaml"
    save(design, path)
    return design, path, LocalLabBackend({"state_dir": str(tmp_path / "lab")})


@pytest.fixture
def holder():
    """Start a process that holds the measure lock of a deployment; returns its PID. Stopped by its PID."""
    procs = []

    def start(deployment: str) -> int:
        proc = subprocess.Popen([sys.executable, "-c", HOLD, deployment], stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout.readline().strip() == "held"
        return proc.pid

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def make_dock(qtbot, design, backend) -> MeasureDock:
    dock = MeasureDock(Workbench(design))
    dock.backend = backend
    qtbot.addWidget(dock)
    by_name = {vm.name: vm.id for vm in design.vms}
    dock.set_pair(by_name["web01"], by_name["web02"])
    dock.kind_box.setCurrentIndex(dock.kind_box.findData("throughput"))
    return dock


def test_each_lab_is_its_own_deployment(tmp_path):
    """Keyed per deployment: two lab folders of one design are measured at once; one lab twice is not."""
    a = LocalLabBackend({"state_dir": str(tmp_path / "a")})
    b = LocalLabBackend({"state_dir": str(tmp_path / "b")})
    assert a.deployment("d1") != b.deployment("d1") != b.deployment("d2")
    assert a.deployment("d1") == LocalLabBackend({"state_dir": str(tmp_path / "a")}).deployment("d1")
    with measure_locks([a.deployment("d1")]), measure_locks([b.deployment("d1")]):
        with pytest.raises(Busy):
            measure_locks([a.deployment("d1")])


def test_the_dock_refuses_at_once_while_another_process_measures_and_names_it(qtbot, lab, holder, monkeypatch):
    design, _, backend = lab
    pid = holder(backend.deployment(design.id))
    dock = make_dock(qtbot, design, backend)
    predicted = []
    real_predict = dock.workbench.engine.predict
    monkeypatch.setattr(dock.workbench.engine, "predict", lambda *a, **k: predicted.append(a) or real_predict(*a, **k))
    dock.measure_button.click()
    assert not dock.running and dock.measure_button.isEnabled()
    text = dock.result.text()
    assert f"process {pid}" in text and "Another measurement of this deployment is running" in text, text
    assert predicted == [], "the prediction ran before the lock was taken"


def test_a_cli_measure_beside_a_running_dock_is_refused_and_the_lock_is_released_after(qtbot, lab):
    """The dock holds the lock from before its prediction to the end of its run: the CLI, started meanwhile,
    is refused (naming this process) before it predicts or sets anything up; afterwards the lock is free."""
    design, path, backend = lab
    release = threading.Event()

    def endpoint(topology, vm_id):  # the run's set-up: it waits here until the CLI has been refused
        release.wait(60)
        raise BackendError(f"{vm_id} is not deployed", "run `vnetbench lab up`")

    backend.endpoint = endpoint
    dock = make_dock(qtbot, design, backend)
    with qtbot.waitSignal(dock.runFinished, timeout=60_000) as finished:
        dock.measure_button.click()
        assert dock.running
        cli = subprocess.run([sys.executable, "-m", "vnetbench", "measure", str(path), "--from", "web01", "--to",
                              "web02", "--test", "throughput", "--duration", "1"],
                             capture_output=True, text=True, timeout=60, env=os.environ)
        release.set()
    assert finished.args == [None] and "is not deployed" in dock.result.text()
    assert cli.returncode == 3 and cli.stderr.count("\n") == 1, cli.stderr
    assert f"another measurement of this deployment is running (pid {os.getpid()})" in cli.stderr
    measure_locks([backend.deployment(design.id)]).close()  # released when the run ended


def test_the_cli_takes_the_lock_before_predicting(lab, holder):
    """A second CLI measure of a deployment is refused first thing, not after its prediction and set-up."""
    design, path, backend = lab
    pid = holder(backend.deployment(design.id))
    cli = subprocess.run([sys.executable, "-m", "vnetbench", "measure", str(path), "--from", "web01", "--to",
                          "web02", "--test", "rr", "--duration", "1"],
                         capture_output=True, text=True, timeout=60, env=os.environ)
    assert cli.returncode == 3 and cli.stderr.count("\n") == 1, cli.stderr
    assert f"another measurement of this deployment is running (pid {pid})" in cli.stderr
