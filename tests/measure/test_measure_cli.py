"""`vnetbench measure` and `vnetbench runs` end to end on the ESX example in the local lab."""

from __future__ import annotations

import json
import uuid

import pytest

from vnetbench import resources_dir
from vnetbench.backends import backend_class
from vnetbench.cli.main import main
from vnetbench.model import load, save

pytestmark = [pytest.mark.lab, pytest.mark.slow]


@pytest.fixture
def lab_design(tmp_path, monkeypatch):
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    state = str(tmp_path / "lab")
    design = load(resources_dir() / "examples" / "esx-four-cases.vnet.yaml")
    design.id = f"mc-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "four.vnet.yaml"
    save(design, path)
    backend = backend_class("local")({"state_dir": state})
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    yield path, state
    backend.teardown(design.id)


def test_measure_prints_the_figure_beside_the_prediction_and_stores_it(lab_design, capsys, tmp_path):
    path, state = lab_design
    code = main(["measure", str(path), "--from", "web01", "--to", "bak01", "--test", "throughput",
                 "--duration", "2", "--set", f"state_dir={state}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "web01 -> bak01: TCP throughput, 2 s" in out and "Mbit/s received" in out
    assert "predicted  via-physical" in out and "estimate 920 Mbit/s" in out
    assert "%" in err and "[" in err  # the progress bar

    code = main(["measure", str(path), "--from", "web01", "--to", "web02", "--test", "rr", "--duration", "1",
                 "--json", "--set", f"state_dir={state}"])
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert code == 0 and data["run"]["status"] == "ok"
    assert data["run"]["summary"]["rtt_p50_us"] > 0 and data["run"]["prediction"]["verdict"] == "in-host"
    assert data["comparison"]["flags"] == []

    assert main(["runs", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["to"] for r in rows] == ["web02", "bak01"] and rows[1]["verdict"] == "via-physical"
    assert main(["runs", "show", str(rows[1]["id"])]) == 0
    shown = capsys.readouterr().out
    assert "$ [bak01] iperf3 -s" in shown and "tool_version=iperf 3." in shown

    csv_file = tmp_path / "run.csv"
    assert main(["runs", "export", str(rows[1]["id"]), "--csv", str(csv_file)]) == 0
    assert csv_file.read_text().startswith("# vnetbench-run ")
    assert main(["runs", "import", str(csv_file)]) == 0
    assert "as run #3" in capsys.readouterr().out
    assert main(["runs", "calibrate", str(rows[1]["id"]), "--name", "my-lab"]) == 0
    assert "my-lab.yaml" in capsys.readouterr().out


def test_ab_runs_both_variants(lab_design, capsys):
    path, state = lab_design
    code = main(["measure", str(path), "--from", "web01", "--to", "web02", "--versus-to", "bak01",
                 "--test", "throughput", "--duration", "1", "--set", f"state_dir={state}"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "[A web01->web02]" in out and "[B web01->bak01]" in out and "B/A = 0." in out


def test_measure_says_when_the_design_is_not_deployed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    design = load(resources_dir() / "examples" / "esx-four-cases.vnet.yaml")
    design.id = f"mc-none-{uuid.uuid4().hex[:6]}"
    path = tmp_path / "x.vnet.yaml"
    save(design, path)
    code = main(["measure", str(path), "--from", "web01", "--to", "web02", "--test", "throughput",
                 "--set", f"state_dir={tmp_path / 'lab'}"])
    err = capsys.readouterr().err
    assert code == 3 and "not deployed" in err and "lab up" in err
    assert main(["measure", str(path), "--from", "web01", "--to", "nobody", "--test", "rr"]) == 2
    assert "--to: no VM or physical host named 'nobody'" in capsys.readouterr().err
    assert main(["measure", str(path), "--from", "web01", "--to", "web02", "--test", "rr", "--size", "2"]) == 2
    assert "message_size 2 is out of range" in capsys.readouterr().err
    assert main(["runs", "export", "99", "--json", str(tmp_path / "r.json")]) == 2
    assert "no run #99" in capsys.readouterr().err
