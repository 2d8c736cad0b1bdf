"""The problems dock: live validation problems, and clicking one selects its object."""

from __future__ import annotations

import pytest

from panel_designs import bad_design, two_vms_one_switch
from vnetbench.gui.panels.problems import ProblemsDock
from vnetbench.gui.workbench import Workbench

pytestmark = pytest.mark.gui


def _problems_shown(dock: ProblemsDock) -> list[tuple[str, str]]:
    tree = dock.tree
    return [(tree.topLevelItem(i).text(0), tree.topLevelItem(i).text(1)) for i in range(tree.topLevelItemCount())]


def test_bad_design_lists_problems_and_click_selects(qtbot):
    wb = Workbench(bad_design())
    dock = ProblemsDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.tree.topLevelItemCount() >= 2, timeout=5000)

    messages = " | ".join(message for _, message in _problems_shown(dock))
    assert "5000" in messages
    assert "pg-missing" in messages
    assert all(severity in ("error", "warning") for severity, _ in _problems_shown(dock))
    assert "error" in dock.summary.text()

    row = next(i for i, p in enumerate(dock.problems) if "pg-missing" in p.message)
    item = dock.tree.topLevelItem(row)
    with qtbot.waitSignal(wb.selectionChanged, timeout=1000) as sig:
        rect = dock.tree.visualItemRect(item)
        from PySide6.QtCore import Qt
        qtbot.mouseClick(dock.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert sig.args == [[dock.problems[row].object_id]]
    assert wb.selection == [dock.problems[row].object_id]


def test_problems_follow_edits(qtbot):
    wb = Workbench(two_vms_one_switch())
    dock = ProblemsDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.summary.text() == "No problems found.", timeout=5000)

    pg = wb.topology.switches[0].portgroups[1]
    wb.document.set(pg, "vlan", 5000)
    qtbot.waitUntil(lambda: any("5000" in p.message for p in dock.problems), timeout=5000)
    assert dock.problems[0].object_id == "pg-b"

    wb.document.set(pg, "vlan", 10)
    qtbot.waitUntil(lambda: not dock.problems and dock.summary.text() == "No problems found.", timeout=5000)


def test_the_lint_shows_in_the_dock(qtbot):
    """The dock lists what ``vnetbench validate`` lists: a gateway nobody owns is a warning there too."""
    wb = Workbench(two_vms_one_switch())
    dock = ProblemsDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.summary.text() == "No problems found.", timeout=5000)
    nic = wb.topology.vms[0].vnics[0]
    wb.document.set(nic, "gateway", nic.ip.split("/")[0].rsplit(".", 1)[0] + ".254")
    qtbot.waitUntil(lambda: any("nothing in the design owns" in p.message for p in dock.problems), timeout=5000)
    assert [p.severity for p in dock.problems] == ["warning"] and dock.problems[0].object_id == nic.id
