"""The problems dock: live validation problems, and clicking one selects its object."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from panel_designs import bad_design, two_vms_one_switch
from vnetbench.gui.panels.problem_list import ProblemsModel
from vnetbench.gui.panels.problems import ProblemsDock
from vnetbench.model.problems import Problem
from vnetbench.gui.workbench import Workbench

pytestmark = pytest.mark.gui


def _problems_shown(dock: ProblemsDock) -> list[tuple[str, str]]:
    model = dock.tree.model()
    return [(model.index(i, 0).data(), model.index(i, 1).data()) for i in range(model.rowCount())]


def test_bad_design_lists_problems_and_click_selects(qtbot):
    wb = Workbench(bad_design())
    dock = ProblemsDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.tree.model().rowCount() >= 2, timeout=5000)

    messages = " | ".join(message for _, message in _problems_shown(dock))
    assert "5000" in messages
    assert "pg-missing" in messages
    assert all(severity in ("error", "warning") for severity, _ in _problems_shown(dock))
    assert "error" in dock.summary.text()

    row = next(i for i, p in enumerate(dock.problems) if "pg-missing" in p.message)
    with qtbot.waitSignal(wb.selectionChanged, timeout=1000) as sig:
        rect = dock.tree.visualRect(dock.tree.model().index(row, 1))
        qtbot.mouseClick(dock.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert sig.args == [[dock.problems[row].object_id]]
    assert wb.selection == [dock.problems[row].object_id]


def _clean_dock(qtbot) -> tuple[Workbench, ProblemsDock]:
    wb = Workbench(two_vms_one_switch())
    dock = ProblemsDock(wb)
    qtbot.addWidget(dock)
    qtbot.waitUntil(lambda: dock.summary.text() == "No problems found.", timeout=5000)
    return wb, dock


def test_problems_follow_edits(qtbot):
    wb, dock = _clean_dock(qtbot)

    pg = wb.topology.switches[0].portgroups[1]
    wb.document.set(pg, "vlan", 5000)
    qtbot.waitUntil(lambda: any("5000" in p.message for p in dock.problems), timeout=5000)
    assert dock.problems[0].object_id == "pg-b"

    wb.document.set(pg, "vlan", 10)
    qtbot.waitUntil(lambda: not dock.problems and dock.summary.text() == "No problems found.", timeout=5000)


def test_the_lint_shows_in_the_dock(qtbot):
    """The dock lists what ``vnetbench validate`` lists: a gateway nobody owns is a warning there too."""
    wb, dock = _clean_dock(qtbot)
    nic = wb.topology.vms[0].vnics[0]
    wb.document.set(nic, "gateway", nic.ip.split("/")[0].rsplit(".", 1)[0] + ".254")
    qtbot.waitUntil(lambda: any("nothing in the design owns" in p.message for p in dock.problems), timeout=5000)
    assert [p.severity for p in dock.problems] == ["warning"] and dock.problems[0].object_id == nic.id


def test_thousands_of_problems_make_no_row_until_painted(qtbot, monkeypatch):
    """Showing a validation run's problems costs the same for 5 or 5,000: the view reads the rows it paints,
    and fitting the columns reads those on screen (a widget item per problem stalled the window 100 ms)."""
    asked: set[int] = set()
    data = ProblemsModel.data

    def recording(self, index, role=Qt.ItemDataRole.DisplayRole):
        asked.add(index.row())
        return data(self, index, role)
    monkeypatch.setattr(ProblemsModel, "data", recording)
    wb, dock = _clean_dock(qtbot)
    dock.resize(600, 300)
    dock.show()
    many = [Problem("warning", f"vms[{i}]", f"vm-{i}", f"problem {i}", "fix it") for i in range(5000)]
    asked.clear()
    dock._show(many)
    qtbot.wait(50)   # painted
    assert dock.tree.model().rowCount() == 5000 and dock.windowTitle() == "Problems (5000)"
    assert 0 < len(asked) < 100 and max(asked) < 100
    assert dock.tree.model().index(4999, 1).data() == "problem 4999"
