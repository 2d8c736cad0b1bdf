"""The matrix dock: all pairs by verdict, lazily, computed off the GUI thread even for 1,000 VMs."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer

from panel_designs import many_vms, two_hosts_via_switch
from vnetbench.gui.colors import VERDICT_COLORS
from vnetbench.gui.panels import matrix as matrix_panel
from vnetbench.gui.panels.matrix import MatrixDock
from vnetbench.gui.workbench import Workbench
from vnetbench.predict import Verdict, predict

pytestmark = pytest.mark.gui


def _cell(dock, src, dst):
    model = dock.model
    return model.index(model.visible.index(src), model.visible.index(dst))


def test_small_matrix_dimensions_colours_and_click(qtbot):
    design = two_hosts_via_switch()
    wb = Workbench(design)
    dock = MatrixDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=10000)

    model = dock.model
    assert (model.rowCount(), model.columnCount()) == (3, 3)
    for src in ("vm-a", "vm-b", "vm-c"):
        for dst in ("vm-a", "vm-b", "vm-c"):
            index = _cell(dock, src, dst)
            brush = model.data(index, Qt.ItemDataRole.BackgroundRole)
            if src == dst:
                assert brush is None
                continue
            expected = predict(design, src, dst).verdict
            assert brush.color().name().lower() == VERDICT_COLORS[expected].lower()
    assert model.headerData(2, Qt.Orientation.Horizontal) == "vm-c"

    requested = []
    wb.pairRequested.connect(lambda s, d: requested.append((s, d)))
    dock.view.clicked.emit(_cell(dock, "vm-a", "vm-c"))
    assert requested == [("vm-a", "vm-c")]


def test_filters_by_name_and_verdict(qtbot):
    wb = Workbench(two_hosts_via_switch())
    dock = MatrixDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=10000)
    dock.filter.setText("-C")
    assert dock.model.visible == ["vm-c"]
    dock.filter.clear()
    dock.verdict_filter.setCurrentIndex(dock.verdict_filter.findData(Verdict.IN_HOST))
    assert dock.model.visible == ["vm-a", "vm-b"]
    assert dock.model.data(_cell(dock, "vm-a", "vm-b"), Qt.ItemDataRole.BackgroundRole) is not None


def test_matrix_recomputes_after_an_edit(qtbot):
    wb = Workbench(two_hosts_via_switch())
    dock = MatrixDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=10000)
    before = dock.result
    wb.document.set(wb.topology.switches[0].portgroups[1], "vlan", 30)
    qtbot.waitUntil(lambda: dock.result is not before and not dock.computing, timeout=10000)
    assert dock.result.matrix.verdict("vm-a", "vm-b") == Verdict.UNREACHABLE


def test_thousand_vms_keep_the_gui_thread_responsive(qtbot, monkeypatch):
    """The matrix is computed on a worker that waits, before it computes, for the GUI thread to serve a timer:
    computed on the GUI thread it would wait in vain. (The longest stall is bench_panels.py's figure.)"""
    threads = []
    served: list[bool] = []
    computing, gui_turned = threading.Event(), threading.Event()
    real_compute = matrix_panel.compute

    def compute(*args):
        threads.append(threading.current_thread())
        computing.set()
        served.append(gui_turned.wait(30))
        return real_compute(*args)

    monkeypatch.setattr(matrix_panel, "compute", compute)
    design = many_vms(1000)
    wb = Workbench(design)
    dock = MatrixDock(wb)
    qtbot.addWidget(dock)
    timer = QTimer(dock)  # dies with the dock
    timer.setInterval(2)
    timer.timeout.connect(lambda: computing.is_set() and gui_turned.set())
    progress = []
    dock.prediction.progress.connect(lambda done, total, msg: progress.append((done, total)))
    timer.start()
    try:
        qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=120000)
    finally:
        timer.stop()

    assert threads and threading.main_thread() not in threads, "the matrix must be computed off the GUI thread"
    assert served and all(served), "the GUI thread's event loop kept turning while the matrix computed"
    assert progress[0] == (0, 4) and progress[-1] == (4, 4)
    model = dock.model
    assert (model.rowCount(), model.columnCount()) == (1000, 1000)
    # VMs i and j share a segment exactly when they sit on the same host and VLAN (many_vms' layout).
    for i, j in ((0, 40), (0, 1), (3, 13), (7, 47), (999, 959), (5, 6)):
        same = i % 10 == j % 10 and (i // 10) % 4 == (j // 10) % 4
        expected = Verdict.IN_HOST if same else Verdict.UNREACHABLE
        brush = model.data(model.index(i, j), Qt.ItemDataRole.BackgroundRole)
        assert brush.color().name().lower() == VERDICT_COLORS[expected].lower(), (i, j)


def test_clicking_a_cell_shows_that_path_in_the_path_dock(qtbot):
    from vnetbench.gui.panels.path import PathDock

    wb = Workbench(two_hosts_via_switch())
    matrix, path = MatrixDock(wb), PathDock(wb)
    qtbot.addWidget(matrix)
    qtbot.addWidget(path)
    matrix.show()
    qtbot.waitUntil(lambda: matrix.result is not None and not matrix.computing, timeout=10000)
    rect = matrix.view.visualRect(_cell(matrix, "vm-c", "vm-a"))
    qtbot.mouseClick(matrix.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert (path.src.current_id(), path.dst.current_id()) == ("vm-c", "vm-a")
    assert path.prediction.verdict == matrix.result.matrix.verdict("vm-c", "vm-a") == Verdict.VIA_PHYSICAL
    assert wb.path is path.prediction


def test_rule_edit_on_2000_microsegmented_vms_is_incremental_and_keeps_the_window_responsive(qtbot):
    """A DFW rule per VM plus 300 shared rules on 2,000 VMs: the matrix and what-if docks share one engine
    that takes an edited rule in incrementally, on a worker thread, while the GUI thread keeps serving
    events; the kept matrix equals a fresh engine's. (The longest stall is bench_panels.py's figure.)"""
    import copy
    import sys

    import numpy as np

    from vnetbench.gui.panels.whatif import WhatIfDock
    from vnetbench.model.objects import Action, DfwRule
    from vnetbench.predict import Engine

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from generate import microseg

    design = microseg(2000, 100)
    wb = Workbench(design)
    matrix, whatif = MatrixDock(wb), WhatIfDock(wb)
    qtbot.addWidget(matrix)
    qtbot.addWidget(whatif)
    qtbot.waitUntil(lambda: matrix.result is not None and not matrix.computing, timeout=120000)
    engine = matrix.prediction.live._engine
    builder = engine._builder
    before, summary = matrix.result, whatif.summary.text()

    delivered = before.matrix.table[np.ix_(before.matrix.classes, before.matrix.classes)] < 4   # codes 0-3
    np.fill_diagonal(delivered, False)
    vm_id = before.matrix.endpoints[int(delivered.sum(axis=0).argmax())]     # the VM most others reach
    vm = next(vm for vm in design.vms if vm.id == vm_id)
    quarantine = DfwRule(Action.DENY, "any", vm.id, name="quarantine", applied_to=[vm.id])
    threads: list[int] = []
    served: list[bool] = []
    gui_turned = threading.Event()
    update = engine.matrix

    def spy(*args, **kwargs):
        threads.append(threading.get_ident())
        served.append(gui_turned.wait(30))   # the GUI thread must serve a timer while this update runs
        return update(*args, **kwargs)

    engine.matrix = spy
    wb.document.insert(design.nsx.dfw, "rules", quarantine, 0)
    QTimer.singleShot(0, gui_turned.set)
    qtbot.waitUntil(lambda: matrix.result is not before and whatif.summary.text() != summary
                    and not matrix.computing, timeout=90000)
    assert threads and threading.main_thread().ident not in threads, "the edit is taken in on a worker thread"
    assert served and all(served), "the GUI thread kept serving events while the matrix was updated"

    assert matrix.prediction.live._engine is engine and engine._builder is builder, "taken in incrementally"
    kept, fresh = matrix.result.matrix, Engine(copy.deepcopy(design)).matrix()
    assert kept.endpoints == fresh.endpoints
    grid = lambda m: m.table[np.ix_(m.classes, m.classes)]  # noqa: E731
    assert (grid(kept) == grid(fresh)).all()
    assert whatif.changes and all(c.dst == vm.id and c.after == Verdict.BLOCKED for c in whatif.changes)
    assert all(c.what[0].startswith("DFW rule 'quarantine' added: now blocked") for c in whatif.changes)


def test_the_column_header_measures_only_the_longest_names(qtbot, monkeypatch):
    """Issue 29: measuring 10,000 names took the window 40 ms on every update. The header measures the
    ``MEASURED`` names longest in characters, and is as tall as the widest of all needs."""
    header = matrix_panel.RotatedHeader()
    qtbot.addWidget(header)
    names = [f"vm{i:05d}" for i in range(10_000)] + ["a-much-longer-name-than-the-rest"]
    measured: list[str] = []
    real = header.fontMetrics()

    class Counting:
        def horizontalAdvance(self, text: str) -> int:
            measured.append(text)
            return real.horizontalAdvance(text)
    monkeypatch.setattr(header, "fontMetrics", lambda: Counting())
    header.fit(names)
    assert len(measured) == matrix_panel.MEASURED and "a-much-longer-name-than-the-rest" in measured
    widest = max(real.horizontalAdvance(n) for n in names)
    assert header.sizeHint().height() == max(matrix_panel.CELL, min(matrix_panel.HEADER_HEIGHT, widest + 12))


def test_pairs_that_depend_on_the_uplink_are_marked_with_a_legend(qtbot):
    """esx-teaming-half-lost: the unpinned app VMs towards db01 are the worst of two uplinks, so their cells carry
    the mark and the dock explains it in a legend line; a pinned VM's cell and in-host cells do not."""
    from canvas_helpers import artifacts

    from vnetbench import resources_dir
    from vnetbench.model import load
    from vnetbench.predict.uplinkmarks import MARK

    wb = Workbench(load(resources_dir() / "examples" / "esx-teaming-half-lost.vnet.yaml"))
    dock = MatrixDock(wb)
    qtbot.addWidget(dock)
    dock.resize(520, 300)
    dock.show()
    qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=10000)
    shown = {(s, d): dock.model.data(_cell(dock, s, d)) for s in dock.model.visible for d in dock.model.visible
             if s != d}
    marked = {pair for pair, text in shown.items() if MARK in text}
    assert marked == {("vm-app01", "vm-db01"), ("vm-app02", "vm-db01"), ("vm-db01", "vm-app01"),
                      ("vm-db01", "vm-app02")}
    tip = dock.model.data(_cell(dock, "vm-app01", "vm-db01"), Qt.ItemDataRole.ToolTipRole)
    assert "depends on the uplink chosen at run time" in tip
    assert dock.legend.isVisible() and "depends on the uplink chosen at run time" in dock.legend.text()
    qtbot.wait(100)
    assert dock.grab().save(str(artifacts() / "matrix-uplink-marks.png"))


def test_no_legend_without_teaming(qtbot):
    wb = Workbench(two_hosts_via_switch())
    dock = MatrixDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=10000)
    assert dock.legend.isHidden()
