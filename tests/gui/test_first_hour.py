"""A new admin's first hour, scripted with real mouse and keyboard events in a real window under Xvfb.

Build the seed's four-case ESX design from the palette (real QDrag drops), name things and set the VLANs in
the inspector, draw the links with the mouse, set the addresses in the vNIC form, read the predicted paths,
deploy to the local lab (real namespaces), measure with iperf3, export a diagram and a report, tear down,
and undo every step back to the empty canvas. Each stage leaves a screenshot in $VNETBENCH_ARTIFACTS
(walk-*.png) for a person to look at.
"""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from canvas_helpers import (artifacts, centre, choose, click, handle, mouse_drag, needs_display,
                            palette_drag, shoot, type_into)
from vnetbench.backends import DeployState
from vnetbench.model.fileformat import to_data

pytestmark = [pytest.mark.gui, pytest.mark.xvfb, pytest.mark.lab, pytest.mark.slow, needs_display]
CTRL = Qt.KeyboardModifier.ControlModifier
#: (VM, portgroup, address, gateway) as in the seed's four cases.
PLAN = [("web01", "VLAN300-A", "10.30.0.11", "10.30.0.1"), ("web02", "VLAN300-A", "10.30.0.12", "10.30.0.1"),
        ("app01", "VLAN300-B", "10.30.0.21", "10.30.0.1"), ("db01", "VLAN301", "10.31.0.31", "10.31.0.1"),
        ("bak01", "VLAN300-Bak", "10.30.0.41", "10.30.0.1")]


@pytest.fixture
def lab_dir(tmp_path, monkeypatch):
    if os.geteuid() != 0 and not os.path.exists("/proc/self/ns/user"):
        pytest.skip("the local lab needs root or user namespaces")
    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(tmp_path / "lab"))  # the deploy and measure docks share it
    return tmp_path / "lab"


def drop(win, qtbot, key: str, at: QPointF) -> str:
    """A real drag from the palette onto the canvas; the id of what it made."""
    before = set(win.scene.nodes)
    if not win.view.viewport().rect().adjusted(40, 40, -40, -40).contains(win.view.mapFromScene(at)):
        win.view.centerOn(at)  # where a person would scroll to first
    palette_drag(win, qtbot, key, at)
    new = set(win.scene.nodes) - before
    assert len(new) == 1, (key, win.statusBar().currentMessage())
    return new.pop()


def build(win, qtbot) -> dict[str, str]:
    ids: dict[str, str] = {}
    win.view.resetTransform()
    win.view.centerOn(QPointF(420, 260))
    ids["host"] = drop(win, qtbot, "host-esxi", QPointF(160, 90))
    host = win.scene.node_rect(ids["host"])
    mouse_drag(win, host.bottomRight() - QPointF(4, 4), host.topLeft() + QPointF(960, 420))  # the resize grip
    win.view.fit()
    host = win.scene.node_rect(ids["host"])
    for i, (name, *_rest) in enumerate(PLAN):
        ids[name] = drop(win, qtbot, "vm", host.topLeft() + QPointF(110 + 170 * i, 80))
        QTest.mouseDClick(win.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                          win.view.mapFromScene(centre(win, ids[name])))  # double-click: edit its name
        type_into(win, "name", name)
    ids["vSwitch0"] = drop(win, qtbot, "switch-vss", host.topLeft() + QPointF(200, 280))
    ids["vSwitch1"] = drop(win, qtbot, "switch-vss", host.topLeft() + QPointF(760, 280))
    for pg, switch, vlan in (("VLAN300-A", "vSwitch0", "300"), ("VLAN300-B", "vSwitch0", "300"),
                             ("VLAN301", "vSwitch0", "301"), ("VLAN300-Bak", "vSwitch1", "300")):
        ids[pg] = drop(win, qtbot, "portgroup", centre(win, ids[switch]))
        type_into(win, "name", pg)
        type_into(win, "vlan", vlan)
    host = win.scene.node_rect(ids["host"])
    ids["core-sw1"] = drop(win, qtbot, "physical-switch", host.bottomLeft() + QPointF(380, 170))
    type_into(win, "name", "core-sw1")
    ids["core-sw1-l3"] = drop(win, qtbot, "physical-router", host.bottomLeft() + QPointF(860, 170))
    type_into(win, "name", "core-sw1-l3")
    return ids


def connect_and_address(win, qtbot, ids: dict[str, str]) -> None:
    index = win.workbench.document.index
    for name, pg, address, gateway in PLAN:
        nic = index.get(ids[name]).vnics[0].id
        mouse_drag(win, handle(win, nic), centre(win, ids[pg]))  # vNIC onto its portgroup
        assert index.get(nic).network == ids[pg], win.statusBar().currentMessage()
        click(win, centre(win, ids[name]))  # the VM's form: each vNIC with its address row
        type_into(win, "vnics.0.ip", address)
        type_into(win, "vnics.0.gateway", gateway)
    host = index.get(ids["host"])
    uplinks = {sw: [u.pnic for u in index.get(ids[sw]).uplinks] for sw in ("vSwitch0", "vSwitch1")}
    assert uplinks == {"vSwitch0": [host.pnics[0].id], "vSwitch1": [host.pnics[1].id]}  # taken when dropped
    core = index.get(ids["core-sw1"])
    for pnic, port in zip(host.pnics, core.ports):
        mouse_drag(win, handle(win, pnic.id), handle(win, port.id))  # a cable: pNIC onto a switch port
        click(win, handle(win, port.id))
        choose(win, "mode", "trunk")
    assert len(win.workbench.topology.links) == 2
    click(win, centre(win, ids["core-sw1-l3"]))
    choose(win, "switch", "core-sw1")  # an L3 switch: its SVIs sit on core-sw1's VLANs
    for row, (address, vlan) in enumerate((("10.30.0.1/24", "300"), ("10.31.0.1/24", "301"))):
        table = win.inspector.fields["interfaces"]
        columns = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
        table.item(row, columns.index("ip")).setText(address)
        table = win.inspector.fields["interfaces"]  # the form refreshes after each edit
        table.item(row, columns.index("vlan")).setText(vlan)


