"""The issue's "done when": build the seed's four-case ESX topology from an empty canvas with the mouse,
read each pair's verdict drawn on the canvas, undo every step back to empty, redo, save, reopen, identical.

Seed 000_defcf31b7409f2a0.txt: one ESX host; same vSwitch + same portgroup + same VLAN and same vSwitch +
different portgroups + same VLAN stay in the host; different VLANs leave it to be routed; different
vSwitches in the same VLAN go out one pNIC and back in the other.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor

from canvas_helpers import centre, choose, click, handle, mouse_drag, type_into
from vnetbench.gui.colors import verdict_color
from vnetbench.gui.mainwindow import MainWindow
from vnetbench.model.fileformat import to_data

pytestmark = pytest.mark.gui

CTRL = Qt.KeyboardModifier.ControlModifier


def only_new(before: set[str], after) -> str:
    new = set(after) - before
    assert len(new) == 1, new
    return new.pop()


def build_four_cases(win: MainWindow) -> dict[str, str]:
    """Every step through the code the mouse and keyboard use; returns the ids made, by role."""
    topo = win.workbench.topology
    ids: dict[str, str] = {}

    def drop(key: str, at: QPointF) -> str:
        before = set(win.scene.nodes)
        assert win.view.drop(key, at), win.statusBar().currentMessage()  # the drop event's code path
        return only_new(before, win.scene.nodes)

    ids["host"] = drop("host-esxi", QPointF(160, 90))
    host = win.scene.node_rect(ids["host"])
    mouse_drag(win, host.bottomRight() - QPointF(4, 4), host.topLeft() + QPointF(1100, 520))  # resize grip
    host = win.scene.node_rect(ids["host"])
    assert host.width() >= 1000 and host.height() >= 480
    for i, name in enumerate(("web01", "web02", "app01", "db01", "bak01")):
        ids[name] = drop("vm", host.topLeft() + QPointF(100 + 170 * i, 90))
        click(win, centre(win, ids[name]))
        type_into(win, "name", name)
    ids["vs0"] = drop("switch-vss", host.topLeft() + QPointF(120, 250))
    ids["vs1"] = drop("switch-vss", host.topLeft() + QPointF(780, 250))
    for pg, switch, vlan in (("pgA", "vs0", "300"), ("pgB", "vs0", "300"), ("pg301", "vs0", "301"),
                             ("pgBak", "vs1", "300")):
        ids[pg] = drop("portgroup", centre(win, ids[switch]))
        click(win, centre(win, ids[pg]))
        type_into(win, "vlan", vlan)
    ids["core"] = drop("physical-switch", host.bottomLeft() + QPointF(420, 200))
    ids["l3"] = drop("physical-router", host.bottomLeft() + QPointF(900, 200))

    # VM vNICs to their portgroups (link drags), with addresses typed in the inspector.
    plan = {"web01": ("pgA", "10.30.0.11/24", "10.30.0.1"), "web02": ("pgA", "10.30.0.12/24", "10.30.0.1"),
            "app01": ("pgB", "10.30.0.21/24", "10.30.0.1"), "db01": ("pg301", "10.31.0.31/24", "10.31.0.1"),
            "bak01": ("pgBak", "10.30.0.41/24", "10.30.0.1")}
    index = win.workbench.document.index
    for vm_name, (pg, ip, gateway) in plan.items():
        nic = index.get(ids[vm_name]).vnics[0].id
        mouse_drag(win, handle(win, nic), centre(win, ids[pg]))
        assert win.workbench.document.index.get(nic).network == ids[pg], win.statusBar().currentMessage()
        click(win, handle(win, nic))
        assert win.workbench.selection == [nic]
        type_into(win, "ip", ip)
        type_into(win, "gateway", gateway)
    host_obj = win.workbench.document.index.get(ids["host"])
    vmnic0, vmnic1 = (p.id for p in host_obj.pnics)
    # Uplinks: each new vSwitch took the next free pNIC when it was dropped; cables: drag each pNIC onto a port.
    index = win.workbench.document.index
    assert [[u.pnic for u in index.get(ids[sw]).uplinks] for sw in ("vs0", "vs1")] == [[vmnic0], [vmnic1]]
    core = win.workbench.document.index.get(ids["core"])
    port1, port2 = core.ports[0].id, core.ports[1].id
    mouse_drag(win, handle(win, vmnic0), handle(win, port1))
    assert topo.links, win.statusBar().currentMessage()
    mouse_drag(win, handle(win, vmnic1), handle(win, port2))
    assert {(link.a, link.b) for link in topo.links} == {(vmnic0, port1), (vmnic1, port2)}
    for port in (port1, port2):
        click(win, handle(win, port))
        choose(win, "mode", "trunk")
    # The L3 switch: its SVIs sit on core's VLANs.
    click(win, centre(win, ids["l3"]))
    choose(win, "switch", core.name)
    table = win.inspector.fields["interfaces"]
    columns = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    for row, (ip, vlan) in enumerate((("10.30.0.1/24", "300"), ("10.31.0.1/24", "301"))):
        table.item(row, columns.index("ip")).setText(ip)
        table = win.inspector.fields["interfaces"]  # the form refreshes after each edit
        table.item(row, columns.index("vlan")).setText(vlan)
        table = win.inspector.fields["interfaces"]
    return ids


def verdict_on_canvas(win: MainWindow, qtbot, ids: dict[str, str], a: str, b: str) -> str:
    """Pick two VMs (click, ctrl+click) and read the verdict the canvas draws."""
    click(win, centre(win, ids[a]))
    click(win, centre(win, ids[b]), CTRL)
    assert set(win.workbench.selection) == {ids[a], ids[b]}
    overlay = win.scene.overlay

    def drawn() -> bool:
        p = overlay.prediction
        return p is not None and {p.forward.src, p.forward.dst} == {ids[a], ids[b]}

    qtbot.waitUntil(drawn, timeout=5000)
    verdict = str(overlay.prediction.verdict)
    assert overlay.colour == QColor(verdict_color(verdict))
    assert overlay.points, "the path is drawn over the canvas"
    return verdict


def test_build_four_cases_with_the_mouse_then_undo_redo_save_reopen(window, qtbot, tmp_path):
    win = window
    empty = to_data(win.workbench.topology)
    ids = build_four_cases(win)

    expected = {("web01", "web02"): "in-host", ("web01", "app01"): "in-host",
                ("web01", "db01"): "routed-via-physical", ("web01", "bak01"): "via-physical"}
    for (a, b), verdict in expected.items():
        assert verdict_on_canvas(win, qtbot, ids, a, b) == verdict, (a, b)
    # The routed case crosses vmnic0 and the canvas marks it.
    verdict_on_canvas(win, qtbot, ids, "web01", "db01")
    pnic_names = [name for _, name in win.scene.overlay.pnics]
    assert "vmnic0" in pnic_names

    built = to_data(win.workbench.topology)
    stack = win.workbench.undo_stack
    steps = stack.count()
    assert steps >= 40  # one command per gesture
    while stack.canUndo():
        stack.undo()
    assert to_data(win.workbench.topology) == empty
    assert not win.scene.nodes and not win.scene.links
    while stack.canRedo():
        stack.redo()
    assert to_data(win.workbench.topology) == built
    assert len(win.scene.nodes) == 14  # host, 2 vSwitches, 4 portgroups, 5 VMs, physical switch, router
    assert win.isWindowModified()

    path = tmp_path / "four-cases.vnet.yaml"
    win.ask_save_path = lambda: str(path)
    assert win.save()
    assert not win.isWindowModified()
    again = MainWindow(str(path))
    qtbot.addWidget(again)
    assert to_data(again.workbench.topology) == {**built, "name": "four-cases"}  # titled by its file
    assert set(again.scene.nodes) == set(win.scene.nodes)
    again.close()
