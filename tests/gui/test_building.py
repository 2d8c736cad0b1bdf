"""Building a design from scratch: drops land where there is room, a new vSwitch takes a free pNIC as its uplink,
and the gestures show themselves (palette tooltips, the empty-canvas hint, the uplink drag, refusals said at
the mouse)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QToolTip

from canvas_helpers import centre, handle, mouse_drag, shoot
from vnetbench.gui.canvas.geometry import HOST_HEADER, HOST_MIN, PAD
from vnetbench.gui.catalog import KINDS
from vnetbench.gui.palette import KEY_ROLE

pytestmark = pytest.mark.gui


def rect(win, oid):
    return win.scene.node_rect(oid)


def test_vms_dropped_on_a_host_header_land_below_it_side_by_side_and_the_host_grows(window, qtbot):
    win = window
    host = win.view.drop("host-esxi", QPointF(160, 90))
    switch = win.view.drop("switch-vss", rect(win, host).center() + QPointF(0, 40))
    top_left = rect(win, host).topLeft()
    vms = [win.view.drop("vm", top_left + QPointF(40, 8)) for _ in range(4)]  # all on the host's header
    assert all(vms), win.statusBar().currentMessage()
    frame = rect(win, host)
    others = [switch, *vms]
    for vm in vms:
        r = rect(win, vm)
        assert r.top() >= frame.top() + HOST_HEADER + PAD - 1  # never over the host's header
        assert frame.contains(r)  # the host grew to hold it
        assert all(not r.intersects(rect(win, o)) for o in others if o != vm)  # nor over a neighbour
        assert win.workbench.document.index.get(vm).host == host
    assert frame.width() > HOST_MIN[0]
    win.view.fit()
    shoot(win, qtbot, "gui-drops-with-room.png")


def test_a_top_level_drop_onto_a_host_goes_beside_it(window):
    win = window
    host = win.view.drop("host-esxi", QPointF(160, 90))
    ps = win.view.drop("physical-switch", rect(win, host).center())
    assert not rect(win, ps).intersects(rect(win, host))
    assert (rect(win, ps).center() - rect(win, host).center()).manhattanLength() < 600  # near where it was dropped


def test_a_new_vswitch_takes_a_free_pnic_as_its_uplink_and_undo_takes_it_back(window):
    win = window
    host_id = win.view.drop("host-esxi", QPointF(160, 90))
    host = win.workbench.document.index.get(host_id)
    vmnic0, vmnic1 = (p.id for p in host.pnics)
    first = win.view.drop("switch-vss", rect(win, host_id).center())
    sw = win.workbench.document.index.get(first)
    assert [u.pnic for u in sw.uplinks] == [vmnic0]
    stack = win.workbench.undo_stack
    assert stack.undoText() == "Uplink vSwitch0 to esx01/vmnic0 (automatic)"
    assert "took esx01/vmnic0 as its uplink" in win.statusBar().currentMessage()
    assert f"up:{first}:{vmnic0}" in win.scene.links  # drawn
    second = win.view.drop("switch-vss", rect(win, host_id).center())
    assert [u.pnic for u in win.workbench.document.index.get(second).uplinks] == [vmnic1]
    third = win.view.drop("switch-vss", rect(win, host_id).center())
    assert win.workbench.document.index.get(third).uplinks == []  # no free pNIC left
    stack.undo()  # the third switch
    stack.undo()  # the second switch's uplink, the switch stays
    assert second in win.workbench.document.index and win.workbench.document.index.get(second).uplinks == []
    stack.redo()
    assert [u.pnic for u in win.workbench.document.index.get(second).uplinks] == [vmnic1]


def test_palette_tooltips_say_what_each_item_is_and_where_it_goes(window):
    palette = window.palette
    for i in range(palette.count()):
        item = palette.item(i)
        key = item.data(KEY_ROLE)
        if not key:
            continue  # a group heading
        tip = item.toolTip()
        assert KINDS[key].label in tip and KINDS[key].what in tip, key
        assert "Drop it" in tip
    assert "into a host" in palette.item_for("switch-vss").toolTip()
    assert "into a standard or distributed vSwitch" in palette.item_for("portgroup").toolTip()


def test_the_empty_canvas_shows_how_to_start(window, qtbot):
    win = window
    hint = win.canvas_hint
    qtbot.waitUntil(hint.isVisible, timeout=2000)
    assert "dragging a host" in hint.text() and "pNIC" in hint.text() and "Open Example" in hint.text()
    shoot(win, qtbot, "gui-empty-canvas.png")
    win.view.drop("host-kvm", QPointF(0, 0))
    qtbot.waitUntil(lambda: not hint.isVisible(), timeout=2000)
    win.workbench.undo_stack.undo()
    qtbot.waitUntil(hint.isVisible, timeout=2000)


def test_the_uplink_gesture_shows_itself(window, qtbot):
    win = window
    host = win.view.drop("host-esxi", QPointF(160, 90))
    switch = win.view.drop("switch-vss", rect(win, host).center())
    ps = win.view.drop("physical-switch", rect(win, host).bottomLeft() + QPointF(200, 200))
    win.editor.disconnect(f"up:{switch}:{win.workbench.topology.switches[0].uplinks[0].pnic}")
    assert "no uplink: drag a pNIC here" in win.scene.nodes[switch].lines
    pnic = win.workbench.document.index.get(host).pnics[0].id
    assert "drag onto a vSwitch" in win.scene.handles[pnic].toolTip()
    win.view.fit()
    viewport = win.view.viewport()
    start = win.view.mapFromScene(handle(win, pnic))
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(20, 20))
    QTest.mouseMove(viewport, start + QPoint(40, 30))
    outlined = [h.rect() for h in win.scene.interaction.hints]
    assert any(r.contains(rect(win, switch)) for r in outlined)  # the vSwitch it may become the uplink of
    port = win.workbench.document.index.get(ps).ports[0].id
    assert any(r.contains(handle(win, port)) for r in outlined)  # and the switch ports it may be cabled to
    shoot(win, qtbot, "gui-uplink-gesture.png")
    end = win.view.mapFromScene(centre(win, switch) + QPointF(0, -20))
    QTest.mouseMove(viewport, end)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    assert [u.pnic for u in win.workbench.document.index.get(switch).uplinks] == [pnic]
    assert win.scene.interaction is None
    assert not [i for i in win.scene.items() if isinstance(i, QGraphicsRectItem)]  # the outlines went


def tooltip_near(point: QPoint) -> bool:
    """Whether the tooltip on screen is shown at ``point`` (global coordinates), give or take its offset."""
    tips = [w for w in QApplication.topLevelWidgets() if w.metaObject().className() == "QTipLabel" and w.isVisible()]
    return any((tip.geometry().topLeft() - point).manhattanLength() < 60 for tip in tips)


def test_a_refused_drop_and_a_refused_link_explain_themselves_at_the_mouse(window, qtbot):
    win = window
    win.view.resetTransform()
    win.view.centerOn(0, 0)
    target = QPointF(40, 30)
    assert win.view.drop("portgroup", target) is None
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    assert QToolTip.text() == "drop a portgroup into a virtual switch"
    assert tooltip_near(win.view.viewport().mapToGlobal(win.view.mapFromScene(target)))
    assert win.statusBar().currentMessage() == "drop a portgroup into a virtual switch"
    QToolTip.hideText()
    vm = win.view.drop("vm", QPointF(0, -200))
    nic = win.workbench.document.index.get(vm).vnics[0].id
    mouse_drag(win, handle(win, nic), QPointF(300, 200))  # onto empty canvas
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    assert "drop the link on a portgroup" in QToolTip.text()
    assert tooltip_near(win.view.viewport().mapToGlobal(win.view.mapFromScene(QPointF(300, 200))))
