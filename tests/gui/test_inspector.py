"""The inspector: every field of the selected object, checked while typing, one undo step per edit."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from canvas_helpers import choose, data_dir, type_into, window  # noqa: F401
from vnetbench.model import SwitchKind

pytestmark = pytest.mark.gui


def design_with_portgroup(win, kind: str = "switch-vss") -> tuple[str, str]:
    host = win.editor.add("host-esxi", 0, 0)
    switch = win.editor.add(kind, 20, 60, host)
    pg = win.editor.add("portgroup", 40, 100, switch)
    win.workbench.select([pg])
    return switch, pg


def test_vlan_5000_is_refused_with_a_visible_message_and_never_written(window):
    win = window
    _, pg_id = design_with_portgroup(win)
    pg = win.workbench.document.index.get(pg_id)
    steps = win.workbench.undo_stack.count()
    field = win.inspector.fields["vlan"]
    field.setFocus()
    field.selectAll()
    QTest.keyClicks(field, "5000")
    message = win.inspector.messages["vlan"]
    assert message.isVisible()
    assert "5000" in message.text() and "4095" in message.text()  # names the value and the fix
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert pg.vlan == 0
    assert win.workbench.undo_stack.count() == steps
    assert "vlan" in win.statusBar().currentMessage()

    type_into(win, "vlan", "4095")  # the vSS trunk value is fine on a standard switch
    assert pg.vlan == 4095 and not win.inspector.messages["vlan"].isVisible()
    assert win.workbench.undo_stack.count() == steps + 1
    win.workbench.undo_stack.undo()
    assert pg.vlan == 0


def test_vlan_rules_follow_the_switch_kind(window):
    win = window
    _, pg_id = design_with_portgroup(win, "switch-ovs")
    type_into(win, "vlan", "trunk 10-20")
    assert win.workbench.document.index.get(pg_id).vlan == "trunk 10-20"
    type_into(win, "vlan", "4095")
    assert "trunk" in win.inspector.messages["vlan"].text()
    assert win.workbench.document.index.get(pg_id).vlan == "trunk 10-20"
    assert win.workbench.document.index.parent(pg_id).kind is SwitchKind.OVS


def test_vnic_fields_addresses_references_and_enums(window):
    win = window
    switch, pg = design_with_portgroup(win)
    vm = win.editor.add("vm", 300, 0)
    nic = win.workbench.document.index.get(vm).vnics[0]
    win.workbench.select([nic.id])
    type_into(win, "ip", "10.0.0.5")
    assert "prefix" in win.inspector.messages["ip"].text() and nic.ip is None
    type_into(win, "ip", "10.0.0.5/24")
    assert nic.ip == "10.0.0.5/24"
    choose(win, "network", "vSwitch0 / PG-1")
    assert nic.network == pg
    choose(win, "type", "e1000")
    assert nic.type.value == "e1000"
    type_into(win, "guest_vlan", "4095")
    assert nic.guest_vlan is None and win.inspector.messages["guest_vlan"].isVisible()
    win.inspector.fields["connected"].click()
    assert nic.connected is False
    assert win.workbench.undo_stack.count() == 9  # host, switch, its uplink, pg, vm + ip, network, type, connected


def test_list_fields_edit_add_and_remove_rows(window):
    win = window
    host = win.editor.add("host-esxi", 0, 0)
    win.workbench.select([host])
    obj = win.workbench.document.index.get(host)
    table = win.inspector.fields["pnics"]
    columns = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    table.item(0, columns.index("speed mbps")).setText("10000")
    assert obj.pnics[0].speed_mbps == 10000
    win.inspector.fields["pnics"].item(1, columns.index("speed mbps")).setText("fast")
    assert obj.pnics[1].speed_mbps == 1000
    assert "whole number" in win.statusBar().currentMessage()
    count = len(obj.pnics)
    editor = next(e for e in win.inspector.editors if getattr(e, "field", "") == "pnics")
    editor.add()
    assert len(obj.pnics) == count + 1
    assert f"{obj.pnics[-1].id}" in win.scene.handles  # the new pNIC is drawn on the host
    editor = next(e for e in win.inspector.editors if getattr(e, "field", "") == "pnics")
    editor.table.selectRow(0)
    editor.remove()
    assert len(obj.pnics) == count


def test_nothing_selected_edits_the_design_itself(window):
    win = window
    win.workbench.select([])
    type_into(win, "name", "lab design")
    assert win.workbench.topology.name == "lab design"
    assert "Design" in win.inspector.heading.text()
