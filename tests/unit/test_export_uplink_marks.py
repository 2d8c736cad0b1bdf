"""Exported matrices mark the pairs whose answer depends on the uplink chosen at run time (teaming), with a
legend line, and leave designs without such pairs as they were."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

from vnetbench import resources_dir
from vnetbench.export.matrix import matrix_csv, matrix_json, verdict_table
from vnetbench.export import Options
from vnetbench.export.report import report_html
from vnetbench.model import load
from vnetbench.predict.uplinkmarks import LEGEND, MARK

HALF = resources_dir() / "examples" / "esx-teaming-half-lost.vnet.yaml"
PLAIN = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"


def test_the_csv_grid_marks_cells_and_ends_with_the_legend():
    rows = list(csv.reader(io.StringIO(matrix_csv(verdict_table(load(HALF))).decode("utf-8"))))
    header, *body, legend = rows
    cell = {(row[0], dst): value for row in body for dst, value in zip(header[1:], row[1:])}
    assert cell["app01", "db01"] == f"unreachable {MARK}" and cell["db01", "app02"] == f"unreachable {MARK}"
    assert cell["app03", "db01"] == "via-physical" and cell["app01", "app02"] == "in-host"
    assert legend == [LEGEND]
    plain = matrix_csv(verdict_table(load(PLAIN))).decode("utf-8")
    assert MARK not in plain and LEGEND not in plain


def test_the_json_lists_the_pairs():
    data = json.loads(matrix_json(verdict_table(load(HALF)), "half"))
    assert {(p["src"], p["dst"]) for p in data["depends_on_uplink"]} == {
        ("vm-app01", "vm-db01"), ("vm-app02", "vm-db01"), ("vm-db01", "vm-app01"), ("vm-db01", "vm-app02")}
    assert data["legend"] == LEGEND
    assert "depends_on_uplink" not in json.loads(matrix_json(verdict_table(load(PLAIN)), "plain"))


def test_the_report_table_marks_cells_with_a_legend():
    html = report_html(load(HALF), Options())
    assert html.count("&#8645;") == 4 and LEGEND.replace(MARK, "").strip() in html
    assert "&#8645;" not in report_html(load(PLAIN), Options())


def test_the_cli_grid_marks_cells():
    out = subprocess.run([sys.executable, "-m", "vnetbench", "matrix", str(HALF)], capture_output=True, text=True,
                         check=True).stdout
    assert out.count(MARK) == 4 + 1 and LEGEND in out
