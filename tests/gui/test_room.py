"""Drops, resizes and pastes leave no overlapping boxes (issue 29): the boxes beside what grew are pushed aside,
and the room made is part of the gesture's one undo step. Drops go through the real QDrag under Xvfb."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QPointF

from canvas_helpers import mouse_drag, needs_display, palette_drag, shoot
from vnetbench import resources_dir
from vnetbench.gui.canvas.room import overlaps

pytestmark = [pytest.mark.gui, pytest.mark.xvfb, needs_display]
EXAMPLE = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"


def places(win) -> dict:
    return {k: (p.x, p.y, p.w, p.h) for k, p in win.workbench.topology.layout.places.items()}


def named(win, name: str) -> str:
    return next(sw.id for sw in win.workbench.topology.switches if sw.name == name)


def test_a_portgroup_dropped_into_vswitch0_pushes_vswitch1_down_in_one_undo_step(window, qtbot):
    """The repro: vSwitch0 grows under vSwitch1's header; now vSwitch1 (and what it holds) moves down."""
    win = window
    win.open_example(str(EXAMPLE))
    qtbot.wait(200)
    assert overlaps(win.scene) == []
    before, count = places(win), win.workbench.undo_stack.count()
    vs0 = named(win, "vSwitch0")
    win.view.fit()
    for _ in range(3):  # a row of portgroups does not fit: the switch grows a row, then more
        palette_drag(win, qtbot, "portgroup", win.scene.node_rect(vs0).center())
        assert overlaps(win.scene) == [], win.statusBar().currentMessage()
    assert win.workbench.undo_stack.count() == count + 3
    shoot(win, qtbot, "gui-room-after-drops.png")
    for _ in range(3):
        win.workbench.undo_stack.undo()
    assert places(win) == before  # each undo took back a drop and the room it made


def random_target(win, rng: random.Random, key: str) -> QPointF:
    """A point where ``key`` can go: inside a switch for a portgroup, inside a host for what lives in one,
    else anywhere on or near the design."""
    scene, topo = win.scene, win.workbench.topology
    if key == "portgroup":
        frames = [sw.id for sw in topo.switches if sw.id in scene.nodes and sw.kind.value in ("vss", "vds")]
    elif key in ("vm", "switch-vss"):
        frames = [h.id for h in topo.hosts if h.id in scene.nodes]
    else:
        frames = []
    if frames:
        rect = scene.node_rect(rng.choice(frames))
        return QPointF(rng.uniform(rect.left() + 20, rect.right() - 20), rng.uniform(rect.top() + 40,
                                                                                     rect.bottom() - 10))
    rect = scene.design_rect()
    return QPointF(rng.uniform(rect.left(), rect.right()), rng.uniform(rect.top(), rect.bottom()))


def test_ten_random_real_drops_leave_no_overlapping_boxes(window, qtbot):
    win = window
    win.open_example(str(EXAMPLE))
    rng = random.Random(29)
    keys = ["portgroup", "vm", "switch-vss", "host-esxi", "note", "physical-switch", "vm", "portgroup", "vm",
            "switch-vss"]
    for n, key in enumerate(keys):
        win.view.fit()
        qtbot.wait(50)
        target = random_target(win, rng, key)
        count = win.workbench.undo_stack.count()
        palette_drag(win, qtbot, key, target)
        assert win.workbench.undo_stack.count() > count, (key, win.statusBar().currentMessage())
        assert overlaps(win.scene) == [], (n, key, target)
    win.view.fit()
    shoot(win, qtbot, "gui-room-ten-drops.png")


def test_a_frame_resized_into_its_neighbour_pushes_it_and_a_paste_lands_clear(window, qtbot):
    win = window
    a = win.editor.add("host-esxi", 0, 0)
    b = win.editor.add("host-esxi", 400, 0)
    win.view.fit()
    qtbot.wait(50)
    rect = win.scene.node_rect(a)
    count = win.workbench.undo_stack.count()
    mouse_drag(win, rect.bottomRight() - QPointF(4, 4), rect.bottomRight() + QPointF(200, 40))
    assert win.workbench.undo_stack.count() == count + 1
    assert win.scene.node_rect(a).right() > 420  # it did grow into b's place
    assert overlaps(win.scene) == []
    win.workbench.undo_stack.undo()
    assert win.scene.node_rect(b).left() == 400

    win.workbench.select([b])
    win.copy()
    pasted = win.paste()
    assert pasted and overlaps(win.scene) == []
    assert not win.scene.node_rect(pasted[0]).intersects(win.scene.node_rect(b))
    pasted = win.duplicate()
    assert pasted and overlaps(win.scene) == []
