"""Deploying to vSphere from the canvas: the deploy dock connects through the connect dialog, plans, applies
with per-object state on the canvas, re-plans to nothing and tears down; against a real vcsim."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from connect_helpers import answer_box, fill_dialog
from vnetbench.backends import DeployState
from vnetbench.gui.panels.deploy import DeployDock
from vnetbench.gui.workbench import Workbench
from vnetbench.model import VM, Host, NicType, PNic, Portgroup, Switch, SwitchKind, Topology, Uplink, VNic, dumps

pytestmark = pytest.mark.gui


def small_design() -> Topology:
    h0 = Host("h0", "DC0_H0", pnics=[PNic("h0-vmnic0", "vmnic0"), PNic("h0-vmnic1", "vmnic1")])
    vss = Switch("vss", "gui-lab", SwitchKind.VSS, host="h0", uplinks=[Uplink("h0-vmnic1")], portgroups=[
        Portgroup("pg-10", "gui-vlan10", 10), Portgroup("pg-20", "gui-vlan20", 20)])
    vms = [VM("vm-a", "gui-deploy-a", host="h0", vnics=[VNic("a0", "eth0", NicType.VMXNET3, network="pg-10")]),
           VM("vm-b", "gui-deploy-b", host="h0", vnics=[VNic("b0", "eth0", NicType.VMXNET3, network="pg-20")])]
    return Topology(id="gui-deploy-test", name="GUI deploy", hosts=[h0], switches=[vss], vms=vms)


def _click_and_wait(qtbot, dock, button, timeout=60000):
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dock.task is None, timeout=timeout)


def _vcsim_vms(vcsim) -> set[str]:
    return {p.rsplit("/", 1)[-1] for p in vcsim.govc("find", "/", "-type", "m").split()}


def test_deploy_a_design_to_vcsim_from_the_dock(qtbot, vcsim, memory_keyring, gui_store):
    wb = Workbench(small_design())
    dock = DeployDock(wb)
    dock.ask_teardown = lambda question: "VM" in question  # it names what it deletes
    qtbot.addWidget(dock)
    dock.show()
    states: list[dict] = []
    wb.deployStateChanged.connect(states.append)
    dock.backend_box.setCurrentIndex(dock.backend_box.findData("vsphere"))
    assert dock.connection_row.isVisible() and dock.settings_label.text() == "More settings"
    dock.settings.setText("datastore=LocalDS_0")

    qtbot.mouseClick(dock.plan_button, Qt.MouseButton.LeftButton)  # not connected yet: the dialog comes first
    dialog = dock.connect_dialog
    assert dialog is not None and dialog.isVisible() and dock.task is None
    fill_dialog(dialog, vcsim.url, vcsim.user, vcsim.password)
    seen = answer_box(dialog, "TrustCertificateBox", QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dock.plan is not None, timeout=60000)
    qtbot.waitUntil(lambda: dock.task is None, timeout=10000)
    assert "SHA-256" in seen["text"]
    assert dock.backend is not None and dock.backend.settings["datastore"] == "LocalDS_0"
    assert dock.connection.text() == f"connected: {vcsim.user} @ {vcsim.url}"

    rows = [dock.changes.topLevelItem(i).text(2) for i in range(dock.changes.topLevelItemCount())]
    kinds = {c.kind for c in dock.plan.changes}
    assert len(rows) == len(dock.plan.changes) >= 5 and any("gui-deploy-a" in r for r in rows)
    assert {"vm"} <= kinds and all(c.op.value == "create" for c in dock.plan.changes)
    assert not {"gui-deploy-a", "gui-deploy-b"} & _vcsim_vms(vcsim), "planning changes nothing"

    _click_and_wait(qtbot, dock, dock.apply_button)
    assert dock.results and all(r.ok for r in dock.results), [r.error for r in dock.results]
    assert any(s.state is DeployState.PENDING for s in states[0].values()), "pending while applying"
    final = states[-1]
    for oid in ("vss", "pg-10", "pg-20", "vm-a", "vm-b"):
        assert final[oid].state is DeployState.DEPLOYED, (oid, final[oid])
    assert {"gui-deploy-a", "gui-deploy-b"} <= _vcsim_vms(vcsim)

    _click_and_wait(qtbot, dock, dock.plan_button)
    assert dock.plan is not None and dock.plan.empty
    assert dock.message.text().startswith("Nothing to change")

    _click_and_wait(qtbot, dock, dock.teardown_button)
    assert dock.results and all(r.ok for r in dock.results)
    assert not {"gui-deploy-a", "gui-deploy-b"} & _vcsim_vms(vcsim)

    assert vcsim.password not in dumps(wb.topology), "the design never holds the password"
    assert vcsim.password not in gui_store["settings"].read_text()
    assert vcsim.url in gui_store["settings"].read_text(), "the server is remembered for next time"
