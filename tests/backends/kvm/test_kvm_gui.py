"""The KVM backend from the designer: the deploy dock connects through the dialog built from the plugin's
declared settings, plans, applies with per-object state, re-plans to nothing and tears down; File > Import
from Backend reads a libvirt host. Against libvirt's test driver (``test:///default``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("libvirt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from vnetbench.backends import DeployState  # noqa: E402
from vnetbench.gui.mainwindow import MainWindow  # noqa: E402
from vnetbench.gui.measure.dock import MeasureDock  # noqa: E402
from vnetbench.gui.needs import hand_over  # noqa: E402
from vnetbench.gui.panels.deploy import DeployDock  # noqa: E402
from vnetbench.gui.workbench import Workbench  # noqa: E402
from vnetbench.model import load  # noqa: E402

pytestmark = pytest.mark.gui

EXAMPLE = Path(__file__).resolve().parents[3] / "resources" / "examples" / "kvm-nic-models.vnet.yaml"


@pytest.fixture
def gui_store(tmp_path, monkeypatch):
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _click_and_wait(qtbot, dock, button, timeout=60000):
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dock.task is None, timeout=timeout)


def test_deploy_to_libvirt_from_the_dock(qtbot, gui_store):
    wb = Workbench(load(EXAMPLE))
    dock = DeployDock(wb)
    qtbot.addWidget(dock)
    dock.show()
    questions: list[str] = []
    dock.ask_teardown = lambda question: questions.append(question) or True  # libvirt counts as remote
    states: list[dict] = []
    wb.deployStateChanged.connect(states.append)
    dock.backend_box.setCurrentIndex(dock.backend_box.findData("kvm"))

    qtbot.mouseClick(dock.plan_button, Qt.MouseButton.LeftButton)
    dialog = dock.connect_dialog
    assert dialog is not None and dialog.isVisible()
    assert set(dialog.fields) >= {"uri", "image", "machine", "accel"}, "the dialog is built from the settings"
    dialog.fields["uri"].setText("test:///default")
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dock.plan is not None, timeout=60000)
    qtbot.waitUntil(lambda: dock.task is None, timeout=10000)
    assert sum(1 for c in dock.plan.changes if c.kind == "domain") == 7

    try:
        _click_and_wait(qtbot, dock, dock.apply_button)
        assert dock.results and all(r.ok for r in dock.results), [r.error for r in dock.results]
        final = states[-1]
        for oid in ("sw-kvm01-br0", "sw-kvm01-ovs0", "vm-virtio-a", "vm-fw01"):
            assert final[oid].state is DeployState.DEPLOYED, (oid, final[oid])

        _click_and_wait(qtbot, dock, dock.plan_button)
        assert dock.plan is not None and dock.plan.empty

        # The measure dock probes the guests through the connection the deploy dock made.
        measure = MeasureDock(wb)
        qtbot.addWidget(measure)
        hand_over(wb, [measure])   # as the window does: the dock declared it uses the deploy connection
        measure.controls.backend_box.setCurrentIndex(measure.controls.backend_box.findData("kvm"))
        backend = measure._backend()
        assert backend is dock.backend and backend.settings.get("uri") == "test:///default"
    finally:
        _click_and_wait(qtbot, dock, dock.teardown_button)
    assert dock.results and all(r.ok for r in dock.results)
    assert len(questions) == 1 and "virtio-a" in questions[0], "tearing down asks first, naming what goes"
    conn = next(iter(dock.backend.sites.values())).conn
    assert not [d.name() for d in conn.listAllDomains() if d.name().startswith("vnb-")]


def test_import_from_a_libvirt_host_opens_a_design(qtbot, gui_store):
    window = MainWindow()
    qtbot.addWidget(window)
    window.ask_unsaved = lambda: QMessageBox.StandardButton.Discard
    window.backend_importer.ask_backend = lambda found: next(p for p in found if p.name == "kvm")
    window.a_import_backend.trigger()
    dialog = window.backend_importer.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.fields["uri"].setText("test:///default")
    with qtbot.waitSignal(window.backend_importer.imported, timeout=60000):
        qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.backend_importer.task is None, timeout=10000)
    design = window.workbench.topology
    assert [vm.name for vm in design.vms] == ["test"]
    assert [sw.name for sw in design.switches] == ["default"]
    assert design.vms[0].vnics[0].mac == "aa:bb:cc:dd:ee:ff"
    assert design.vms[0].vnics[0].network == design.switches[0].id
    assert window.modified and window.path is None


def test_the_measure_dock_follows_a_kvm_deploy_against_a_real_libvirtd(qtbot, gui_store, kvm_host):
    """Issue 29: with the deploy dock connected to KVM the measure dock used the local lab and said "lab up".
    Against a real libvirtd (QEMU, OVS, in its own namespaces): the window's deploy dock connects through its
    dialog and plans; the measure dock then shows KVM and measures through that very connection."""
    win = MainWindow()
    qtbot.addWidget(win)
    win.ask_unsaved = lambda: QMessageBox.StandardButton.Discard
    win.show()
    win.open_example(str(EXAMPLE))
    deploy, measure = win.docks["DeployDock"], win.docks["MeasureDock"]
    assert measure.controls.backend_box.currentData() == "local"  # the default, before any connection
    deploy.show()
    deploy.raise_()
    deploy.backend_box.setCurrentIndex(deploy.backend_box.findData("kvm"))
    qtbot.mouseClick(deploy.plan_button, Qt.MouseButton.LeftButton)
    dialog = deploy.connect_dialog
    for key, value in kvm_host.settings(accel="qemu").items():
        if key in dialog.fields:
            dialog.fields[key].setText(str(value))
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: deploy.plan is not None, timeout=120_000)
    qtbot.waitUntil(lambda: deploy.task is None, timeout=30_000)

    measure.show()
    measure.raise_()
    qtbot.waitUntil(lambda: measure.controls.backend_box.currentData() == "kvm", timeout=3000)
    backend = measure._backend()
    assert backend is deploy.backend and backend.settings.get("uri") == kvm_host.uri
    measure.start()  # nothing is deployed yet: KVM says so, never the local lab's "lab up"
    qtbot.waitUntil(lambda: not measure.running, timeout=60_000)
    assert "lab up" not in measure.result.text()
    win.workbench.undo_stack.setClean()
    win.close()
