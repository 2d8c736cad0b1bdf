"""The inspector shows what the NSX-T example adds: a gateway's tier and service router, a host's tunnel
endpoint, an edge's SNAT rules."""

from __future__ import annotations

from canvas_helpers import settle

from vnetbench import resources_dir


def test_the_nsxt_fields_show_in_their_forms(window, qtbot):
    win = window
    win.open_example(str(resources_dir() / "examples" / "nsx-t-t1-t0.vnet.yaml"))
    settle(win, qtbot)
    topo = win.workbench.topology
    win.workbench.select(["gw-t0-provider"])
    assert {"tier", "service_router"} <= set(win.inspector.fields)
    win.workbench.select([next(h.id for h in topo.hosts if h.name == "esx-comp02")])
    assert any(name.startswith("tep") for name in win.inspector.fields), sorted(win.inspector.fields)
    win.workbench.select([next(vm.id for vm in topo.vms if vm.name == "en01")])
    table = win.inspector.fields["forwarding.snat"]
    assert table.rowCount() == 1 and table.item(0, 0).text() == "172.16.30.0/24"
