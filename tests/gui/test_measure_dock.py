"""The measure dock on the ESX example deployed in the local lab: live plot, cancel, history overlay, export.

Real parts: a real Qt window, real namespaces, real iperf3. Screenshots of the live plot during a run and of
an overlay of two runs go to $VNETBENCH_ARTIFACTS (default test-artifacts/).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from vnetbench import resources_dir
from vnetbench.backends import backend_class
from vnetbench.gui.measure import MeasureDock
from vnetbench.gui.workbench import Workbench
from vnetbench.measure import RunStatus, RunStore
from vnetbench.model import load

pytestmark = [pytest.mark.gui, pytest.mark.lab, pytest.mark.slow]
ARTIFACTS = Path(os.environ.get("VNETBENCH_ARTIFACTS", "test-artifacts"))


@pytest.fixture
def deployed(tmp_path, monkeypatch):
    if os.geteuid() != 0 and not os.path.exists("/proc/self/ns/user"):
        pytest.skip("the local lab needs root or user namespaces")
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    backend = backend_class("local")({"state_dir": str(tmp_path / "lab")})
    design = load(resources_dir() / "examples" / "esx-four-cases.vnet.yaml")
    design.id = f"mg-{uuid.uuid4().hex[:8]}"
    failed = [r.error for r in backend.apply(backend.plan(design)) if not r.ok]
    assert not failed, failed
    yield backend, design
    backend.teardown(design.id)


def make_dock(qtbot, backend, design) -> MeasureDock:
    wb = Workbench(design)
    dock = MeasureDock(wb)
    dock.backend = backend
    qtbot.addWidget(dock)
    dock.resize(1400, 520)
    dock.show()
    return dock


def ids(design, *names):
    by_name = {vm.name: vm.id for vm in design.vms}
    return [by_name[n] for n in names]


def run_test(qtbot, dock, kind="throughput", duration=3.0, timeout=40_000):
    dock.kind_box.setCurrentIndex(dock.kind_box.findData(kind))
    dock.duration.setValue(duration)
    with qtbot.waitSignal(dock.runFinished, timeout=timeout) as blocker:
        dock.measure_button.click()
    return blocker.args[0]


def test_live_plot_history_overlay_and_export(qtbot, deployed, tmp_path):
    backend, design = deployed
    dock = make_dock(qtbot, backend, design)
    dock.workbench.request_pair(*ids(design, "web01", "web02"))
    assert (dock.src_box.currentText(), dock.dst_box.currentText()) == ("web01", "web02")

    shown: list[int] = []           # how many live points the GUI thread saw at each timer tick
    timer = QTimer()
    timer.timeout.connect(lambda: shown.append(len(dock.live)))
    timer.start(50)
    dock.kind_box.setCurrentIndex(dock.kind_box.findData("throughput"))
    dock.duration.setValue(4.0)
    with qtbot.waitSignal(dock.runFinished, timeout=40_000) as blocker:
        dock.measure_button.click()
        assert dock.running and not dock.measure_button.isEnabled()
        qtbot.waitUntil(lambda: len(dock.live) >= 4, timeout=20_000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert dock.grab().save(str(ARTIFACTS / "measure-live.png"))
        assert len(dock.plot.live_curve.getData()[0]) >= 4
    timer.stop()
    first = blocker.args[0]
    assert first.status == RunStatus.OK and first.id is not None
    assert len(dock.live) >= 7                                   # iperf3's 0.5 s intervals over 4 s
    # incremental: the GUI thread kept serving its timer while the points came, and saw them arrive one by one
    assert len({n for n in shown if 0 < n < len(dock.live)}) >= 4
    text = dock.result.text()
    assert "Mbit/s received" in text and "predicted in-host" in text and "CONTRADICTION" not in text

    dock.set_pair(*ids(design, "web01", "bak01"))
    second = run_test(qtbot, dock, duration=3.0)
    assert second.status == RunStatus.OK and second.prediction.verdict == "via-physical"
    assert first.summary["throughput_mbps"] > 3 * second.summary["throughput_mbps"]
    assert dock.history.count() == 2

    dock.select_runs([first.id, second.id])
    curves = dock.plot.getPlotItem().listDataItems()
    assert len(curves) == 2
    assert {len(c.getData()[0]) for c in curves} == {len(first.samples), len(second.samples)}
    assert "overlay" in dock.plot.getPlotItem().titleLabel.text
    dock.grab().save(str(ARTIFACTS / "measure-overlay.png"))

    dock.select_runs([second.id])
    out = tmp_path / "second.csv"
    dock.export_selected(str(out))
    other = RunStore(tmp_path / "other.sqlite")
    back = other.get(other.import_file(out))
    assert back.summary == second.summary and len(back.samples) == len(second.samples)


def test_cancel_and_failures_are_reported(qtbot, deployed, tmp_path):
    backend, design = deployed
    dock = make_dock(qtbot, backend, design)
    dock.set_pair(*ids(design, "web01", "db01"))
    dock.kind_box.setCurrentIndex(dock.kind_box.findData("throughput"))
    dock.duration.setValue(60)
    with qtbot.waitSignal(dock.runFinished, timeout=20_000) as blocker:
        dock.measure_button.click()
        qtbot.waitUntil(lambda: len(dock.live) >= 2, timeout=15_000)
        dock.cancel_button.click()
    assert blocker.args[0].status == RunStatus.CANCELLED and len(dock.live) < 60 / 0.5   # ended before 60 s
    assert dock.history.count() == 0 and dock.measure_button.isEnabled()

    undeployed = load(resources_dir() / "examples" / "esx-four-cases.vnet.yaml")
    undeployed.id = f"mg-none-{uuid.uuid4().hex[:6]}"
    other = make_dock(qtbot, backend, undeployed)
    other.set_pair(*ids(undeployed, "web01", "web02"))
    with qtbot.waitSignal(other.runFinished, timeout=20_000) as blocker:
        other.measure_button.click()
    assert blocker.args[0] is None and "not deployed" in other.result.text()
