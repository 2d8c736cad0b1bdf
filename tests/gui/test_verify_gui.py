"""Verify from the designer: the matrix dock's Verify button probes the deployed lab and colours each cell,
green where the lab confirmed the prediction and red where it contradicted it (real lab, root mode)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from vnetbench.gui.panels.deploy import DeployDock
from vnetbench.gui.panels.matrix import MatrixDock
from vnetbench.gui.panels.path import PathDock
from vnetbench.gui.panels.verify import OUTCOME_COLORS
from vnetbench.gui.workbench import Workbench
from vnetbench.measure.verify import Outcome
from vnetbench.model import load

pytestmark = [pytest.mark.gui, pytest.mark.lab]

FOUR_CASES = Path(__file__).resolve().parents[2] / "resources" / "examples" / "esx-four-cases.vnet.yaml"


def _cell(dock, src, dst):
    model = dock.model
    return model.index(model.visible.index(src), model.visible.index(dst))


def test_verify_colours_the_matrix_confirmed_and_contradicted(qtbot, tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("needs root to deploy the lab")
    from vnetbench_local import LocalLabBackend
    from vnetbench_local.counters import pnic_ends
    from vnetbench_local.desired import desired_lab

    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(tmp_path / "lab"))
    monkeypatch.setenv("VNETBENCH_LAB_MODE", "root")
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    design = load(FOUR_CASES)
    lab = LocalLabBackend({"mode": "root", "state_dir": str(tmp_path / "lab")})
    assert all(r.ok for r in lab.apply(lab.plan(design)))
    try:
        for ns, dev in pnic_ends(desired_lab(design))["pnic-esx01-vmnic1"]:   # bak01's uplink, cut
            subprocess.run(["ip", "-n", ns, "link", "set", dev, "down"], check=True)
        wb = Workbench(design)
        dock = MatrixDock(wb)
        deploy = DeployDock(wb)
        path = PathDock(wb)
        qtbot.addWidget(dock)
        qtbot.addWidget(deploy)
        qtbot.addWidget(path)
        qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=10000)
        QTest.mouseClick(dock.verify_button, Qt.MouseButton.LeftButton)
        assert not dock.verify_button.isEnabled()       # one verification at a time
        qtbot.waitUntil(lambda: dock.verify_button.isEnabled(), timeout=120_000)
    finally:
        lab.teardown(design.id)

    model = dock.model
    green, red = OUTCOME_COLORS[Outcome.CONFIRMED], OUTCOME_COLORS[Outcome.CONTRADICTED]
    colour = {(s, d): model.data(_cell(dock, s, d), Qt.ItemDataRole.BackgroundRole).color().name()
              for s in model.visible for d in model.visible if s != d}
    assert {p for p, c in colour.items() if c == red} == {p for p in colour if "vm-bak01" in p}
    assert {p for p, c in colour.items() if c == green} == {p for p in colour if "vm-bak01" not in p}
    tip = model.data(_cell(dock, "vm-bak01", "vm-web02"), Qt.ItemDataRole.ToolTipRole)
    assert "verified: contradicted" in tip and "never left esx01 through vmnic1" in tip
    assert dock.summary.text().endswith("20 pairs, 8 contradictions")
    assert deploy.message.text() == dock.summary.text()   # the deploy dock's Verify shares the result
    _check_the_path_dock_shows_the_observed_pnics(path)


def _hop_marks(path):
    """(direction, hop name, Observed column) of every pNIC hop the path dock lists."""
    out = []
    for i in range(path.hops.topLevelItemCount()):
        top = path.hops.topLevelItem(i)
        for j in range(top.childCount()):
            hop = top.child(j)
            if hop.text(2) == "pnic":
                out.append((top.text(1)[0], hop.text(1), hop.text(4)))
    return out


def _check_the_path_dock_shows_the_observed_pnics(path):
    """After the verification, the path dock shows beside the predicted path which pNICs counted the pair's
    burst: every predicted pNIC of a confirmed via-physical pair, none of bak01's cut uplink."""
    path.show_pair("vm-web01", "vm-db01")
    latest = path.verifier.latest
    cell = latest.cell("vm-web01", "vm-db01")
    assert cell.outcome is Outcome.CONFIRMED and cell.predicted_pnics, cell
    text = path.observed.text()
    assert path.observed.isVisibleTo(path) and "<b>confirmed</b>" in text
    assert f"pNICs that counted the burst: {', '.join(cell.observed_pnics)}" in text
    marks = _hop_marks(path)
    assert marks and all(mark == "counted" for _, _, mark in marks), marks

    path.show_pair("vm-db01", "vm-bak01")
    text = path.observed.text()
    assert "<b>contradicted</b>" in text and "never came back in through vmnic1" in text, text
    marks = _hop_marks(path)
    assert ("→", "esx01/vmnic1", "not counted") in marks and ("→", "esx01/vmnic0", "counted") in marks, marks
