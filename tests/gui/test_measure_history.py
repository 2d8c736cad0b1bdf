"""The Measure dock's stored runs: a damaged row is named, and hides none of the others (issue 33, item 8)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QTextDocument

from vnetbench.gui.measure.history import HistoryPanel
from vnetbench.measure import RunStore
from vnetbench.model import Topology

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from test_measure_store import a_run  # noqa: E402

pytestmark = pytest.mark.gui


def test_a_damaged_row_is_named_and_the_other_runs_are_listed(qtbot, tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    runs = [a_run() for _ in range(3)]
    for run in runs:
        run.design_name, run.src_name = "<b>lab</b>", "web\x1b]0;x\x07"
    ids = [store.add(run) for run in runs]
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET data = '{not json' WHERE id = ?", (ids[1],))
    panel = HistoryPanel(store, Topology(id="t", name="<b>lab</b>"))
    qtbot.addWidget(panel)
    panel.all_designs.setChecked(True)
    panel.refresh()
    assert sorted(panel.shown_ids()) == [ids[0], ids[2]]
    assert f"#{ids[1]} damaged" in panel.heading.text()
    item = panel.list.item(0)
    assert "\x1b" not in item.text() and "\\x1b" in item.text()
    doc = QTextDocument()
    doc.setHtml(item.toolTip())
    assert "design: <b>lab</b>" in doc.toPlainText()  # the name's markup shown as text
