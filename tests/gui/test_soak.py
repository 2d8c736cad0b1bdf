"""A minute of continuous use: nodes moving, undo and redo, zooming, paths shown, repaints.

PySide6 6.12.0 on CPython 3.11 corrupted a reference count in long sessions and the process aborted; we pin
6.11.x there. This test is what would catch such a trap again: the process must stay alive and its memory
must level off (the undo history is capped, so nothing should grow without bound).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF

from vnetbench import resources_dir

pytestmark = [pytest.mark.gui, pytest.mark.slow]

#: frames of use; about a minute on a quiet machine (the loop waits 5 ms a frame), longer on a loaded one
FRAMES = 4000
#: the frame after which memory should have levelled off
WARM = 1000


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def test_gui_survives_a_minute_of_animation_with_bounded_memory(window, qtbot):
    win = window
    assert win.open_example(str(resources_dir() / "examples" / "esx-four-cases.vnet.yaml"))
    rnd = random.Random(7)
    topo = win.workbench.topology
    movable = [vm.id for vm in topo.vms] + [ps.id for ps in topo.physical_switches]
    vms = [vm.id for vm in topo.vms]
    stack = win.workbench.undo_stack
    samples: list[tuple[int, float]] = []
    for ticks in range(1, FRAMES + 1):
        oid = rnd.choice(movable)
        item = win.scene.nodes[oid]
        win.editor.move({oid: (item.pos().x() + rnd.uniform(-40, 40), item.pos().y() + rnd.uniform(-20, 20))})
        if ticks % 7 == 0:
            stack.undo()
            stack.redo()
        if ticks % 11 == 0:
            win.view.zoom_by(rnd.choice((0.8, 1.25)))
        if ticks % 13 == 0:
            win.workbench.select(rnd.sample(vms, 2))  # shows a path: prediction, overlay
        if ticks % 29 == 0:
            win.view.fit()
        if ticks % 31 == 0:
            win.view.drop("note", QPointF(rnd.uniform(0, 800), rnd.uniform(0, 500)))
            stack.undo()
        win.view.viewport().repaint()
        qtbot.wait(5)
        if ticks % 50 == 0:
            samples.append((ticks, rss_mb()))
    assert win.isVisible()
    assert stack.count() <= stack.undoLimit()
    warm = [mb for frame, mb in samples if frame >= WARM]
    growth = max(warm) - warm[0]
    print(f"soak: {FRAMES} frames, RSS {warm[0]:.0f} -> {max(warm):.0f} MB")
    assert growth < 60, f"memory kept growing: {samples}"
