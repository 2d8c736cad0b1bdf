"""The designer shows hostile names as the text they are (issue 33): canvas labels and tooltips, the matrix
dock's cells and headers, the Problems and Path docks, the inspector's heading.

Qt reads a tooltip (and a label left in AutoText) as rich text when it looks like HTML, so each tooltip is
read back the way Qt would show it (``QTextDocument``) and must show the name's text, never its markup.
Names are the payloads of ``hostile.PAYLOADS`` (tests/unit/hostile.py), in front of every name and id.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QTextDocument, Qt  # QtGui's Qt also holds mightBeRichText

from vnetbench.gui.canvas.items import HandleItem, NodeItem
from vnetbench.model import loads
from vnetbench.model.text import one_line

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from hostile import PAYLOADS, hostile_data, raw_controls  # noqa: E402

pytestmark = pytest.mark.gui
TIP = Qt.ItemDataRole.ToolTipRole
#: Payloads that are markup, or characters Qt would act on or show reordered.
CASES = ["img-onerror", "script", "osc-title", "cr-overwrite", "quotes-newline", "rlo", "dot-entity", "c1-csi"]


def as_shown(tip: str) -> QTextDocument:
    """A tooltip as Qt renders it: rich text when it looks like it, else plain."""
    doc = QTextDocument()
    if Qt.mightBeRichText(tip):
        doc.setHtml(tip)
    else:
        doc.setPlainText(tip)
    return doc


def check_tip(tip: str, payload: str, where: str) -> None:
    doc = as_shown(tip)
    text = doc.toPlainText()
    assert "<img" not in doc.toHtml().split("<body", 1)[-1], (where, tip)  # no image drawn from a name
    assert not raw_controls(text), (where, repr(tip))
    if payload.startswith("<"):
        assert payload in text, (where, tip)  # the markup is shown as text
    if payload.startswith("\u202e"):
        assert "\\u202e" in text, (where, tip)


@pytest.mark.parametrize("name", CASES)
def test_designer_labels_and_tooltips_show_names_as_text(name, window, qtbot):
    payload = PAYLOADS[name]
    design = loads(json.dumps(hostile_data(payload)))
    win = window
    win.set_design(design, None)
    matrix = win.docks["MatrixDock"]
    qtbot.waitUntil(lambda: matrix.result is not None and not matrix.computing, timeout=20_000)

    items = [i for i in win.scene.items() if isinstance(i, (NodeItem, HandleItem))]
    assert len(items) > 20
    for item in items:
        check_tip(item.toolTip(), payload, f"canvas {item.oid}")
    for item in (i for i in items if isinstance(i, NodeItem)):   # what the canvas paints
        assert not raw_controls(item.title + "".join(item.lines)), item.oid
    web01 = win.scene.nodes[design.vms[0].id]
    assert web01.title == one_line(design.vms[0].name)

    model = matrix.model
    n = model.rowCount()
    assert n == len(design.vms)
    for row in range(n):
        for column in range(n):
            tip = model.data(model.index(row, column), TIP)
            if tip:
                check_tip(tip, payload, f"matrix cell {row},{column}")
        for orientation in (Qt.Orientation.Horizontal, Qt.Orientation.Vertical):
            check_tip(model.headerData(row, orientation, TIP), payload, f"matrix header {row}")
            assert not raw_controls(model.headerData(row, orientation))

    problems = win.problems_dock.tree.model()
    for i in range(problems.rowCount()):
        check_tip(problems.index(i, 1).data(TIP), payload, "problem")

    win.workbench.request_pair(design.vms[0].id, design.vms[3].id)
    path = win.docks["PathDock"]
    qtbot.waitUntil(lambda: path.prediction is not None, timeout=10_000)
    check_tip(path.badge.toolTip(), payload, "path badge")

    win.workbench.select([design.vms[0].id])
    heading = win.inspector.heading
    assert heading.textFormat() == Qt.TextFormat.PlainText and not raw_controls(heading.text())
    assert one_line(design.vms[0].name) in heading.text()
