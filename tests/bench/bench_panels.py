"""Benchmark of the side panels on large designs; prints figures, asserts nothing.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench_panels.py [VMS ...]

For each size: how long the matrix takes on its worker thread, the longest the GUI thread went without
running a 5 ms timer meanwhile (what a user would feel as a freeze), and how long the path dock takes on the
GUI thread to update after a VLAN edit. Then, on 2,000 microsegmented VMs (a DFW rule per VM), the longest
GUI-thread gap from a DFW rule edit until the matrix and what-if docks show the result (target: 100 ms; the
GUI test checks only that the work runs on a worker thread while the GUI thread serves events).
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QTimer
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gui"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import microseg  # noqa: E402
from panel_designs import many_vms  # noqa: E402
from vnetbench.gui.panels.matrix import MatrixDock  # noqa: E402
from vnetbench.gui.panels.path import PathDock  # noqa: E402
from vnetbench.gui.panels.whatif import WhatIfDock  # noqa: E402
from vnetbench.gui.workbench import Workbench  # noqa: E402


def wait(app: QApplication, done, limit: float = 600.0) -> None:
    end = time.monotonic() + limit
    while not done() and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.001)


def bench(app: QApplication, vms: int) -> None:
    gc.collect()  # the previous size's garbage must not be collected (and timed) during this one
    wb = Workbench(many_vms(vms))
    start = time.perf_counter()
    matrix = MatrixDock(wb)
    gap, _, _ = longest_gap(app, lambda: matrix.result is not None and not matrix.computing)
    matrix_s = time.perf_counter() - start

    path = PathDock(wb)
    path.show_pair(wb.topology.vms[0].id, wb.topology.vms[40].id)
    pg = wb.topology.switches[0].portgroups[0]
    t0 = time.perf_counter()
    wb.document.set(pg, "vlan", 99)
    edit_ms = (time.perf_counter() - t0) * 1000
    verdict = path.prediction.verdict if path.prediction else "-"
    matrix.deleteLater()
    path.deleteLater()
    print(f"{vms:6} VMs  matrix {matrix_s:6.2f} s on a worker ({vms * (vms - 1):,} pairs)  "
          f"longest GUI-thread gap {gap:4} ms  "
          f"path update after a VLAN edit {edit_ms:6.1f} ms (verdict {verdict})")


def longest_gap(app: QApplication, done) -> tuple[int, float, float]:
    """Turn the event loop until ``done()`` with a 2 ms timer: the longest gap between its ticks (ms), and the
    wall and CPU seconds it took."""
    gaps: list[int] = []
    clock = QElapsedTimer()
    last = [0]

    def tick() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(2)
    timer.timeout.connect(tick)
    wall, cpu = time.perf_counter(), time.process_time()
    clock.start()
    timer.start()
    wait(app, done)
    timer.stop()
    return max(gaps, default=0), time.perf_counter() - wall, time.process_time() - cpu


def bench_rule_edit(app: QApplication, vms: int = 2000) -> None:
    from vnetbench.model.objects import Action, DfwRule

    gc.collect()
    design = microseg(vms, 100)
    wb = Workbench(design)
    matrix, whatif = MatrixDock(wb), WhatIfDock(wb)
    wait(app, lambda: matrix.result is not None and not matrix.computing)
    before, summary = matrix.result, whatif.summary.text()
    vm = design.vms[len(design.vms) // 2]
    wb.document.insert(design.nsx.dfw, "rules", DfwRule(Action.DENY, "any", vm.id, name="quarantine",
                                                        applied_to=[vm.id]), 0)
    gap, wall, cpu = longest_gap(app, lambda: matrix.result is not before and not matrix.computing
                                 and whatif.summary.text() != summary)
    print(f"{vms:6} microsegmented VMs  DFW rule edit to both docks updated: {wall * 1000:6.0f} ms wall, "
          f"{cpu * 1000:6.0f} ms CPU (both threads); longest GUI-thread gap {gap:4} ms (target 100)")
    matrix.deleteLater()
    whatif.deleteLater()


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    sizes = [int(a) for a in sys.argv[1:]] or [100, 1000, 2000]
    for vms in sizes:
        bench(app, vms)
    bench_rule_edit(app)


if __name__ == "__main__":
    main()
