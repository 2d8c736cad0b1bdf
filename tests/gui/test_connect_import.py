"""File > Import from Backend… against a real vcsim: connect through the dialog (trusting the certificate),
read the inventory off the GUI thread, and open it as a new unsaved design that predicts at once."""

from __future__ import annotations

import threading
from pathlib import PurePosixPath

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton

from connect_helpers import answer_box, fill_dialog
from vnetbench.backends import discover
from vnetbench.gui.backend_import import importers
from vnetbench.gui.mainwindow import MainWindow
from vnetbench.model import Index, load
from vnetbench.predict import Verdict
from vnetbench_vsphere import VSphereBackend

pytestmark = pytest.mark.gui


def _window(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    window.ask_unsaved = lambda: QMessageBox.StandardButton.Discard
    window.backend_importer.ask_backend = lambda found: next(p for p in found if p.name == "vsphere")
    return window


def test_only_backends_that_can_import_are_offered():
    names = [p.name for p in importers(discover())]
    assert "vsphere" in names and "local" not in names


def test_import_from_vcsim_opens_a_design_that_predicts(qtbot, vcsim, memory_keyring, gui_store, tmp_path):
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "vSwitch0", "-vlan", "42", "gui-pg42")
    vcsim.govc("vm.create", "-on=false", "-host", "DC0_H0", "-net", "gui-pg42", "gui-vm1")
    window = _window(qtbot)
    first_design = window.workbench.topology.id

    window.a_import_backend.trigger()
    dialog = window.backend_importer.dialog
    assert dialog is not None and dialog.isVisible()
    fill_dialog(dialog, vcsim.url, vcsim.user, vcsim.password)
    seen = answer_box(dialog, "TrustCertificateBox", QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(window.backend_importer.imported, timeout=60000):
        qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    assert "SHA-256" in seen["text"]
    qtbot.waitUntil(lambda: window.backend_importer.task is None, timeout=10000)

    design = window.workbench.topology
    assert design.id != first_design
    assert window.path is None and window.modified, "a new, unsaved design"
    govc_vms = {PurePosixPath(p).name for p in vcsim.govc("find", "/", "-type", "m").split()}
    assert {vm.name for vm in design.vms} == govc_vms and "gui-vm1" in govc_vms
    govc_networks = {PurePosixPath(p).name for p in vcsim.govc("find", "/", "-type", "n").splitlines() if p}
    host_portgroups = set()
    for host in vcsim.govc("find", "/", "-type", "h").split():
        host_portgroups |= {line.split(":", 1)[1].strip() for line in
                            vcsim.govc("host.portgroup.info", "-host", host).splitlines() if line.startswith("Name:")}
    designed = {pg.name for sw in design.switches for pg in sw.portgroups}
    assert "gui-pg42" in host_portgroups and "DC0_DVPG0" in govc_networks
    assert designed == host_portgroups | {n for n in govc_networks if "DVUplinks" not in n}, \
        "every portgroup but the vDS uplinks"
    index = Index(design)
    new_vm = next(vm for vm in design.vms if vm.name == "gui-vm1")
    assert index.get(new_vm.vnics[0].network).vlan == 42
    assert all(oid in design.layout.places for oid in index.entries if index.kind(oid) in ("vm", "switch")), \
        "the importer's layout comes along"
    assert set(window.scene.nodes) >= {vm.id for vm in design.vms}, "the VMs are on the canvas"

    # vcsim reports no guest addresses (no VMware Tools without Docker): give three VMs one, as a user would.
    others = [vm for vm in design.vms if vm.host == new_vm.host and vm.id != new_vm.id]
    for n, vm in enumerate([new_vm, *others[:2]], start=1):
        window.editor.set(vm.vnics[0], "ip", f"10.0.0.{n}/24")
    engine = window.workbench.engine
    same = engine.predict(others[0].id, others[1].id)
    assert same.verdict is Verdict.IN_HOST, "two VMs on one host's VM Network meet inside it"
    apart = engine.predict(new_vm.id, others[0].id)
    assert apart.verdict is Verdict.UNREACHABLE and not apart.forward.reasons[0].endswith("address to send to"), \
        "VLAN 42 and VLAN 0 never meet"

    saved = tmp_path / "imported.vnet.yaml"
    window.ask_save_path = lambda: str(saved)
    assert window.save()
    assert vcsim.password not in saved.read_text() and load(str(saved)).id == design.id
    assert vcsim.password not in gui_store["settings"].read_text()


def test_import_errors_are_shown_and_cancel_leaves_the_design(qtbot, vcsim, memory_keyring, gui_store,
                                                             monkeypatch):
    gate = threading.Event()
    real_import = VSphereBackend.import_design

    def held_import(self, progress=None):  # vcsim answers in milliseconds: hold the read until the test cancels
        progress(0, 2, "reading the inventory")
        gate.wait(20)
        return real_import(self, progress)

    monkeypatch.setattr(VSphereBackend, "import_design", held_import)
    window = _window(qtbot)
    before = window.workbench.topology.id
    errors = []
    window.tell_error = lambda title, message: errors.append((title, message))
    window.a_import_backend.trigger()
    dialog = window.backend_importer.dialog
    fill_dialog(dialog, vcsim.url, vcsim.user, "wrong")
    answer_box(dialog, "TrustCertificateBox", QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "wrong user name or password" in dialog.status.text(), timeout=30000)
    assert "What to do:" in dialog.status.text() and dialog.isVisible()

    fill_dialog(dialog, vcsim.url, vcsim.user, vcsim.password)
    dialog.trusted = None  # pinned by the first try: no question now
    guard = answer_box(dialog, "no question expected", QMessageBox.StandardButton.Ok)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.backend_importer.task is not None, timeout=30000)
    task = window.backend_importer.task
    qtbot.waitUntil(lambda: window.backend_importer.progress.labelText() == "reading the inventory")
    qtbot.mouseClick(window.backend_importer.progress.findChild(QPushButton), Qt.MouseButton.LeftButton)
    gate.set()
    qtbot.waitUntil(lambda: window.backend_importer.task is None, timeout=30000)
    assert task.token.cancelled and guard["unexpected"] == []
    assert window.workbench.topology.id == before and errors == [], "a cancelled import opens nothing"
