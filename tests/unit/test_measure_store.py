"""The run store: round trips through SQLite, JSON and CSV exports, and clear errors on bad files."""

from __future__ import annotations

import json

import pytest

from vnetbench.measure import Run, RunStore, Sample, StoreError, TestSpec, data_dir


def a_run(kind: str = "throughput", **extra) -> Run:
    spec = TestSpec(kind, duration=2, streams=2) if kind == "throughput" else TestSpec(kind, duration=1)
    return Run(spec=spec, src="vm-a", dst="vm-b", src_name="web01", dst_name="web02", tool=spec.kind.tool,
               commands=["[web02] iperf3 -s -1 -p 5301", "[web01] iperf3 -c 10.0.0.2 -p 5301 -t 2"],
               samples=[Sample(0.5, 940.25, "throughput"), Sample(1.0, 941.5, "throughput"),
                        Sample(1.5, 939.0, "throughput")],
               summary={"throughput_mbps": 940.0, "sender_mbps": 942.0, "retransmits": 3},
               started=1_700_000_000.5, ended=1_700_000_003.0, env={"kernel": "6.1.0", "cpu": "Test CPU"},
               design_name="lab", design_digest="abc123", backend="local",
               prediction={"verdict": "via-physical", "throughput_mbps": 920.0, "latency_us": 20.0,
                           "pnic_cap_mbps": 1000.0},
               **extra)


def same(a: Run, b: Run) -> bool:
    da, db = a.to_dict(), b.to_dict()
    da.pop("id"), db.pop("id")
    return da == db


def test_data_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "d"))
    assert data_dir() == tmp_path / "d"
    store = RunStore()
    assert store.path == tmp_path / "d" / "runs.sqlite" and store.path.exists()
    monkeypatch.delenv("VNETBENCH_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "vnetbench"


def test_add_get_list_delete(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    first, second = a_run(), a_run("rr", label="B")
    second.started += 10
    id1, id2 = store.add(first), store.add(second)
    assert id1 != id2 and first.id == id1
    back = store.get(id1)
    assert same(back, first) and back.id == id1
    assert [s.value for s in back.samples] == [940.25, 941.5, 939.0]
    listed = store.list()
    assert [r.id for r in listed] == [id2, id1]  # newest first
    assert listed[0].samples == [] and listed[0].label == "B"
    store.delete(id1)
    with pytest.raises(StoreError, match=f"no run #{id1}"):
        store.get(id1)
    assert [r.id for r in store.list()] == [id2]


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_and_reimport(tmp_path, fmt):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.add(a_run())
    out = store.export(run_id, tmp_path / f"run.{fmt}")
    text = out.read_text()
    if fmt == "csv":
        assert text.startswith("# vnetbench-run {")
        assert text.splitlines()[1] == "t,series,value" and text.splitlines()[2] == "0.5,throughput,940.25"
    else:
        assert json.loads(text)["summary"]["throughput_mbps"] == 940.0
    other = RunStore(tmp_path / "other.sqlite")
    new_id = other.import_file(out)
    assert same(other.get(new_id), store.get(run_id))


def test_import_rejects_foreign_files(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(StoreError, match="not a vnetbench run export"):
        store.import_file(bad)
    bad.write_text("t,series,value\n1,2,3\n")
    with pytest.raises(StoreError, match="neither a vnetbench CSV nor JSON"):
        store.import_file(bad)
    run_id = store.add(a_run())
    csv_file = store.export(run_id, tmp_path / "r.csv")
    csv_file.write_text(csv_file.read_text().replace("0.5,throughput,940.25", "half,throughput,940.25"))
    with pytest.raises(StoreError, match="line 3: t and value must be numbers"):
        store.import_file(csv_file)
    data = json.loads(store.export(run_id, tmp_path / "r.json").read_text())
    data["spec"]["kind"] = "bogus"
    bad.write_text(json.dumps(data))
    with pytest.raises(StoreError, match="kind 'bogus' is unknown"):
        store.import_file(bad)
    with pytest.raises(StoreError, match="cannot read"):
        store.import_file(tmp_path / "missing.json")
    with pytest.raises(StoreError, match="format 'xml'"):
        store.export(run_id, tmp_path / "r.xml")
