"""Real drag and drop under a real X server: the palette starts a QDrag that Qt's drag-and-drop machinery
carries to the canvas, and a link is drawn by pressing, moving and releasing the mouse on the canvas."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QCursor
from PySide6.QtTest import QTest

from canvas_helpers import centre, data_dir, handle, mouse_drag, needs_display, window  # noqa: F401

pytestmark = [pytest.mark.gui, pytest.mark.xvfb, needs_display]


def palette_drag(win, qtbot, key: str, scene_target: QPointF) -> None:
    """Press on a palette entry and move: the list view starts a QDrag (``drag.exec`` runs its own loop);
    timers then move the pointer over the canvas and release it there, which Qt turns into a drop."""
    palette = win.palette
    item = palette.item_for(key)
    palette.scrollToItem(item)
    start = palette.visualItemRect(item).center()
    view = win.view
    target_local = view.mapFromScene(scene_target)
    target_global = view.viewport().mapToGlobal(target_local)
    top = win.windowHandle()
    target_in_window = top.mapFromGlobal(target_global)
    log: list[str] = []

    def move(fraction: float) -> None:
        begin = palette.viewport().mapToGlobal(start)
        point = begin + (target_global - begin) * fraction
        QCursor.setPos(point)
        QTest.mouseMove(top, top.mapFromGlobal(point))
        log.append(f"move {fraction}")

    def release() -> None:
        QCursor.setPos(target_global)
        QTest.mouseMove(top, target_in_window)
        QTest.mouseRelease(top, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target_in_window)
        log.append("release")

    # Timers tied to the window (the context object): they die with it and never fire into a later test.
    for i, fraction in enumerate((0.3, 0.6, 0.9, 1.0)):
        QTimer.singleShot(150 + 120 * i, win, lambda f=fraction: move(f))
    QTimer.singleShot(800, win, release)
    QTimer.singleShot(3000, win, lambda: "release" in log or QTest.keyClick(top, Qt.Key.Key_Escape))
    QCursor.setPos(palette.viewport().mapToGlobal(start))
    QTest.mousePress(palette.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(palette.viewport(), start + QPoint(30, 0))  # starts the drag: exec() returns after the drop
    QTest.mouseMove(palette.viewport(), start + QPoint(60, 5))
    qtbot.waitUntil(lambda: "release" in log, timeout=5000)
    QTest.qWait(100)


def test_real_qdrag_from_palette_drops_a_host_and_a_switch_into_it(window, qtbot):
    win = window
    win.view.resetTransform()
    win.view.centerOn(0, 0)
    palette_drag(win, qtbot, "host-esxi", QPointF(0, 0))
    topo = win.workbench.topology
    assert len(topo.hosts) == 1, win.statusBar().currentMessage()
    host = topo.hosts[0]
    place = topo.layout.places[host.id]
    assert abs(place.x + 160) <= 20 and abs(place.y + 90) <= 20  # centred under the pointer, snapped
    assert win.workbench.undo_stack.count() == 1

    palette_drag(win, qtbot, "switch-vss", win.scene.node_rect(host.id).center())
    assert len(topo.switches) == 1
    assert topo.switches[0].host == host.id  # dropped into the host frame: it belongs to that host
    assert [u.pnic for u in topo.switches[0].uplinks] == [host.pnics[0].id]  # it took the free pNIC
    win.workbench.undo_stack.undo()  # the automatic uplink is a step of its own
    assert len(topo.switches) == 1 and topo.switches[0].uplinks == []
    win.workbench.undo_stack.undo()
    assert topo.switches == []


def test_real_link_drag_from_vnic_to_portgroup_and_pnic_to_port(window, qtbot):
    win = window
    win.view.resetTransform()
    win.view.centerOn(300, 200)
    host = win.view.drop("host-esxi", QPointF(200, 100))
    switch = win.view.drop("switch-vss", QPointF(140, 150))
    pg = win.view.drop("portgroup", centre(win, switch))
    vm = win.view.drop("vm", QPointF(500, 120))
    ps = win.view.drop("physical-switch", QPointF(300, 420))
    index = win.workbench.document.index
    nic = index.get(vm).vnics[0].id
    count = win.workbench.undo_stack.count()

    mouse_drag(win, handle(win, nic), centre(win, pg))
    assert index.get(nic).network == pg
    assert f"net:{nic}" in win.scene.links
    assert win.workbench.undo_stack.count() == count + 1

    pnic = win.workbench.document.index.get(host).pnics[0].id
    port = win.workbench.document.index.get(ps).ports[0].id
    mouse_drag(win, handle(win, pnic), handle(win, port))
    assert [(link.a, link.b) for link in win.workbench.topology.links] == [(pnic, port)]
    drawn = win.scene.links[win.workbench.topology.links[0].id]
    assert drawn.path.pointAtPercent(0) == handle(win, pnic)

    # A drag that ends on empty canvas connects nothing and says why.
    mouse_drag(win, handle(win, nic), QPointF(900, -300))
    assert win.workbench.undo_stack.count() == count + 2
    assert "drop the link" in win.statusBar().currentMessage()
