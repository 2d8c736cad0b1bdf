"""The what-if dock: after an edit, the pairs whose verdict changed, against the last state or a baseline."""

from __future__ import annotations

import pytest

from panel_designs import two_hosts_via_switch
from vnetbench.gui.panels.whatif import WhatIfDock
from vnetbench.gui.workbench import Workbench
from vnetbench.predict import Verdict

pytestmark = pytest.mark.gui


def _settle(qtbot, dock, before_text):
    qtbot.waitUntil(lambda: not dock.computing and dock.summary.text() != before_text, timeout=10000)
    assert not dock.summary.text().startswith("Could not"), dock.summary.text()


def test_edit_lists_changed_pairs(qtbot):
    wb = Workbench(two_hosts_via_switch())
    dock = WhatIfDock(wb)
    qtbot.addWidget(dock)
    pg_b = wb.topology.switches[0].portgroups[1]

    text = dock.summary.text()
    wb.document.set(pg_b, "vlan", 30)
    _settle(qtbot, dock, text)
    pairs = {(c.src, c.dst): (c.before, c.after) for c in dock.changes}
    assert pairs[("vm-a", "vm-b")] == (Verdict.IN_HOST, Verdict.UNREACHABLE)
    assert pairs[("vm-b", "vm-c")] == (Verdict.VIA_PHYSICAL, Verdict.UNREACHABLE)
    assert ("vm-a", "vm-c") not in pairs
    assert dock.tree.topLevelItemCount() == len(dock.changes)
    assert all(c.what for c in dock.changes)

    # A second edit is compared with the state after the first one.
    text = dock.summary.text()
    wb.document.set(wb.topology.vms[0], "name", "renamed")
    _settle(qtbot, dock, text)
    assert dock.changes == []
    assert "No pair changed verdict" in dock.summary.text()

    requested = []
    wb.pairRequested.connect(lambda s, d: requested.append((s, d)))
    text = dock.summary.text()
    wb.document.set(pg_b, "vlan", 10)
    _settle(qtbot, dock, text)
    dock.tree.itemClicked.emit(dock.tree.topLevelItem(0), 0)
    assert requested and set(requested[0]) <= {"vm-a", "vm-b", "vm-c"}


def test_baseline_accumulates_edits(qtbot):
    wb = Workbench(two_hosts_via_switch())
    dock = WhatIfDock(wb)
    qtbot.addWidget(dock)
    dock.set_baseline.click()
    assert dock.clear_baseline.isEnabled()
    switches = wb.topology.switches

    text = dock.summary.text()
    wb.document.set(switches[0].portgroups[1], "vlan", 30)
    _settle(qtbot, dock, text)
    text = dock.summary.text()
    wb.document.set(switches[1].portgroups[0], "vlan", 40)
    _settle(qtbot, dock, text)
    pairs = {(c.src, c.dst) for c in dock.changes}
    assert ("vm-a", "vm-b") in pairs   # from the first edit: still different from the baseline
    assert ("vm-a", "vm-c") in pairs   # from the second edit

    dock.clear_baseline.click()
    assert not dock.clear_baseline.isEnabled()
    assert dock.changes == []
