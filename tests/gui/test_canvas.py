"""The canvas: moving, containment, zoom, pan, grid and snap, align, notes, shortcuts, level of detail."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QImage, QKeySequence, QPainter, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from canvas_helpers import centre, click, mouse_drag, type_into
from vnetbench.gui.canvas.geometry import GRID
from vnetbench.predict import predict

pytestmark = pytest.mark.gui


def key(win, sequence: str | QKeySequence.StandardKey) -> None:
    """Press a shortcut on the canvas, as typed."""
    seq = QKeySequence(sequence)
    combo = seq[0]
    win.view.setFocus()
    QTest.keyClick(win.view, combo.key(), combo.keyboardModifiers())


def host_with_switch(win) -> tuple[str, str, str]:
    host = win.view.drop("host-esxi", QPointF(160, 90))
    switch = win.view.drop("switch-vss", QPointF(120, 130))
    pg = win.view.drop("portgroup", centre(win, switch))
    return host, switch, pg


def test_dragging_a_host_moves_what_it_holds_in_one_undo_step(window):
    win = window
    host, switch, pg = host_with_switch(win)
    places = win.workbench.topology.layout.places
    before = {i: (places[i].x, places[i].y) for i in (host, switch, pg)}
    steps = win.workbench.undo_stack.count()
    mouse_drag(win, win.scene.node_rect(host).topLeft() + QPointF(100, 12), QPointF(400, 312), steps=10)
    assert win.workbench.undo_stack.count() == steps + 1
    moved = {i: (places[i].x - before[i][0], places[i].y - before[i][1]) for i in before}
    dx, dy = moved[host]
    assert (dx, dy) != (0, 0) and dx % GRID == 0 and dy % GRID == 0  # snapped to the grid
    assert moved[switch] == moved[pg] == (dx, dy)
    win.workbench.undo_stack.undo()
    assert {i: (places[i].x, places[i].y) for i in before} == before


def test_dragging_a_vm_out_of_its_host_and_into_another(window):
    win = window
    h1 = win.view.drop("host-esxi", QPointF(160, 90))
    h2 = win.view.drop("host-kvm", QPointF(760, 90))
    vm = win.view.drop("vm", centre(win, h1))
    assert win.workbench.document.index.get(vm).host == h1
    mouse_drag(win, centre(win, vm), centre(win, h2))
    assert win.workbench.document.index.get(vm).host == h2
    mouse_drag(win, centre(win, vm), QPointF(400, 600))
    assert win.workbench.document.index.get(vm).host is None
    win.workbench.undo_stack.undo()
    assert win.workbench.document.index.get(vm).host == h2


def test_rubber_band_selects_what_it_encloses_and_delete_key_removes_it(window):
    win = window
    w = win.scene.drop_size("vm")[0]
    a = win.view.drop("vm", QPointF(100, 100))
    b = win.view.drop("vm", QPointF(100 + w + 40, 100))
    c = win.view.drop("vm", QPointF(100 + 3 * w, 100))
    win.view.resetTransform()
    win.view.centerOn(100 + w / 2, 100)
    mouse_drag(win, QPointF(100 - w / 2 - 30, 20), QPointF(100 + 1.5 * w + 70, 200))  # around a and b only
    assert set(win.workbench.selection) == {a, b}
    steps = win.workbench.undo_stack.count()
    key(win, QKeySequence.StandardKey.Delete)
    assert [v.id for v in win.workbench.topology.vms] == [c]
    assert win.workbench.undo_stack.count() == steps + 1
    key(win, QKeySequence.StandardKey.Undo)
    assert {v.id for v in win.workbench.topology.vms} == {a, b, c}
    key(win, QKeySequence.StandardKey.Redo)
    assert [v.id for v in win.workbench.topology.vms] == [c]


def test_copy_paste_and_duplicate_shortcuts(window):
    win = window
    vm = win.view.drop("vm", QPointF(100, 100))
    win.workbench.select([vm])
    key(win, QKeySequence.StandardKey.Copy)
    key(win, QKeySequence.StandardKey.Paste)
    vms = win.workbench.topology.vms
    assert len(vms) == 2 and vms[1].name == "vm1-2" and vms[1].vnics[0].id != vms[0].vnics[0].id
    assert win.workbench.selection == [vms[1].id]
    key(win, "Ctrl+D")
    assert len(vms) == 3
    places = win.workbench.topology.layout.places
    assert places[vms[2].id].x == places[vms[1].id].x + 30


def test_zoom_keys_wheel_fit_and_pan(window):
    win = window
    host_with_switch(win)
    view = win.view
    view.zoom_actual()
    key(win, "Ctrl+=")
    assert view.zoom() == pytest.approx(1.25)
    key(win, QKeySequence.StandardKey.ZoomOut)
    assert view.zoom() == pytest.approx(1.0)
    wheel = QWheelEvent(QPointF(200, 200), view.viewport().mapToGlobal(QPointF(200, 200)), QPoint(0, 0),
                        QPoint(0, 240), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), wheel)
    assert view.zoom() == pytest.approx(1.15 ** 2)
    key(win, "Ctrl+0")
    assert view.mapToScene(view.viewport().rect()).boundingRect().contains(win.scene.design_rect())
    h = view.horizontalScrollBar().value()
    vp = view.viewport()
    QTest.mousePress(vp, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, QPoint(300, 300))
    QTest.mouseMove(vp, QPoint(200, 300))
    QTest.mouseRelease(vp, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, QPoint(200, 300))
    assert view.horizontalScrollBar().value() == h + 100


def test_grid_and_snap_toggles(window):
    win = window
    win.a_snap.setChecked(False)
    vm = win.view.drop("vm", QPointF(103, 107))
    centre = win.scene.node_rect(vm).center()  # the VM as drawn (the layout room's size) centred on the drop
    assert abs(centre.x() - 103) <= 0.5 and abs(centre.y() - 107) <= 0.5
    win.a_snap.setChecked(True)
    vm2 = win.view.drop("vm", QPointF(303, 107))
    place = win.workbench.topology.layout.places[vm2]
    assert place.x % GRID == 0 and place.y % GRID == 0
    win.a_grid.setChecked(False)
    assert not win.view.show_grid


def test_align_left_and_middle(window):
    win = window
    a = win.view.drop("vm", QPointF(100, 100))
    b = win.view.drop("vm", QPointF(260, 300))
    win.workbench.select([a, b])
    win.a_align["left"].trigger()
    assert win.scene.node_rect(a).left() == win.scene.node_rect(b).left()
    win.a_align["middle"].trigger()
    assert win.scene.node_rect(a).center().y() == win.scene.node_rect(b).center().y()
    assert win.workbench.undo_stack.count() == 4


def test_text_notes_are_added_edited_and_moved(window):
    win = window
    note = win.add_note()
    assert note and win.workbench.selection == [note]
    type_into(win, "text", "uplinks go to rack 3")
    obj = win.workbench.document.index.get(note)
    assert obj.text == "uplinks go to rack 3" and win.scene.nodes[note].text == obj.text
    x = obj.x
    mouse_drag(win, centre(win, note), centre(win, note) + QPointF(200, 0))
    assert obj.x == x + 200


def test_overview_zoom_draws_simplified_items(window):
    """Below the level-of-detail threshold names are not drawn: two VMs that differ only by name look the same."""
    win = window
    a = win.view.drop("vm", QPointF(100, 100))
    b = win.view.drop("vm", QPointF(100, 300))
    win.editor.set(win.workbench.document.index.get(b), "name", "a-much-longer-name")
    size = win.scene.node_rect(a)
    win.editor.resize(b, size.width(), size.height())  # a longer name makes a bigger box: compare same sizes
    win.workbench.select([])

    def render(oid: str, scale: float) -> QImage:
        rect = win.scene.node_rect(oid)
        image = QImage(int(rect.width() * scale) + 2, int(rect.height() * scale) + 2, QImage.Format.Format_ARGB32)
        image.fill(0)
        painter = QPainter(image)
        win.scene.render(painter, QRectF(image.rect()), rect.adjusted(-1, -1, 1, 1))
        painter.end()
        return image

    assert render(a, 0.2) == render(b, 0.2)
    assert render(a, 1.0) != render(b, 1.0)


def test_two_vms_picked_on_the_canvas_show_their_path(window, qtbot):
    win = window
    host, switch, pg = host_with_switch(win)
    a = win.editor.add("vm", 20, -100, host)
    b = win.editor.add("vm", 220, -100, host)
    index = win.workbench.document.index
    for vm, ip in ((a, "10.0.0.1/24"), (b, "10.0.0.2/24")):
        win.editor.connect(index.get(vm).vnics[0].id, pg)
        win.editor.set(index.get(vm).vnics[0], "ip", ip)
    click(win, centre(win, a))
    click(win, centre(win, b), Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: win.scene.overlay.prediction is not None, timeout=5000)
    expected = predict(win.workbench.topology, a, b)
    assert str(win.scene.overlay.prediction.verdict) == str(expected.verdict)
    assert pg in win.scene.overlay.highlighted_ids, win.scene.overlay.prediction
    key(win, "Esc")
    assert win.scene.overlay.prediction is None and not win.scene.overlay.points


def test_deploy_states_show_as_badges_on_the_canvas(window):
    from vnetbench.backends.contract import DeployState, ObjectState

    win = window
    vm = win.view.drop("vm", QPointF(100, 100))
    ps = win.view.drop("physical-switch", QPointF(400, 300))
    win.workbench.deployStateChanged.emit({vm: ObjectState(DeployState.FAILED, "no free CPU")})
    assert win.scene.nodes[vm].badge == ("✖", "#D55E00")
    assert "no free CPU" in win.scene.nodes[vm].toolTip()
    assert win.scene.nodes[ps].badge is None
    win.workbench.deployStateChanged.emit({})
    assert win.scene.nodes[vm].badge is None


def test_selecting_from_a_panel_scrolls_the_canvas_to_the_object(window):
    win = window
    far = win.view.drop("vm", QPointF(3000, 2500))
    win.workbench.select([])
    win.view.zoom_actual()
    win.view.centerOn(0, 0)
    visible = win.view.mapToScene(win.view.viewport().rect()).boundingRect()
    assert not visible.contains(win.scene.node_rect(far))
    win.workbench.select([far])  # as the problems panel does
    visible = win.view.mapToScene(win.view.viewport().rect()).boundingRect()
    assert visible.contains(win.scene.node_rect(far))


def test_arrow_keys_nudge_the_selection_and_double_click_edits_its_name(window):
    win = window
    host, switch, pg = host_with_switch(win)
    places = win.workbench.topology.layout.places
    win.workbench.select([host])
    x, y, pg_x = places[host].x, places[host].y, places[pg].x
    steps = win.workbench.undo_stack.count()
    win.view.setFocus()
    QTest.keyClick(win.view, Qt.Key.Key_Right)
    QTest.keyClick(win.view, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert (places[host].x, places[host].y) == (x + GRID, y + 1)
    assert places[pg].x == pg_x + GRID  # what the host holds moves with it
    assert win.workbench.undo_stack.count() == steps + 1  # a run of nudges is one undo step
    assert win.workbench.undo_stack.undoText().startswith("Nudge ")
    win.workbench.undo_stack.undo()
    assert (places[host].x, places[host].y, places[pg].x) == (x, y, pg_x)
    win.workbench.undo_stack.redo()
    assert (places[host].x, places[host].y) == (x + GRID, y + 1)
    win.workbench.select([pg])  # another object: its nudges are a step of their own
    QTest.keyClick(win.view, Qt.Key.Key_Left)
    assert win.workbench.undo_stack.count() == steps + 2
    vm = win.view.drop("vm", QPointF(600, 100))
    QTest.mouseDClick(win.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                      win.view.mapFromScene(centre(win, vm)))
    name = win.inspector.fields["name"]
    assert name.hasFocus() and name.selectedText() == win.workbench.document.index.get(vm).name


def test_context_menu_adds_parts_to_the_object_under_the_pointer(window):
    win = window
    vm = win.view.drop("vm", QPointF(100, 100))
    win.workbench.select([])
    menu = win.context_menu(centre(win, vm))
    assert win.workbench.selection == [vm]
    labels = [a.text() for a in menu.actions()]
    assert "Add vNIC" in labels and "&Delete" in labels
    menu.actions()[labels.index("Add vNIC")].trigger()
    obj = win.workbench.document.index.get(vm)
    assert len(obj.vnics) == 2 and obj.vnics[1].id in win.scene.handles
    win.workbench.undo_stack.undo()
    assert len(obj.vnics) == 1
