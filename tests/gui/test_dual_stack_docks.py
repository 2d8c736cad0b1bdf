"""Dual stack in the docks: the path dock says when a pair's IPv4 and IPv6 answers differ, and the matrix dock
marks such cells and switches between the families."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from vnetbench import resources_dir
from vnetbench.gui.panels.matrix import FAMILIES_DIFFER, MatrixDock
from vnetbench.gui.panels.path import PathDock
from vnetbench.gui.workbench import Workbench
from vnetbench.model import load
from vnetbench.predict import Verdict

pytestmark = pytest.mark.gui

DUAL = resources_dir() / "examples" / "esx-dual-stack.vnet.yaml"


def test_the_path_dock_shows_both_answers_when_they_differ(qtbot):
    wb = Workbench(load(DUAL))
    dock = PathDock(wb)
    qtbot.addWidget(dock)
    dock.show_pair("vm-dmz01", "vm-app01")
    assert dock.prediction is not None and dock.prediction.verdict == Verdict.BLOCKED
    assert dock.families.isVisibleTo(dock)
    text = dock.families.text()
    assert "IPv4 and IPv6 differ" in text and "IPv4 ✖ blocked" in text and "IPv6 ◆ in host, routed" in text, text
    assert "fw01" in text.split("In IPv6:")[1], text
    dock.show_pair("vm-web01", "vm-web02")
    assert "answers the same" in dock.families.text()


def test_the_matrix_dock_marks_differing_pairs_and_switches_family(qtbot):
    wb = Workbench(load(DUAL))
    dock = MatrixDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.result is not None and not dock.computing, timeout=20000)
    model = dock.model

    def cell(src, dst):
        return model.index(model.visible.index(src), model.visible.index(dst))

    assert dock.family.isVisibleTo(dock) and dock.result.family == 4
    assert dock.result.differ.pairs() == {("vm-dmz01", "vm-app01"), ("vm-app01", "vm-dmz01")}
    assert model.data(cell("vm-dmz01", "vm-app01"), Qt.ItemDataRole.DisplayRole).startswith(FAMILIES_DIFFER)
    assert not model.data(cell("vm-web01", "vm-app01"), Qt.ItemDataRole.DisplayRole).startswith(FAMILIES_DIFFER)
    assert "IPv6 answers otherwise" in model.data(cell("vm-dmz01", "vm-app01"), Qt.ItemDataRole.ToolTipRole)
    assert model.verdict(cell("vm-dmz01", "vm-app01")) == Verdict.BLOCKED

    dock.family.setCurrentIndex(dock.family.findData(6))
    qtbot.waitUntil(lambda: dock.result is not None and dock.result.family == 6 and not dock.computing,
                    timeout=20000)
    assert model.verdict(cell("vm-dmz01", "vm-app01")) == Verdict.IN_HOST_ROUTED
    assert dock.result.differ.pairs() == {("vm-dmz01", "vm-app01"), ("vm-app01", "vm-dmz01")}
