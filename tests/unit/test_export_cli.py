"""``vnetbench export``: options reach the exporters; bad input is one clear line and exit code 2."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from vnetbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FOUR = ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"


def test_writes_the_file_and_reports_it_as_json(tmp_path, capsys):
    out = tmp_path / "four.png"
    assert main(["export", str(FOUR), "-f", "png", "-o", str(out), "--scale", "2", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["path"] == str(out) and info["format"] == "png" and info["scale"] == 2.0
    assert info["bytes"] == out.stat().st_size > 1000


def test_default_output_name_is_derived_from_the_design(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["export", str(FOUR), "-f", "matrix-csv"]) == 0
    assert (tmp_path / "esx-four-cases-matrix.csv").is_file()


def test_select_and_path_reach_the_drawing(tmp_path):
    out = tmp_path / "sel.svg"
    assert main(["export", str(FOUR), "-f", "svg", "-o", str(out), "--select", "vm-web01",
                 "--path", "web01", "web02"]) == 0
    texts = {"".join(t.itertext()) for t in ET.parse(out).getroot().iter("{http://www.w3.org/2000/svg}text")}
    assert "web01" in texts and "web02" not in texts and "web01 \u2192 web02: in-host" in texts


def test_bad_input_is_one_line_with_exit_2(tmp_path, capsys):
    cases = [
        (["--select", "no-such-id"], "no object with id 'no-such-id'"),
        (["--path", "web01", "nobody"], "--path"),
        (["--scale", "-1"], "scale must be"),
        (["-f", "report-html", "--pair", "web01", "ghost"], "--pair web01 ghost"),
    ]
    for extra, words in cases:
        assert main(["export", str(FOUR), "-f", "png", "-o", str(tmp_path / "x.png"), *extra]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["export", str(FOUR), "-f", "svg", "-o", str(tmp_path / "no" / "dir" / "x.svg")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "missing.vnet.yaml"), "-f", "svg", "-o", str(tmp_path / "x.svg")]) == 2
    assert not (tmp_path / "x.svg").exists()


def test_files_are_replaced_whole_and_readable(tmp_path):
    out = tmp_path / "four.drawio"
    out.write_text("old")
    out.chmod(0o640)
    assert main(["export", str(FOUR), "-f", "drawio", "-o", str(out), "--select", "missing"]) == 2
    assert out.read_text() == "old"
    assert main(["export", str(FOUR), "-f", "drawio", "-o", str(out)]) == 0
    assert out.read_text().startswith("<mxfile") and out.stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh.png"
    assert main(["export", str(FOUR), "-f", "png", "-o", str(fresh)]) == 0
    assert fresh.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
