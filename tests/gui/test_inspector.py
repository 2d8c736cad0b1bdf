"""The inspector: every field of the selected object, checked while typing, one undo step per edit."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QComboBox

from canvas_helpers import choose, type_into
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
    type_into(win, "ip", "10.0.100.300/24")
    assert win.inspector.messages["ip"].text() == "10.0.100.300 is not a valid IP address: 300 is more than 255"
    assert nic.ip is None
    type_into(win, "ip", "10.0.0.5")  # the prefix has its own box, 24 unless changed
    assert nic.ip == "10.0.0.5/24"
    assert win.workbench.undo_stack.undoText() == "Set vm1/eth0 IP to 10.0.0.5/24"  # says what changed
    win.inspector.fields["prefix"].setValue(23)
    win.inspector.fields["prefix"].setValue(22)
    assert nic.ip == "10.0.0.5/22"
    win.workbench.undo_stack.undo()  # stepping the prefix is one undo step
    assert nic.ip == "10.0.0.5/24"
    type_into(win, "ip", "10.0.0.7/25")  # typed with its prefix: both boxes follow
    assert nic.ip == "10.0.0.7/25" and win.inspector.fields["prefix"].value() == 25
    assert win.inspector.fields["ip"].text() == "10.0.0.7"
    type_into(win, "gateway", "10.0.0.300")
    assert "300 is more than 255" in win.inspector.messages["gateway"].text() and nic.gateway is None
    type_into(win, "gateway", "10.0.0.1")
    assert nic.gateway == "10.0.0.1"
    choose(win, "network", "vSwitch0 / PG-1")  # a reference, chosen by name
    assert nic.network == pg
    assert win.workbench.undo_stack.undoText() == "Set vm1/eth0 network to vSwitch0/PG-1"
    choose(win, "type", "e1000")
    assert nic.type.value == "e1000"
    assert "guest_vlan" not in win.inspector.fields  # only on a trunk portgroup
    win.inspector.fields["connected"].click()
    assert nic.connected is False
    assert win.workbench.undo_stack.undoText() == "Set vm1/eth0 connected to no"


def test_a_vm_shows_each_vnic_as_a_form_with_address_and_prefix_in_one_row_and_the_gateway_below(window):
    win = window
    vm = win.editor.add("vm", 300, 0)
    win.workbench.select([vm])
    fields = win.inspector.fields
    address, prefix, gateway = fields["vnics.0.ip"], fields["vnics.0.prefix"], fields["vnics.0.gateway"]
    assert address.parent() is prefix.parent()  # one row: address / prefix
    assert abs(address.mapToGlobal(address.rect().center()).y() - prefix.mapToGlobal(prefix.rect().center()).y()) < 4
    # the gateway on the row below, as wide as the address (both fit 255.255.255.255: test_inspector_addresses)
    assert gateway.mapToGlobal(gateway.rect().topLeft()).y() > address.mapToGlobal(address.rect().bottomLeft()).y()
    type_into(win, "vnics.0.ip", "192.168.1.10/24")
    assert win.workbench.document.index.get(vm).vnics[0].ip == "192.168.1.10/24"
    assert "list-vnics" not in [w.objectName() for w in win.inspector.fields.values()]  # not a table
    page = win.inspector.scroll.widget()
    assert page.minimumSizeHint().width() <= win.inspector.scroll.viewport().width()  # never scrolls sideways


def test_vnic_types_offered_follow_the_guest_os(window):
    win = window
    host = win.editor.add("host-esxi", 0, 0)
    vm = win.editor.add("vm", 20, 60, host)
    obj = win.workbench.document.index.get(vm)
    win.workbench.select([obj.vnics[0].id])
    offered = {win.inspector.fields["type"].itemText(i) for i in range(win.inspector.fields["type"].count())}
    assert "vmxnet3" in offered and "e1000e" not in offered and "virtio" not in offered  # Debian on ESXi
    win.workbench.select([vm])
    choose(win, "guest_os", "Windows 10 (windows-10)")
    assert obj.guest_os == "windows-10"
    win.workbench.select([obj.vnics[0].id])
    offered = {win.inspector.fields["type"].itemText(i) for i in range(win.inspector.fields["type"].count())}
    # the adapters Windows 10 supports, and the passthrough kinds ESXi offers any guest
    assert offered == {"e1000", "e1000e", "vmxnet3", "sriov", "directpath"}


def test_only_the_fields_that_apply_to_the_kind(window, qtbot):
    win = window
    host = win.editor.add("host-esxi", 0, 0)
    vss = win.editor.add("switch-vss", 20, 60, host)
    win.workbench.select([vss])
    shown = set(win.inspector.fields)
    assert {"name", "mtu", "uplinks", "host"} <= shown
    assert not shown & {"members", "macvtap_mode", "nat_gateway", "vni", "host_address", "portgroups"}
    segment = win.editor.add("switch-nsx-segment", 400, 400)
    win.workbench.select([segment])
    assert {"vni", "members"} <= set(win.inspector.fields) and "host" not in win.inspector.fields
    vm = win.editor.add("vm", 40, 60, host)
    win.workbench.select([vm])
    assert not any(name.startswith("forwarding") for name in win.inspector.fields)
    fw = win.editor.add("vm-firewall", 200, 60, host)
    win.workbench.select([fw])
    assert "forwarding.rules" in win.inspector.fields and "forwarding.mode" in win.inspector.fields
    win.editor.delete([segment])
    win.workbench.select([])  # an ESX-only design has no NSX tables
    assert not any(name.startswith("nsx") for name in win.inspector.fields)
    win.editor.add("switch-nsx-segment", 400, 400)
    win.workbench.select([])
    qtbot.waitUntil(lambda: "nsx.dlrs" in win.inspector.fields, timeout=2000)  # the form follows the design


def test_proper_controls_drop_downs_checkboxes_and_names(window, qtbot):
    win = window
    host = win.editor.add("host-esxi", 0, 0)
    win.editor.add("switch-vss", 20, 60, host)
    switch = win.workbench.topology.switches[0]
    win.workbench.select([switch.id])
    table = win.inspector.fields["uplinks"]
    columns = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert "id" not in columns
    pnic_cell = table.cellWidget(0, columns.index("pnic"))
    assert isinstance(pnic_cell, QComboBox) and pnic_cell.currentText() == "esx01 / vmnic0"  # a name, not an id
    assert isinstance(table.cellWidget(0, columns.index("standby")), QCheckBox)
    ps = win.editor.add("physical-switch", 0, 400)
    port = win.workbench.document.index.get(ps).ports[0]
    win.workbench.select([port.id])
    assert isinstance(win.inspector.fields["mode"], QComboBox) and isinstance(win.inspector.fields["hairpin"], QCheckBox)
    assert "allowed" not in win.inspector.fields  # an access port has no trunk list
    choose(win, "mode", "trunk")
    qtbot.waitUntil(lambda: "allowed" in win.inspector.fields, timeout=2000)  # a trunk port's fields now
    assert "access_vlan" not in win.inspector.fields


def test_vlan_kind_is_a_drop_down(window, qtbot):
    win = window
    _, pg_id = design_with_portgroup(win)
    pg = win.workbench.document.index.get(pg_id)
    mode = win.inspector.fields["vlan-mode"]
    assert mode.currentText() == "No VLAN"
    type_into(win, "vlan", "300")
    assert pg.vlan == 300
    qtbot.waitUntil(lambda: win.inspector.fields["vlan-mode"].currentText() == "VLAN (access)", timeout=2000)
    mode = win.inspector.fields["vlan-mode"]
    row = mode.findText("All VLANs (trunk)")
    mode.setCurrentIndex(row)
    mode.activated.emit(row)
    assert pg.vlan == 4095  # a standard switch's trunk
    assert win.workbench.undo_stack.undoText() == "Set vSwitch0/PG-1 VLAN to 4095"


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


def wheel_over(widget, notches: int = -1, direct: bool = False) -> None:
    """A wheel turned over ``widget`` as the window system delivers it: to the window, which finds the widget
    under the pointer (so the focus policy and the guard apply as for a real mouse); ``direct``: to ``widget``
    itself (a synthetic event is not passed from a spin box's line edit up to the spin box)."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QGuiApplication, QWheelEvent

    window = widget.window().windowHandle()
    local = widget.rect().center()
    inside = QPointF(widget.window().mapFromGlobal(widget.mapToGlobal(local)))
    glob = QPointF(widget.mapToGlobal(local))
    event = QWheelEvent(inside, glob, QPoint(0, 0), QPoint(0, 120 * notches), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QGuiApplication.sendEvent(widget if direct else window, event)


def test_the_wheel_over_an_unfocused_combo_or_spin_box_scrolls_the_inspector_and_changes_nothing(window, qtbot):
    """Issue 29: one notch over web01/eth0's type turned vmxnet3 into sriov. A long form (the firewall's
    inspector, squeezed) scrolls instead, and only a focused control takes the wheel."""
    from vnetbench import resources_dir

    win = window
    win.open_example(str(resources_dir() / "examples" / "esx-firewall-vm.vnet.yaml"))
    fw = next(vm for vm in win.workbench.topology.vms if vm.vnics and len(vm.vnics) > 1 and vm.role != "vm")
    win.workbench.select([fw.id])
    win.docks["InspectorDock"].setFloating(True)
    win.docks["InspectorDock"].resize(360, 300)  # the form is longer than the dock: it scrolls
    qtbot.waitUntil(lambda: win.inspector.scroll.verticalScrollBar().maximum() > 0, timeout=3000)
    bar = win.inspector.scroll.verticalScrollBar()
    count, types = win.workbench.undo_stack.count(), [n.type for n in fw.vnics]
    for field in ("vnics.0.type", "vnics.1.type", "vnics.0.prefix"):
        control = win.inspector.fields[field]
        win.inspector.scroll.ensureWidgetVisible(control)
        qtbot.wait(20)
        assert control.focusPolicy() == Qt.FocusPolicy.StrongFocus
        shown = control.currentText() if isinstance(control, QComboBox) else control.value()
        top = bar.value()
        wheel_over(control, -1 if top < bar.maximum() else 1)
        qtbot.wait(20)
        assert (control.currentText() if isinstance(control, QComboBox) else control.value()) == shown, field
        assert bar.value() != top, f"the wheel over {field} did not scroll the inspector"
        assert not control.hasFocus()
    assert win.workbench.undo_stack.count() == count
    assert [n.type for n in fw.vnics] == types

    spin = win.inspector.fields["vnics.0.prefix"]  # focused on purpose: now the wheel is the person's edit
    win.inspector.scroll.ensureWidgetVisible(spin)
    spin.window().activateWindow()
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=2000)
    before = spin.value()
    wheel_over(spin, 1 if before < 32 else -1, direct=True)
    qtbot.wait(20)
    assert spin.value() != before


def test_a_vmxnet3_has_no_physical_function_and_adding_a_rule_keeps_the_scroll(window, qtbot):
    """Issue 29: "physical function" showed for a vmxnet3 vNIC; the inspector jumped to the top after a rule
    was added."""
    from vnetbench import resources_dir

    win = window
    win.open_example(str(resources_dir() / "examples" / "esx-firewall-vm.vnet.yaml"))
    fw = next(vm for vm in win.workbench.topology.vms if len(vm.vnics) > 1 and vm.role != "vm")
    nic = fw.vnics[0]
    win.workbench.select([nic.id])
    assert str(nic.type) != "sriov" and "physical_function" not in win.inspector.fields
    choose(win, "type", "sriov")
    qtbot.waitUntil(lambda: "physical_function" in win.inspector.fields, timeout=3000)

    win.workbench.select([fw.id])
    win.docks["InspectorDock"].setFloating(True)
    win.docks["InspectorDock"].resize(360, 300)
    bar = win.inspector.scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 100, timeout=3000)
    bar.setValue(bar.maximum() // 2)
    kept = bar.value()
    win.editor.add_element(fw.forwarding, "rules")
    qtbot.waitUntil(lambda: len(win.inspector.fields["forwarding.rules"].parent().children()) > 0, timeout=3000)
    qtbot.wait(50)
    assert abs(bar.value() - kept) <= 2, (bar.value(), kept)


def test_teaming_lacp_private_vlan_and_vlan_filtering_fields_follow_the_switch_kind(window):
    """Issue 23's fields: a vSS or vDS takes a teaming policy, only a vDS LAGs and private VLANs, only a Linux
    bridge VLAN filtering; a vNIC's pin appears on a teamed switch's portgroup."""
    win = window
    host = win.editor.add("host-esxi", 0, 0)
    vss = win.editor.add("switch-vss", 20, 60, host)
    win.workbench.select([vss])
    shown = set(win.inspector.fields)
    assert "teaming" in shown and not shown & {"lags", "pvlans", "vlan_filtering"}
    vds = win.editor.add("switch-vds", 400, 60)
    win.workbench.select([vds])
    assert {"teaming", "lags", "pvlans"} <= set(win.inspector.fields)
    assert "vlan_filtering" not in win.inspector.fields
    pg = win.editor.add("portgroup", 40, 100, vss)
    win.workbench.select([pg])
    assert "teaming" in win.inspector.fields and "pvlan" not in win.inspector.fields
    vm = win.editor.add("vm", 60, 60, host)
    win.workbench.select([vm])
    assert not any(name.endswith(".uplink") or name.endswith("bridge_vlans") for name in win.inspector.fields)


def test_a_vnic_shows_its_further_addresses_and_ipv6_gateway(window):
    win = window
    vm = win.editor.add("vm", 300, 0)
    win.workbench.select([vm])
    fields = win.inspector.fields
    assert "vnics.0.addresses" in fields and "vnics.0.gateway6" in fields
    nic = next(v for v in win.workbench.topology.vms if v.id == vm).vnics[0]
    type_into(win, "vnics.0.gateway6", "2001:db8:30::zz")
    assert nic.gateway6 is None   # refused in the field, with the reason beside it
    assert "2001:db8:30::zz is not a valid IP address" in win.inspector.messages["vnics.0.gateway6"].text()
    type_into(win, "vnics.0.gateway6", "fe80::1%eth0")
    assert nic.gateway6 == "fe80::1%eth0"


def test_a_vnics_further_addresses_are_checked_and_written_in_short_form(window):
    win = window
    vm = win.editor.add("vm", 300, 0)
    win.workbench.select([vm])
    nic = next(v for v in win.workbench.topology.vms if v.id == vm).vnics[0]
    before = list(nic.addresses or [])
    type_into(win, "vnics.0.addresses", "2001:db8:30::zz/64")
    assert list(nic.addresses or []) == before   # refused in the field, with the reason beside it
    message = win.inspector.messages["vnics.0.addresses"].text()
    assert "2001:db8:30::zz is not a valid IP address" in message and "\n" not in message
    type_into(win, "vnics.0.addresses", "2001:db8:30::11")
    assert "add the prefix length, like 2001:db8:30::11/64" in win.inspector.messages["vnics.0.addresses"].text()
    type_into(win, "vnics.0.addresses", "2001:DB8:30:0:0:0:0:11/64, 10.30.0.11/24")
    assert nic.addresses == ["2001:db8:30::11/64", "10.30.0.11/24"]   # RFC 5952: lower case, zeros folded
    assert "2001:db8:30::11/64" in win.inspector.fields["vnics.0.addresses"].text()
