"""The matrix dock: all pairs by verdict, lazily, computed off the GUI thread even for 1,000 VMs."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QElapsedTimer, Qt, QTimer

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
    """A 2 ms timer keeps ticking from before the matrix starts until its result is shown: the longest gap
    between ticks is how long the GUI thread was unavailable. (Counting ticks *during* the computation would
    depend on how fast the machine computes; the gap does not.)"""
    threads = []
    real_compute = matrix_panel.compute
    monkeypatch.setattr(matrix_panel, "compute",
                        lambda *args: threads.append(threading.current_thread()) or real_compute(*args))
    design = many_vms(1000)
    wb = Workbench(design)
    ticks: list[int] = []
    dock = MatrixDock(wb)
    qtbot.addWidget(dock)
    timer = QTimer(dock)  # dies with the dock
    timer.setInterval(2)
    clock = QElapsedTimer()
    timer.timeout.connect(lambda: ticks.append(clock.elapsed()))
    clock.start()
    progress = []
    dock._runner.progress.connect(lambda done, total, msg: progress.append((done, total)))
    timer.start()
    try:
        qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=120000)
    finally:
        timer.stop()

    assert threads and threading.main_thread() not in threads, "the matrix must be computed off the GUI thread"
    longest_stall = max(b - a for a, b in zip(ticks, ticks[1:]))
    assert longest_stall < 250, f"the GUI thread was blocked for {longest_stall} ms while the matrix computed"
    assert progress[0] == (0, 3) and progress[-1] == (3, 3)
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