def verdict(win, qtbot, ids, a: str, b: str) -> str:
    click(win, centre(win, ids[a]))
    click(win, centre(win, ids[b]), CTRL)  # two VMs picked: the path dock shows their path
    path = win.docks["PathDock"]
    qtbot.waitUntil(lambda: path.prediction is not None and {path.prediction.forward.src,
                                                              path.prediction.forward.dst} == {ids[a], ids[b]},
                    timeout=5000)
    return str(path.prediction.verdict)


def wait_task(qtbot, dock, timeout=120_000) -> None:
    qtbot.waitUntil(lambda: dock.task is None, timeout=timeout)


def test_first_hour(window, qtbot, lab_dir, tmp_path):
    win = window
    win.reset_layout()  # the first window: screen-sized
    qtbot.wait(300)
    empty = to_data(win.workbench.topology)
    assert win.canvas_hint.isVisible()
    shoot(win, qtbot, "walk-1-empty.png")

    ids = build(win, qtbot)
    connect_and_address(win, qtbot, ids)
    win.view.fit()
    shoot(win, qtbot, "walk-2-built.png")
    # Boxes placed by hand grew with their names and addresses: Arrange > Auto Layout tidies them, one undo step,
    # and the canvas then draws the design as every export does.
    QTest.keyClick(win.view, Qt.Key.Key_L, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert win.workbench.undo_stack.undoText() == "Auto Layout"
    win.view.fit()
    shoot(win, qtbot, "walk-2-arranged.png")

    expected = {("web01", "web02"): "in-host", ("web01", "app01"): "in-host",
                ("web01", "db01"): "routed-via-physical", ("web01", "bak01"): "via-physical"}
    for (a, b), want in expected.items():
        assert verdict(win, qtbot, ids, a, b) == want, (a, b, win.docks["PathDock"].details.text())
    verdict(win, qtbot, ids, "web01", "db01")
    win.docks["PathDock"].raise_()
    shoot(win, qtbot, "walk-3-predicted.png")

    deploy = win.docks["DeployDock"]
    deploy.raise_()
    qtbot.waitUntil(lambda: deploy.plan_button.isVisible() and deploy.height() > 150, timeout=3000)
    assert deploy.info.name == "local"
    qtbot.mouseClick(deploy.plan_button, Qt.MouseButton.LeftButton)
    wait_task(qtbot, deploy)
    assert deploy.plan is not None and not deploy.plan.empty, deploy.message.text()
    qtbot.mouseClick(deploy.apply_button, Qt.MouseButton.LeftButton)
    wait_task(qtbot, deploy)
    assert "failed" not in deploy.message.text(), deploy.message.text()
    assert win.scene.nodes[ids["web01"]].badge is not None
    assert deploy.states[ids["web01"]].state == DeployState.DEPLOYED
    shoot(win, qtbot, "walk-4-deployed.png")

    measure = win.docks["MeasureDock"]
    measure.toggleViewAction().trigger()
    click(win, centre(win, ids["web01"]))
    click(win, centre(win, ids["web02"]), CTRL)
    qtbot.waitUntil(lambda: measure.picker.pair.src == ids["web01"] and measure.picker.pair.dst == ids["web02"],
                    timeout=3000)
    measure.duration.setValue(3.0)
    with qtbot.waitSignal(measure.runFinished, timeout=90_000) as finished:
        qtbot.mouseClick(measure.measure_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(measure.live) >= 3, timeout=30_000)
        shoot(win, qtbot, "walk-5-measuring.png")
    run = finished.args[0]
    assert run is not None and str(run.status) == "ok", measure.result.text()
    assert run.summary["throughput_mbps"] > 10 and "predicted in-host" in measure.result.text()
    assert measure.runs.shown_ids() == [run.id]  # listed among this design's runs
    shoot(win, qtbot, "walk-6-measured.png")

    exported = {}
    for fmt, name in (("svg", "walk-diagram.svg"), ("report-html", "walk-report.html")):
        win.exporter.ask_path = lambda _fmt, _suggested, name=name: str(artifacts() / name)
        with qtbot.waitSignal(win.exporter.finished, timeout=60_000):
            win.exporter.actions[fmt].trigger()
        exported[fmt] = (artifacts() / name).read_text()
    assert "web01" in exported["svg"] and "core-sw1-l3" in exported["svg"]
    assert "routed-via-physical" in exported["report-html"] or "routed via physical" in exported["report-html"]

    asked: list[str] = []
    deploy.ask_teardown = lambda question: asked.append(question) or True  # the local lab asks too (issue 29)
    qtbot.mouseClick(deploy.teardown_button, Qt.MouseButton.LeftButton)
    wait_task(qtbot, deploy)  # listing what is deployed, then (answered) tearing it down
    qtbot.waitUntil(lambda: bool(asked), timeout=30_000)
    wait_task(qtbot, deploy)
    assert "web01" in asked[0], asked
    assert all(s.state != DeployState.DEPLOYED for s in deploy.states.values()), deploy.message.text()

    stack = win.workbench.undo_stack
    assert stack.count() >= 50
    while stack.canUndo():
        stack.undo()
    assert to_data(win.workbench.topology) == empty
    qtbot.waitUntil(lambda: not win.scene.nodes and win.canvas_hint.isVisible(), timeout=3000)
    shoot(win, qtbot, "walk-7-undone.png")
