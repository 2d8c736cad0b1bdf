"""Long continuous use: nodes moving, undo and redo, zooming, paths shown, repaints.

PySide6 6.12.0 on CPython 3.11 corrupted a reference count in long sessions and the process aborted; we pin
6.11.x there. This test is what would catch such a trap again: the process must stay alive and its memory
must level off (the undo history is capped, so nothing should grow without bound).

The history fills its cap (``UNDO_LIMIT``, 1000 steps) by frame ``WARM``; the frames after it show whether memory
levels off. A thousand of them tell it as well as three thousand did (RSS grew 2 MB over the three thousand, 201 ->
203 MB), so the bound on growth is a rate: as many megabytes per thousand frames as before.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF

from vnetbench import resources_dir
from vnetbench.gui.mainwindow import UNDO_LIMIT

pytestmark = [pytest.mark.gui, pytest.mark.slow]

#: the frame after which memory should have levelled off: the undo history is full
WARM = 1000
#: frames of use: the history filled, then as many frames again (the loop waits 5 ms a frame)
FRAMES = 2 * WARM
#: the most RSS may grow over a thousand frames once the history is full
GROWTH_MB_PER_1000_FRAMES = 20


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def test_gui_survives_long_animation_with_bounded_memory(window, qtbot):
    win = window
    assert UNDO_LIMIT <= WARM, "the history must be full before memory is expected to level off"
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
    assert stack.count() == stack.undoLimit() == UNDO_LIMIT, "the history filled its cap"
    warm = [mb for frame, mb in samples if frame >= WARM]
    growth = max(warm) - warm[0]
    print(f"soak: {FRAMES} frames, RSS {warm[0]:.0f} -> {max(warm):.0f} MB")
    assert growth < GROWTH_MB_PER_1000_FRAMES * (FRAMES - WARM) / 1000, f"memory kept growing: {samples}"
