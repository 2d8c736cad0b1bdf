"""The deploy dock: plan, apply and tear down off the GUI thread, with progress, cancel and readable errors."""

from __future__ import annotations

import os
import subprocess
import uuid
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from fake_backend import FakeBackend, fake_plugins
from panel_designs import two_vms_one_switch
from vnetbench.backends import BackendError, Capabilities, DeployState, discover
from vnetbench.backends.contract import CONFIRM_CONNECTIVITY
from vnetbench.gui.panels.deploy import DeployDock
from vnetbench.gui.workbench import Workbench

pytestmark = pytest.mark.gui


def _dock(qtbot, backend=FakeBackend, design=None):
    wb = Workbench(design or two_vms_one_switch())
    dock = DeployDock(wb, plugins=fake_plugins(backend))
    qtbot.addWidget(dock)
    dock.questions = []
    dock.ask_teardown = lambda question: dock.questions.append(question) or True  # "fake" counts as remote
    return wb, dock


def _click_and_wait(qtbot, dock, button, timeout=10000):
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert dock.task is not None, "the operation should run as a task"
    qtbot.waitUntil(lambda: dock.task is None, timeout=timeout)


def test_backend_list_greys_out_broken_plugins(qtbot):
    _, dock = _dock(qtbot)
    box = dock.backend_box
    assert box.currentText() == FakeBackend.title
    broken = box.model().item(1)
    assert not broken.isEnabled()
    assert "vendor_sdk" in broken.toolTip()


def test_plan_apply_teardown_update_states(qtbot):
    wb, dock = _dock(qtbot)
    states = []
    wb.deployStateChanged.connect(states.append)

    _click_and_wait(qtbot, dock, dock.plan_button)
    assert dock.plan is not None and len(dock.plan.changes) == 3  # one switch, two VMs
    rows = [dock.changes.topLevelItem(i).text(2) for i in range(dock.changes.topLevelItemCount())]
    assert rows == ["create switch vSwitch1", "create vm vm-a", "create vm vm-b"]
    assert dock.backend.held == {}  # planning changed nothing

    progress = []
    qtbot.mouseClick(dock.apply_button, Qt.MouseButton.LeftButton)
    dock.task.progress.connect(lambda done, total, message: progress.append((done, total)))
    qtbot.waitUntil(lambda: dock.task is None, timeout=10000)
    assert (3, 3) in progress
    assert states[-1]["vm-a"].state == DeployState.DEPLOYED
    assert states[-1]["vs1"].state == DeployState.DEPLOYED
    assert len(dock.backend.held) == 3
    assert "3 changes applied" in dock.message.text()

    _click_and_wait(qtbot, dock, dock.plan_button)
    assert dock.plan.empty
    assert "Nothing to change" in dock.message.text()

    _click_and_wait(qtbot, dock, dock.teardown_button)
    assert dock.backend.held == {}
    assert {s.state for s in states[-1].values()} == {DeployState.ABSENT}
    assert dock.backend.calls == ["plan", "apply", "plan", "teardown"]
    assert len(dock.questions) == 1  # asked once, naming what goes
    assert "2 VMs (vm-a, vm-b)" in dock.questions[0] and "1 virtual switch (vSwitch1)" in dock.questions[0]
    assert "“two VMs”" in dock.questions[0]


def test_a_remote_teardown_the_person_declines_removes_nothing(qtbot):
    _, dock = _dock(qtbot)
    _click_and_wait(qtbot, dock, dock.apply_button)
    dock.ask_teardown = lambda question: False
    _click_and_wait(qtbot, dock, dock.teardown_button)
    assert len(dock.backend.held) == 3 and "teardown" not in dock.backend.calls
    assert "nothing was removed" in dock.message.text()


def test_the_deploy_list_follows_the_design_in_view(qtbot):
    wb, dock = _dock(qtbot)
    states = []
    wb.deployStateChanged.connect(states.append)
    _click_and_wait(qtbot, dock, dock.plan_button)
    assert dock.changes.topLevelItemCount() == 3
    other = two_vms_one_switch()
    other.id, other.name = "t-other", "another design"
    wb.replace_design(other)  # what opening a file does
    assert dock.plan is None and dock.changes.topLevelItemCount() == 0
    assert states[-1] == {} and "Plan" in dock.message.text()


