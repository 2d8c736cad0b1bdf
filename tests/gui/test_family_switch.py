"""The IPv4 / IPv6 switch of the measure and deploy (Verify) docks (issue 25): offered only on a dual-stack design,
IPv4 by default, round trips kept to IPv4 with the reason said, and the family chosen is the one measured and
verified, on the real local lab."""

from __future__ import annotations

import json
import os
import uuid

import pytest

from vnetbench import resources_dir
from vnetbench.gui.editing import Editor
from vnetbench.gui.measure import MeasureDock
from vnetbench.gui.panels.deploy import DeployDock
from vnetbench.gui.workbench import Workbench
from vnetbench.measure import RunStatus
from vnetbench.measure.verify import Outcome
from vnetbench.model import load

pytestmark = pytest.mark.gui

EXAMPLES = resources_dir() / "examples"
DUAL = EXAMPLES / "esx-dual-stack.vnet.yaml"
IPV4_ONLY = EXAMPLES / "esx-four-cases.vnet.yaml"


def docks(qtbot, design) -> tuple[MeasureDock, DeployDock]:
    wb = Workbench(design)
    measure, deploy = MeasureDock(wb), DeployDock(wb)
    for dock in (measure, deploy):
        qtbot.addWidget(dock)
    return measure, deploy


def test_the_switch_is_offered_on_a_dual_stack_design_only(qtbot):
    measure, deploy = docks(qtbot, load(IPV4_ONLY))
    assert not measure.controls.family.isVisibleTo(measure) and not deploy.verify_family.isVisibleTo(deploy)
    assert measure.spec().family == 4

    measure, deploy = docks(qtbot, load(DUAL))
    assert measure.controls.family.isVisibleTo(measure) and deploy.verify_family.isVisibleTo(deploy)
    assert measure.spec().family == 4 and deploy.verify_family.family == 4   # IPv4 unless chosen
    measure.controls.family.choose(6)
    assert measure.spec().family == 6


def test_round_trips_run_over_ipv6_where_the_shim_can_be_built(qtbot):
    measure, _ = docks(qtbot, load(DUAL))
    controls = measure.controls
    kinds, families = controls.kind_box.model(), controls.family.model()
    rr, ipv6 = kinds.item(controls.kind_box.findData("rr")), families.item(controls.family.findData(6))
    controls.family.choose(6)
    controls.kind_box.setCurrentIndex(controls.kind_box.findData("rr"))
    assert rr.isEnabled() and ipv6.isEnabled() and not controls.family_note.isVisibleTo(measure)
    assert measure.spec().kind.value == "rr" and measure.spec().family == 6


def test_without_gcc_round_trips_stay_ipv4_and_say_why(qtbot, tmp_path, monkeypatch):
    from vnetbench.backends import sockperf_inet6

    monkeypatch.setattr(sockperf_inet6, "library_path", lambda: tmp_path / "not-built.so")
    monkeypatch.setenv("PATH", str(tmp_path))            # no gcc on it
    measure, _ = docks(qtbot, load(DUAL))
    controls = measure.controls
    kinds, families = controls.kind_box.model(), controls.family.model()
    rr, ipv6 = kinds.item(controls.kind_box.findData("rr")), families.item(controls.family.findData(6))
    assert rr.isEnabled() and ipv6.isEnabled() and not controls.family_note.isVisibleTo(measure)

    controls.family.choose(6)
    assert not rr.isEnabled() and "need gcc" in rr.toolTip()
    assert controls.family_note.isVisibleTo(measure) and "apt-get install gcc" in controls.family_note.text()

    controls.family.choose(4)
    controls.kind_box.setCurrentIndex(controls.kind_box.findData("rr"))
    assert not ipv6.isEnabled() and rr.isEnabled() and controls.family_note.isVisibleTo(measure)


def test_an_address_edit_that_adds_ipv6_offers_the_switch(qtbot):
    design = load(IPV4_ONLY)
    measure, deploy = docks(qtbot, design)
    nic = design.vms[0].vnics[0]
    Editor(measure.workbench).set(nic, "addresses", ["2001:db8:30::10/64"])
    qtbot.waitUntil(lambda: measure.controls.family.isVisibleTo(measure) and deploy.verify_family.isVisibleTo(deploy),
                    timeout=2000)   # on the next turn of the event loop


@pytest.mark.lab
@pytest.mark.slow
def test_measure_and_verify_over_ipv6_on_the_local_lab(qtbot, tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("needs root to deploy the lab")
    from vnetbench_local import LocalLabBackend

    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(tmp_path / "lab"))
    monkeypatch.setenv("VNETBENCH_LAB_MODE", "root")
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    design = load(DUAL)
    design.id = f"fs-{uuid.uuid4().hex[:8]}"
    lab = LocalLabBackend({"mode": "root", "state_dir": str(tmp_path / "lab")})
    failed = [r.error for r in lab.apply(lab.plan(design)) if not r.ok]
    assert not failed, failed
    try:
        measure, deploy = docks(qtbot, design)
        measure.backend = lab
        by_name = {vm.name: vm.id for vm in design.vms}
        measure.set_pair(by_name["web01"], by_name["web02"])
        measure.controls.family.choose(6)
        measure.kind_box.setCurrentIndex(measure.kind_box.findData("throughput"))
        measure.duration.setValue(2.0)
        with qtbot.waitSignal(measure.runFinished, timeout=60_000) as blocker:
            measure.measure_button.click()
        run = blocker.args[0]
        assert run is not None and run.status == RunStatus.OK, run and run.error
        assert run.spec.family == 6 and "IPv6" in run.title and "IPv6" in measure.result.text()
        assert run.summary.get("mbps", 1) > 0
        out = tmp_path / "run.json"
        measure.export_selected(str(out))
        assert json.loads(out.read_text())["spec"]["family"] == 6

        deploy.verify_family.choose(6)
        with qtbot.waitSignal(deploy.verifier.verified, timeout=180_000):
            deploy.verify_button.click()
        verification = deploy.verifier.latest
        assert verification.scope.endswith(", IPv6") and "over IPv6" in deploy.message.text()
        confirmed = [c for c in verification.cells if c.outcome is Outcome.CONFIRMED]
        assert confirmed, [(c.src_name, c.dst_name, c.checks) for c in verification.cells]
    finally:
        lab.teardown(design.id)
