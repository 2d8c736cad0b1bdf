"""Real drag and drop under a real X server: the palette starts a QDrag that Qt's drag-and-drop machinery
carries to the canvas, and a link is drawn by pressing, moving and releasing the mouse on the canvas."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF

from canvas_helpers import centre, handle, mouse_drag, needs_display, palette_drag

pytestmark = [pytest.mark.gui, pytest.mark.xvfb, needs_display]


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


def test_a_refused_real_drop_explains_itself_at_the_pointer(window, qtbot):
    """A portgroup dropped on the empty canvas (not into a switch): nothing is added, and a tooltip at the
    pointer says why."""
    from PySide6.QtWidgets import QToolTip

    win = window
    win.view.resetTransform()
    win.view.centerOn(0, 0)
    seen = []  # runs right after the window showed the tooltip (slots run in the order they were connected)
    win.scene.refused.connect(lambda message, pos: seen.append((message, pos, QToolTip.isVisible(), QToolTip.text())))
    palette_drag(win, qtbot, "portgroup", QPointF(30, 20))
    assert win.workbench.undo_stack.count() == 0
    assert len(seen) == 1
    message, pos, shown, text = seen[0]
    assert message == text == "drop a portgroup into a virtual switch" and shown
    assert (pos - QPointF(30, 20)).manhattanLength() <= 8  # where the pointer let go
