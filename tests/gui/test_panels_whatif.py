"""The what-if dock: after an edit, the pairs whose verdict changed, against the last state or a baseline."""

from __future__ import annotations

from pathlib import Path

import pytest

from panel_designs import two_hosts_via_switch
from vnetbench.gui.panels.whatif import WhatIfDock
from vnetbench.gui.workbench import Workbench
from vnetbench.predict import Verdict

pytestmark = pytest.mark.gui
EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


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


def test_changes_are_worded_as_the_admin_made_them(qtbot):
    """The misplaced app01 (its address and gateway in VLAN 301's subnet, its portgroup in VLAN 300) is
    fixed by moving its portgroup to VLAN 301: the dock says so and says where its traffic goes now."""
    from vnetbench.model import load

    design = load(EXAMPLES / "esx-four-cases.vnet.yaml")
    app01 = next(vm for vm in design.vms if vm.name == "app01")
    app01.vnics[0].ip, app01.vnics[0].gateway = "10.31.0.21/24", "10.31.0.1"
    wb = Workbench(design)
    dock = WhatIfDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: not dock.computing, timeout=10000)
    portgroup = next(pg for sw in design.switches for pg in sw.portgroups if pg.name == "VLAN300-B")

    text = dock.summary.text()
    wb.document.set(portgroup, "vlan", 301)
    _settle(qtbot, dock, text)
    why = {(c.src, c.dst): c.what[0] for c in dock.changes}
    assert why[("vm-app01", "vm-web01")] == \
        "app01 moved from VLAN 300 to 301: now routed via core-sw1-l3, leaving the host"
    assert (Verdict.UNREACHABLE, Verdict.ROUTED_VIA_PHYSICAL) in {(c.before, c.after) for c in dock.changes}
    shown = [dock.tree.topLevelItem(i).text(3) for i in range(dock.tree.topLevelItemCount())]
    assert why[("vm-app01", "vm-web01")] in shown
    for sentence in shown:   # never a bare number, a None or a Python repr
        assert "None" not in sentence and ".0 ->" not in sentence and "<" not in sentence, sentence
