"""The panels follow the design in view: the inspector, the stored runs (this design's, or all with a toggle)
and, in test_panels_deploy, the deploy list. Also the path dock's reasons, where the eye goes."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QPointF

from panel_designs import two_vms_one_switch
from vnetbench import resources_dir
from vnetbench.gui.measure import MeasureDock
from vnetbench.gui.panels.path import PathDock
from vnetbench.gui.workbench import Workbench
from vnetbench.measure import Run, RunStore, Sample, TestKind, TestSpec
from vnetbench.model import load

pytestmark = pytest.mark.gui
EXAMPLE = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"


def stored_run(design: str, src: str) -> Run:
    now = time.time()
    return Run(spec=TestSpec(TestKind.THROUGHPUT, duration=1.0), src=src, dst="b", src_name=src, dst_name="b",
               tool="iperf3", commands=["iperf3 -c b"], samples=[Sample(0.5, 900.0)],
               summary={"throughput_mbps": 900.0}, started=now, ended=now + 1, design_name=design,
               design_digest=f"digest-{design}")


def test_stored_runs_are_the_open_designs_with_a_toggle_for_all(qtbot, tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    mine = [store.add(stored_run("two VMs", "vm-a")), store.add(stored_run("two VMs", "vm-b"))]
    theirs = store.add(stored_run("someone else's design", "x"))
    wb = Workbench(two_vms_one_switch())
    dock = MeasureDock(wb, store=store)
    qtbot.addWidget(dock)
    assert sorted(dock.runs.shown_ids()) == sorted(mine)
    assert "this design" in dock.runs.heading.text()
    dock.runs.all_designs.setChecked(True)
    assert sorted(dock.runs.shown_ids()) == sorted([*mine, theirs])
    dock.runs.all_designs.setChecked(False)
    other = two_vms_one_switch()
    other.name = "someone else's design"
    wb.replace_design(other)  # opening another design: its runs at once
    assert dock.runs.shown_ids() == [theirs]


def test_the_inspector_follows_the_opened_design_at_once(window, qtbot):
    win = window
    win.view.drop("host-esxi", QPointF(0, 0))
    win.open_file(str(EXAMPLE))
    qtbot.waitUntil(lambda: "four vSwitch" in win.inspector.heading.text(), timeout=1000)
    assert win.inspector.obj is win.workbench.topology


def test_the_path_dock_shows_every_reason_first_and_whole(qtbot):
    design = load(EXAMPLE)
    web01 = next(vm for vm in design.vms if vm.name == "web01")
    web01.vnics[0].gateway = "10.30.0.99"  # a gateway nothing in the design has
    wb = Workbench(design)
    dock = PathDock(wb)
    qtbot.addWidget(dock)
    dock.resize(340, 420)  # a short dock: the body scrolls, nothing is cut off
    dock.show()
    dock.show_pair(web01.id, next(vm.id for vm in design.vms if vm.name == "db01"))
    prediction = dock.prediction
    assert str(prediction.verdict) == "unreachable"
    text = dock.details.text()
    reasons = list(dict.fromkeys([*prediction.reasons, *prediction.forward.reasons]))
    assert reasons and all(r.replace("'", "&#x27;") in text or r in text for r in reasons)
    assert any("10.30.0.99" in r for r in reasons)  # the decisive sentence
    assert text.startswith("<b>Why:</b>")  # the reasons come first
    qtbot.wait(50)
    assert dock.details.y() < dock.hops.y()  # above the hop list, not under a splitter
    assert dock.details.height() >= dock.details.heightForWidth(dock.details.width()) - 2  # shown whole
