"""The inspector shows an edge's DNAT rules and a hosted NAT network's port forwards, as tables of their rows."""

from __future__ import annotations

from canvas_helpers import settle

from vnetbench import resources_dir


def test_dnat_rules_and_port_forwards_show_in_their_forms(window, qtbot):
    win = window
    win.open_example(str(resources_dir() / "examples" / "nsx-t-t1-t0.vnet.yaml"))
    settle(win, qtbot)
    topo = win.workbench.topology
    win.workbench.select([next(vm.id for vm in topo.vms if vm.name == "en01")])
    table = win.inspector.fields["forwarding.dnat"]
    assert table.rowCount() == 1 and table.item(0, 0).text() == "10.100.0.2"
    win.open_example(str(resources_dir() / "examples" / "hosted-nat-port-forward.vnet.yaml"))
    settle(win, qtbot)
    win.workbench.select(["sw-ws1-vmnet8"])
    forwards = win.inspector.fields["port_forwards"]
    assert forwards.rowCount() == 2
    proto = forwards.cellWidget(0, 0)     # an enum is a choice in its cell
    assert (proto.currentText(), forwards.item(0, 1).text(), forwards.item(0, 2).text()) == \
        ("tcp", "8080", "192.168.8.20")
