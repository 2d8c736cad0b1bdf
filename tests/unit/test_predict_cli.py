"""The predict, matrix and diff commands on the bundled examples."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest

from vnetbench import resources_dir
from vnetbench.cli.main import main
from vnetbench.model import load, save

FOUR = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"
EXAMPLES = sorted((resources_dir() / "examples").glob("*.vnet.yaml"))


def test_predict_prints_numbered_hops_verdict_and_estimate(capsys):
    assert main(["predict", str(FOUR), "--from", "web01", "--to", "db01"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "web01 -> db01: routed-via-physical"
    assert "   1  vnic             web01/eth0" in out
    assert "router           core-sw1-l3" in out
    assert "estimate: 920 Mbit/s, bottleneck esx01/vmnic0" in out
    assert "pNICs crossed: esx01/vmnic0 (out and back)" in out  # by name, never by id; crossed out and back


def test_predict_json_with_protocol(capsys):
    assert main(["predict", str(FOUR), "--from", "web01", "--to", "web02", "--proto", "tcp", "--port", "5201",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "in-host"
    assert data["forward"]["crosses_pnic"] is False
    assert data["forward"]["estimate"]["throughput_mbps"] > 0


def test_predict_unknown_name_suggests_and_exits_2(capsys):
    assert main(["predict", str(FOUR), "--from", "web1", "--to", "db01"]) == 2
    err = capsys.readouterr().err
    assert "no VM or physical host named 'web1'" in err and "web01" in err


@pytest.mark.parametrize("design", EXAMPLES, ids=lambda p: p.name)
def test_matrix_answers_on_every_example(design, capsys):
    assert main(["matrix", str(design), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    topology = load(design)
    from vnetbench.model.hostos import endpoint_hosts

    n = len(topology.vms) + len(topology.physical_hosts) + len(endpoint_hosts(topology))   # a host OS too
    assert len(rows) == n * (n - 1)
    assert {r["verdict"] for r in rows} <= {"in-host", "in-host-routed", "via-physical", "routed-via-physical",
                                           "blocked", "unreachable"}


def test_matrix_json_and_grid(capsys):
    assert main(["matrix", str(FOUR), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    i, j = data["names"].index("web01"), data["names"].index("bak01")
    assert data["verdicts"][i][j] == "via-physical"
    assert data["verdicts"][i][i] is None
    assert main(["matrix", str(FOUR)]) == 0
    assert "PR=routed-via-physical" in capsys.readouterr().out


def test_matrix_streams_json_lines_and_csv_that_agree_with_the_grid(capsys):
    assert main(["matrix", str(FOUR), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["matrix", str(FOUR), "--jsonl"]) == 0
    head, *rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert head == {"endpoints": data["endpoints"], "names": data["names"]}
    assert [r["src"] for r in rows] == data["endpoints"]
    assert [r["verdicts"] for r in rows] == data["verdicts"]
    assert main(["matrix", str(FOUR), "--csv"]) == 0
    pairs = {(r["src"], r["dst"]): r["verdict"] for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    names = data["names"]
    assert pairs == {(names[i], names[j]): v for i, row in enumerate(data["verdicts"])
                     for j, v in enumerate(row) if v is not None}


def test_matrix_summary_counts_pairs_per_verdict(capsys):
    assert main(["matrix", str(FOUR), "--json"]) == 0
    verdicts = [v for row in json.loads(capsys.readouterr().out)["verdicts"] for v in row if v]
    assert main(["matrix", str(FOUR), "--summary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"{len(verdicts):,} ordered pairs" in lines[0]
    counted = {line.split()[0]: int(line.split()[1].replace(",", "")) for line in lines[1:]}
    assert counted == {v: verdicts.count(v) for v in set(verdicts)}


def test_matrix_past_a_size_refuses_in_one_line_naming_the_streamed_outputs(capsys, monkeypatch):
    from vnetbench.cli.commands import matrix

    n = len(load(FOUR).vms) + len(load(FOUR).physical_hosts)
    monkeypatch.setattr(matrix, "MAX_JSON", n - 1)
    monkeypatch.setattr(matrix, "MAX_GRID", n - 1)
    assert main(["matrix", str(FOUR), "--json"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--jsonl" in err and "--csv" in err
    assert main(["matrix", str(FOUR)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--csv" in err and "--summary" in err
    assert main(["matrix", str(FOUR), "--csv"]) == 0      # the streamed outputs have no limit


def test_diff_reports_what_changed_and_why(tmp_path, capsys):
    old = tmp_path / "old.vnet.yaml"
    shutil.copy(FOUR, old)
    assert main(["diff", str(old), str(old)]) == 0
    assert "no pair changed" in capsys.readouterr().out
    topology = load(FOUR)
    bak = next(sw for sw in topology.switches if sw.name == "vSwitch1")
    bak.uplinks = []
    new = tmp_path / "new.vnet.yaml"
    save(topology, new)
    assert main(["diff", str(old), str(new), "--json"]) == 1
    changes = json.loads(capsys.readouterr().out)
    pair = next(c for c in changes if c["src"] == "vm-web01" and c["dst"] == "vm-bak01")
    assert (pair["before"], pair["after"]) == ("via-physical", "unreachable")
    assert any("vSwitch1 has no uplink" in w for w in pair["what"])