class SlowFake(FakeBackend):
    defaults = {"delay": 0.15}


def test_cancel_stops_apply_part_way(qtbot):
    design = two_vms_one_switch()
    for n in range(6):
        design.vms.append(type(design.vms[0])(id=f"extra{n}", name=f"extra{n}", host="esx01"))
    wb, dock = _dock(qtbot, SlowFake, design)
    states = []
    wb.deployStateChanged.connect(states.append)

    qtbot.mouseClick(dock.apply_button, Qt.MouseButton.LeftButton)
    assert dock.cancel_button.isEnabled() and not dock.apply_button.isEnabled()
    with qtbot.waitSignal(dock.task.progress, timeout=5000):
        pass
    qtbot.mouseClick(dock.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dock.task is None, timeout=10000)

    held = len(dock.backend.held)
    assert 0 < held < 9
    assert dock.message.text().startswith("Cancelled")
    deployed = [oid for oid, s in states[-1].items() if s.state == DeployState.DEPLOYED]
    assert len(deployed) == held
    assert dock.apply_button.isEnabled() and not dock.cancel_button.isEnabled()


class FailingFake(FakeBackend):
    defaults = {"fail": ["vm-b"]}


def test_failed_change_marks_object_with_reason(qtbot):
    wb, dock = _dock(qtbot, FailingFake)
    states = []
    wb.deployStateChanged.connect(states.append)
    _click_and_wait(qtbot, dock, dock.apply_button)
    assert states[-1]["vm-b"].state == DeployState.FAILED
    assert "no room for vm-b" in states[-1]["vm-b"].reason
    assert states[-1]["vm-a"].state == DeployState.DEPLOYED
    assert "1 failed" in dock.message.text()


class RefusingFake(FakeBackend):
    defaults = {"refuse": ["switch 'vSwitch1' is a macvtap, which the fake lab cannot build"]}


def test_unsupported_design_is_a_readable_message(qtbot):
    _, dock = _dock(qtbot, RefusingFake)
    _click_and_wait(qtbot, dock, dock.plan_button)
    text = dock.message.text()
    assert "cannot build the design" in text and "macvtap" in text
    assert "Traceback" not in text
    assert dock.changes.topLevelItemCount() == 0


def _local_plugin():
    info = next((p for p in discover() if p.name == "local"), None)
    if info is None:
        pytest.skip("the local lab plugin is not installed (entry point 'local' missing)")
    if not info.ok:
        pytest.skip(f"the local lab plugin does not load: {info.error}")
    return info


@pytest.mark.lab
def test_real_local_lab_plan_apply_teardown(qtbot):
    info = _local_plugin()
    from vnetbench.backends.planning import design_tag
    from vnetbench_local.names import ns_name, ns_prefix

    design = two_vms_one_switch()
    design.id = f"gui{uuid.uuid4().hex[:6]}"
    prefix = ns_prefix(design_tag(design.id))
    host_namespaces = os.geteuid() == 0  # as root the lab uses the host's namespaces; rootless, its own
    wb = Workbench(design)
    dock = DeployDock(wb, plugins=[info])
    qtbot.addWidget(dock)
    asked: list[str] = []
    dock.ask_teardown = lambda question: asked.append(question) or True  # the local lab asks too (issue 29)
    states = []
    wb.deployStateChanged.connect(states.append)
    try:
        _click_and_wait(qtbot, dock, dock.plan_button, timeout=30000)
        if dock.plan is None:
            pytest.skip(f"the local lab cannot plan here: {dock.message.text()}")
        assert not dock.plan.empty
        _click_and_wait(qtbot, dock, dock.apply_button, timeout=60000)
        assert states, dock.message.text()
        assert states[-1]["vm-a"].state == DeployState.DEPLOYED, dock.message.text()
        assert states[-1]["vm-b"].state == DeployState.DEPLOYED
        if host_namespaces:
            vms = {ns_name(design_tag(design.id), "v", vm_id) for vm_id in ("vm-a", "vm-b")}
            assert vms <= _namespaces(), "the VMs are real namespaces"
        _click_and_wait(qtbot, dock, dock.plan_button, timeout=30000)
        assert dock.plan.empty, [str(c) for c in dock.plan.changes]
    finally:
        if dock.backend is not None:
            _click_and_wait(qtbot, dock, dock.teardown_button, timeout=60000)
            qtbot.waitUntil(lambda: dock.task is None, timeout=60000)  # the question, then the teardown
    assert asked and "vm-a" in asked[0], asked  # it names what goes
    assert states[-1]["vm-a"].state != DeployState.DEPLOYED
    if host_namespaces:
        assert not {ns for ns in _namespaces() if ns.startswith(prefix)}, "teardown leaves no namespace"


