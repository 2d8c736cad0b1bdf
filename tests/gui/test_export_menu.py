"""File > Export from a real window's workbench: the menu's actions write files off the GUI thread."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.gui.exporting import ENTRIES, Exporter
from vnetbench.gui.workbench import Workbench
from vnetbench.model import load
from vnetbench.predict import predict

pytestmark = pytest.mark.gui

FOUR = Path(__file__).resolve().parents[2] / "resources" / "examples" / "esx-four-cases.vnet.yaml"
SVG_TEXT = "{http://www.w3.org/2000/svg}text"


@pytest.fixture
def exporter(qtbot, tmp_path):
    workbench = Workbench(load(FOUR))
    exporter = Exporter(workbench, None, lambda: "four cases")
    asked = []

    def ask_path(fmt, suggested):
        asked.append(suggested)
        return str(tmp_path / suggested.name)

    exporter.ask_path = ask_path
    exporter.asked = asked
    return exporter


def _texts(path: Path) -> set[str]:
    return {"".join(t.itertext()) for t in ET.parse(path).getroot().iter(SVG_TEXT)}


def test_menu_offers_every_format(exporter):
    menu = exporter.menu()
    labels = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert labels[0] == "Only the &selection"
    assert len(labels) == 1 + sum(1 for e in ENTRIES if e)


def test_svg_action_writes_the_diagram_with_the_highlighted_path(exporter, qtbot, tmp_path):
    wb = exporter.workbench
    wb.highlight_path(predict(wb.topology, "web01", "db01"))
    with qtbot.waitSignal(exporter.finished, timeout=30_000) as done:
        exporter.actions["svg"].trigger()
    assert exporter.asked[0].name == "four-cases.svg"
    texts = _texts(done.args[0].path)
    assert "web01 \u2192 db01: routed-via-physical" in texts and "bak01" in texts


def test_only_the_selection(exporter, qtbot):
    exporter.workbench.select(["vm-web01", "vm-bak01"])
    exporter.only_selection.setChecked(True)
    with qtbot.waitSignal(exporter.finished, timeout=30_000) as done:
        exporter.actions["svg"].trigger()
    texts = _texts(done.args[0].path)
    assert {"web01", "bak01"} <= texts and "web02" not in texts


def test_report_and_a_failure_are_reported(exporter, qtbot, tmp_path):
    with qtbot.waitSignal(exporter.finished, timeout=60_000) as done:
        exporter.actions["report-html"].trigger()
    assert done.args[0].path.read_text().rstrip().endswith("</html>")
    exporter.ask_path = lambda fmt, suggested: str(tmp_path / "missing-folder" / "x.svg")
    with qtbot.waitSignal(exporter.failed, timeout=30_000) as failed:
        exporter.actions["svg"].trigger()
    assert "does not exist" in failed.args[0]
