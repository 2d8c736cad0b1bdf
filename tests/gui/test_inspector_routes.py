"""The inspector shows and edits the route table of a router-like VM and of an NSX DLR, one undo step per edit."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QComboBox

from canvas_helpers import settle
from vnetbench import resources_dir

pytestmark = pytest.mark.gui


def _columns(table) -> list[str]:
    return [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]


def test_an_edges_routes_are_a_table_with_its_interfaces_to_choose_from(window, qtbot):
    win = window
    win.open_example(str(resources_dir() / "examples" / "nsx-v-two-tier.vnet.yaml"))
    settle(win, qtbot)   # opening ends by selecting nothing: select after it
    esg = next(vm for vm in win.workbench.topology.vms if vm.name == "esg-01")
    win.workbench.select([esg.id])
    table = win.inspector.fields["forwarding.routes"]
    columns = _columns(table)
    assert columns == ["prefix", "via", "interface"] and table.rowCount() == 1
    assert table.item(0, 0).text() == "172.16.0.0/16" and table.item(0, 1).text() == "192.168.10.2"
    combo = table.cellWidget(0, 2)
    assert isinstance(combo, QComboBox) and combo.currentText() == "transit"
    assert {combo.itemText(i) for i in range(combo.count())} == {"(none)", "uplink", "transit"}

    editor = next(e for e in win.inspector.editors if getattr(e, "field", "") == "routes")
    steps = win.workbench.undo_stack.count()
    editor.add()
    assert len(esg.forwarding.routes) == 2
    qtbot.waitUntil(lambda: win.inspector.fields["forwarding.routes"].rowCount() == 2, timeout=3000)
    table = win.inspector.fields["forwarding.routes"]
    table.item(1, 0).setText("10.99.0.0/16")
    table.item(1, 1).setText("10.60.0.254")
    assert (esg.forwarding.routes[1].prefix, esg.forwarding.routes[1].via) == ("10.99.0.0/16", "10.60.0.254")
    assert win.workbench.undo_stack.count() == steps + 3
    for _ in range(3):
        win.workbench.undo_stack.undo()
    assert len(esg.forwarding.routes) == 1


def test_a_dlrs_routes_show_in_its_form(window, qtbot):
    win = window
    win.open_example(str(resources_dir() / "examples" / "nsx-v-two-tier.vnet.yaml"))
    settle(win, qtbot)
    win.workbench.select(["dlr-01"])
    table = win.inspector.fields["routes"]
    assert table.rowCount() == 1 and table.item(0, 0).text() == "default" and table.item(0, 1).text() == "192.168.10.1"