def _namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


class CredentialFake(FakeBackend):
    capabilities = Capabilities(switch_kinds=FakeBackend.capabilities.switch_kinds, needs_credentials=True)


def test_settings_reach_the_backend_and_bad_ones_are_explained(qtbot):
    _, dock = _dock(qtbot, CredentialFake)
    assert "keyring" in dock.settings.placeholderText()
    dock.settings.setText("url=https://vc.example/sdk, user=admin, datastore=LocalDS_0")
    _click_and_wait(qtbot, dock, dock.plan_button)
    assert dock.backend.settings == {"url": "https://vc.example/sdk", "user": "admin", "datastore": "LocalDS_0"}

    dock.settings.setText("url=https://vc.example/sdk, admin")
    assert dock.backend is None  # new settings, new connection
    qtbot.mouseClick(dock.plan_button, Qt.MouseButton.LeftButton)
    assert dock.task is None
    assert "'admin' is not key=value" in dock.message.text()


class MuteFake(FakeBackend):
    """A backend that cannot report status: the dock goes by what each change did."""

    def status(self, design):
        raise BackendError("status is not available", "try again")


def test_states_follow_the_changes_when_status_is_unavailable(qtbot):
    wb, dock = _dock(qtbot, MuteFake)
    states = []
    wb.deployStateChanged.connect(states.append)
    _click_and_wait(qtbot, dock, dock.apply_button)
    assert {oid: s.state for oid, s in states[-1].items()} == {
        "vs1": DeployState.DEPLOYED, "vm-a": DeployState.DEPLOYED, "vm-b": DeployState.DEPLOYED}
    _click_and_wait(qtbot, dock, dock.teardown_button)
    assert {s.state for s in states[-1].values()} == {DeployState.ABSENT}


class RiskyBackend(FakeBackend):
    """Marks every switch change as affecting host connectivity, and remembers whether apply was confirmed."""

    def plan(self, design):
        plan = super().plan(design)
        changes = tuple(replace(c, connectivity="uplinks change") if c.kind == "switch" else c for c in plan.changes)
        return replace(plan, changes=changes)

    def apply(self, plan, progress=None, cancel=None):
        self.confirmed = self.settings.get(CONFIRM_CONNECTIVITY)
        return super().apply(plan, progress, cancel)


def test_changes_affecting_host_connectivity_are_confirmed_on_their_own(qtbot):
    _, dock = _dock(qtbot, RiskyBackend)
    asked = []
    dock.ask_connectivity = lambda question: asked.append(question) or False
    _click_and_wait(qtbot, dock, dock.plan_button)
    qtbot.mouseClick(dock.apply_button, Qt.MouseButton.LeftButton)
    assert dock.task is None and "apply" not in dock.backend.calls, "a no sends nothing"
    assert len(asked) == 1 and "create switch vSwitch1: uplinks change" in asked[0]
    assert "not confirmed" in dock.message.text()

    dock.ask_connectivity = lambda question: True
    _click_and_wait(qtbot, dock, dock.apply_button)
    assert dock.backend.confirmed is True and len(dock.backend.held) == 3
