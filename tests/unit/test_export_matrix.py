"""Verdict matrix export: CSV and JSON agree with the engine cell by cell; the heatmap paints those cells."""

from __future__ import annotations

import csv
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from vnetbench.export import matrix_csv, matrix_json, matrix_png, matrix_svg
from vnetbench.export import style
from vnetbench.model import Index, load
from vnetbench.predict import Engine

ROOT = Path(__file__).resolve().parents[2]
FOUR = ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"


@pytest.fixture
def artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "export"
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_csv_grid_matches_the_engine_and_the_hand_derived_expectations(tmp_path):
    t = load(FOUR)
    rows = list(csv.reader(matrix_csv(t, tmp_path / "m.csv").path.open()))
    names = rows[0][1:]
    grid = {(row[0], names[i]): v for row in rows[1:] for i, v in enumerate(row[1:])}
    matrix = Engine(t).matrix()
    index = Index(t)
    assert names == [index.get(e).name for e in matrix.endpoints]
    for src in matrix.endpoints:
        for dst in matrix.endpoints:
            cell = grid[(index.get(src).name, index.get(dst).name)]
            assert cell == ("" if src == dst else str(matrix.verdict(src, dst)))
    expected = yaml.safe_load((ROOT / "resources" / "examples" / "esx-four-cases.expect.yaml").read_text())
    for case in expected:
        assert grid[(case["from"], case["to"])] == case["verdict"]


def test_json_lists_every_ordered_pair_once(tmp_path):
    t = load(FOUR)
    data = json.loads(matrix_json(t, tmp_path / "m.json").path.read_text())
    n = len(data["endpoints"])
    assert n == 5 and len(data["pairs"]) == n * (n - 1)
    assert sum(data["counts"].values()) == n * (n - 1)
    assert all(data["verdicts"][i][i] is None for i in range(n))
    web01 = next(e["id"] for e in data["endpoints"] if e["name"] == "web01")
    db01 = next(e["id"] for e in data["endpoints"] if e["name"] == "db01")
    assert {"src": web01, "dst": db01, "verdict": "routed-via-physical"} in data["pairs"]


def test_heatmap_cells_have_the_verdict_colours(tmp_path, artifacts):
    from PySide6.QtGui import QImage

    t = load(FOUR)
    out = matrix_png(t, artifacts / "four-matrix.png").path
    image = QImage(str(out))
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)}
    for verdict in ("in-host", "via-physical", "routed-via-physical"):
        assert style.VERDICT_COLORS[verdict].lower() in colours
    svg = matrix_svg(t, tmp_path / "m.svg").path
    texts = {"".join(e.itertext()) for e in ET.parse(svg).getroot().iter("{http://www.w3.org/2000/svg}text")}
    assert {"web01", "db01", "routed-via-physical"} <= texts


@pytest.mark.parametrize("fmt", ["matrix-json", "matrix-png", "matrix-svg", "matrix-csv"])
def test_a_whole_grid_past_its_size_is_refused_in_one_line_naming_the_streamed_output(tmp_path, monkeypatch, fmt):
    import vnetbench.export as export_module
    from vnetbench.cli.main import main

    t = load(FOUR)
    n = len(t.vms) + len(t.physical_hosts)
    monkeypatch.setitem(export_module.MAX_GRID_ENDPOINTS, fmt, n - 1)
    with pytest.raises(export_module.ExportError, match="vnetbench matrix FILE --csv"):
        export_module.export(t, fmt, tmp_path / "m.out")
    assert not (tmp_path / "m.out").exists()
    assert main(["export", str(FOUR), "--format", fmt, "-o", str(tmp_path / "m.out")]) == 2
