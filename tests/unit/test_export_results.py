"""Results export: runs and samples from a real SQLite run store to CSV, JSON and QPainter plots."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.cli.main import main
from vnetbench.export import Options, results_csv, results_json, results_png, results_svg
from vnetbench.export.charts import nice_ticks
from vnetbench.export.results import load_runs
from vnetbench.measure.context import make_run
from vnetbench.measure.result import Measurement, Sample
from vnetbench.measure.spec import TestKind, TestSpec
from vnetbench.measure.store import RunStore
from vnetbench.model import load
from vnetbench.predict import Engine

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "export-sample.vnet.yaml"


@pytest.fixture
def artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "export"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _measurement(kind: TestKind, values: list[float], summary: dict) -> Measurement:
    samples = [Sample(0.5 * (i + 1), v, "") for i, v in enumerate(values)]
    return Measurement(TestSpec(kind), "iperf3", ["iperf3 -c 10.0.10.12"], samples, summary, 1_700_000_000.0,
                       1_700_000_005.0)


@pytest.fixture
def store(tmp_path):
    """A store with two runs of the sample design and one of another design."""
    t = load(SAMPLE)
    db = RunStore(tmp_path / "runs.sqlite")
    prediction = Engine(t).predict("web1", "web2")
    db.add(make_run(_measurement(TestKind.THROUGHPUT, [880, 905, 931, 918], {"throughput_mbps": 908.5}),
                    t, "web1", "web2", prediction))
    db.add(make_run(_measurement(TestKind.RR, [61.0, 58.5, 60.2], {"rtt_p50_us": 60.2}), t, "web1", "web2",
                    prediction))
    other = load(SAMPLE)
    other.name, other.id = "another design", "other"
    other.vms[0].name = "changed"
    db.add(make_run(_measurement(TestKind.THROUGHPUT, [10.0], {"throughput_mbps": 10.0}), other, "web1", "web2",
                    None))
    return db.path


def test_load_runs_keeps_this_designs_runs_with_samples(store):
    runs = load_runs(store, load(SAMPLE))
    assert [r.spec.kind for r in runs] == [TestKind.THROUGHPUT, TestKind.RR]
    assert [s.value for s in runs[0].samples] == [880, 905, 931, 918]
    assert len(load_runs(store)) == 3


def test_csv_has_one_row_per_sample_with_prediction_beside_it(store, tmp_path):
    runs = load_runs(store, load(SAMPLE))
    out = results_csv(load(SAMPLE), tmp_path / "r.csv", Options(runs=runs)).path
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 4 + 3
    first = rows[0]
    assert (first["src"], first["dst"], first["predicted_verdict"]) == ("web1", "web2", "via-physical")
    assert float(first["estimate"]) == 920.0 and float(first["measured"]) == 908.5
    assert [float(r["value"]) for r in rows[:4]] == [880, 905, 931, 918]


def test_json_round_trips_runs_and_comparisons(store, tmp_path):
    runs = load_runs(store, load(SAMPLE))
    data = json.loads(results_json(load(SAMPLE), tmp_path / "r.json", Options(runs=runs)).path.read_text())
    assert data["design"] == "Export sample"
    assert len(data["runs"]) == 2
    assert data["runs"][0]["comparison"]["measured"] == 908.5
    assert data["runs"][0]["samples"][2][1] == 931


def test_plots_render_as_png_and_svg(store, tmp_path, artifacts):
    runs = load_runs(store, load(SAMPLE))
    png = results_png(load(SAMPLE), artifacts / "results.png", Options(runs=runs)).path
    svg = results_svg(load(SAMPLE), tmp_path / "results.svg", Options(runs=runs)).path
    from PySide6.QtGui import QImage

    image = QImage(str(png))
    assert image.height() == 2 * image.width() * 280 // 760
    root = ET.parse(svg).getroot()
    texts = {"".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert "predicted 920 Mbit/s" in texts and "throughput (Mbit/s)" in texts and "round trip (\u00b5s)" in texts
    subprocess.run(["rsvg-convert", str(svg), "-o", str(artifacts / "results-svg.png")], check=True, timeout=60)


def test_cli_reads_the_store(store, tmp_path, capsys):
    out = tmp_path / "cli.csv"
    assert main(["export", str(SAMPLE), "-f", "results-csv", "-o", str(out), "--store", str(store)]) == 0
    assert len(out.read_text().splitlines()) == 1 + 7
    assert main(["export", str(SAMPLE), "-f", "results-csv", "-o", str(out), "--store",
                 str(tmp_path / "missing.sqlite")]) == 2
    assert "no measurement store" in capsys.readouterr().err


def test_nice_ticks_cover_the_range_with_round_steps():
    ticks = nice_ticks(0, 931)
    assert ticks[0] <= 0 and ticks[-1] >= 931 and ticks[1] - ticks[0] in (100, 200, 250)
    assert nice_ticks(5, 5)[-1] > 5
