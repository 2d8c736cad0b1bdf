"""The measure dock's A/B mode on the firewall-VM example deployed in the local lab.

A = web01 -> web02 (same VLAN, direct), B = web01 -> app01 (routed through the firewall VM fw01), run back to
back with real sockperf/iperf3 in real namespaces, shown side by side in a real Qt window. The side-by-side
view is saved to $VNETBENCH_ARTIFACTS/measure-ab.png.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from vnetbench import resources_dir
from vnetbench.backends import backend_class
from vnetbench.gui.measure import MeasureDock
from vnetbench.gui.measure.ab import FILE, PAIR
from vnetbench.gui.workbench import Workbench
from vnetbench.measure import RunStatus
from vnetbench.model import load, save

pytestmark = [pytest.mark.gui, pytest.mark.lab, pytest.mark.slow]
ARTIFACTS = Path(os.environ.get("VNETBENCH_ARTIFACTS", "test-artifacts"))
EXAMPLE = resources_dir() / "examples" / "esx-firewall-vm.vnet.yaml"


@pytest.fixture
def deployed(tmp_path, monkeypatch):
    if os.geteuid() != 0 and not os.path.exists("/proc/self/ns/user"):
        pytest.skip("the local lab needs root or user namespaces")
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    backend = backend_class("local")({"state_dir": str(tmp_path / "lab")})
    design = load(EXAMPLE)
    design.id = f"ab-{uuid.uuid4().hex[:8]}"
    failed = [r.error for r in backend.apply(backend.plan(design)) if not r.ok]
    assert not failed, failed
    yield backend, design
    backend.teardown(design.id)


def make_dock(qtbot, backend, design) -> MeasureDock:
    dock = MeasureDock(Workbench(design))
    dock.backend = backend
    qtbot.addWidget(dock)
    dock.resize(1500, 760)
    dock.show()
    return dock


def ids(design, *names):
    by_name = {vm.name: vm.id for vm in design.vms}
    return [by_name[n] for n in names]


def set_ab(dock, design, kind, duration, b_pair=("web01", "app01")):
    dock.set_pair(*ids(design, "web01", "web02"))
    dock.kind_box.setCurrentIndex(dock.kind_box.findData(kind))
    dock.duration.setValue(duration)
    dock.ab.setChecked(True)
    dock.ab.set_mode(PAIR)
    for box, oid in zip((dock.ab.src_box, dock.ab.dst_box), ids(design, *b_pair)):
        box.setCurrentIndex(box.findData(oid))


def test_direct_vs_through_the_firewall_side_by_side(qtbot, deployed):
    backend, design = deployed
    dock = make_dock(qtbot, backend, design)
    set_ab(dock, design, "rr", 1.5)
    assert dock.ab.label_a.placeholderText() == "A web01→web02"
    assert dock.ab.label_b.placeholderText() == "B via fw01"

    sides: list[str] = []
    dock._bridge.side.connect(lambda n, label, _p: sides.append(label))
    with qtbot.waitSignal(dock.abFinished, timeout=60_000) as blocker:
        dock.ab.run_button.click()
        assert dock.running and not dock.ab.run_button.isEnabled()
    runs = blocker.args[0]
    assert [r.status for r in runs] == [RunStatus.OK, RunStatus.OK], [r.error for r in runs]
    assert sides == ["A web01→web02", "B via fw01"]                      # A then B, live plot per side
    a, b = runs
    assert (a.src_name, a.dst_name, b.src_name, b.dst_name) == ("web01", "web02", "web01", "app01")
    assert a.prediction.verdict == "in-host" and b.prediction.verdict == "in-host-routed"

    # the ratio comes from the two stored summaries
    stored_a, stored_b = dock.store.get(a.id), dock.store.get(b.id)
    expected = stored_b.summary["rtt_p50_us"] / stored_a.summary["rtt_p50_us"]
    assert dock.ab_ratio == pytest.approx(expected, rel=1e-12)   # (that the firewall VM adds a round trip is
    #                                               test_measure_lab's, over interleaved rounds: one round each
    #                                               can land on a busy moment of the other core)
    assert (stored_a.label, stored_b.label) == ("A web01→web02", "B via fw01")

    table = dock.ab_table
    assert table.isVisible() and table.height() > 100
    qtbot.waitUntil(lambda: not table.verticalScrollBar().isVisible(), timeout=2000)   # every row shows
    assert f"{expected:.3f}" in table.cell_text("B / A", 0)
    assert table.cell_text("Measured", 0) == f"{stored_a.summary['rtt_p50_us']:.4g} us"
    assert table.cell_text("Measured", 1) == f"{stored_b.summary['rtt_p50_us']:.4g} us"
    assert table.cell_text("Predicted", 0).startswith("in-host")
    assert table.cell_text("Predicted", 1).startswith("in-host-routed")

    history = [dock.history.item(i).text() for i in range(dock.history.count())]
    assert len(history) == 2
    assert any(f"#{a.id} " in t and "[A web01→web02]" in t for t in history)
    assert any(f"#{b.id} " in t and "[B via fw01]" in t for t in history)

    curves = dock.plot.getPlotItem().listDataItems()
    band = " p50, shaded p50 to p99"
    # each run named once, its pair once: A's label already names the pair, B's does not
    assert [c.name() for c in curves] == [f"#{a.id} A web01→web02{band}", f"#{b.id} web01→app01 B via fw01{band}"]
    assert curves[0].opts["pen"].color() != curves[1].opts["pen"].color()
    # each round trip is drawn as the p50 its table reports, not as its per-interval means
    assert [set(c.getData()[1]) for c in curves] == [{stored_a.summary["rtt_p50_us"]}, {stored_b.summary["rtt_p50_us"]}]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert dock.grab().save(str(ARTIFACTS / "measure-ab.png"))


def test_cancel_during_a_and_design_b_not_deployed(qtbot, deployed, tmp_path):
    backend, design = deployed
    dock = make_dock(qtbot, backend, design)
    set_ab(dock, design, "throughput", 60)
    with qtbot.waitSignal(dock.abFinished, timeout=30_000) as blocker:
        dock.ab.run_button.click()
        qtbot.waitUntil(lambda: len(dock.live) >= 2, timeout=15_000)
        dock.cancel_button.click()
    runs = blocker.args[0]
    assert len(runs) == 1 and runs[0].status == RunStatus.CANCELLED       # B never ran
    assert len(dock.live) < 60 / 0.5                                       # A ended long before its 60 s
    assert dock.history.count() == 0 and dock.ab.run_button.isEnabled()
    assert "B did not run" in dock.ab_table.cell_text("B / A", 0)

    other = load(EXAMPLE)
    other.id = f"ab-none-{uuid.uuid4().hex[:6]}"
    path = tmp_path / "other.vnet.yaml"
    save(other, path)
    dock.ab.set_mode(FILE)
    dock.ab.file.setText(str(path))
    assert dock.ab.label_b.placeholderText() == "B other.vnet.yaml"
    with qtbot.waitSignal(dock.abFinished, timeout=20_000) as blocker:
        dock.ab.run_button.click()
    text = dock.result.text()
    assert blocker.args[0] is None
    assert "variant B (other.vnet.yaml)" in text and "not deployed" in text and "deploy design B" in text
    assert "Traceback" not in text and dock.history.count() == 0

    dock.ab.file.setText(str(tmp_path / "missing.vnet.yaml"))
    with qtbot.waitSignal(dock.abFinished, timeout=20_000) as blocker:
        dock.ab.run_button.click()
    assert blocker.args[0] is None and "no such file" in dock.result.text()
