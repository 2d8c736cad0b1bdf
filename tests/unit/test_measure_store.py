"""The run store: round trips through SQLite, JSON and CSV exports, and clear errors on bad files."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

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
    assert store.path == tmp_path / "d" / "runs.sqlite" and not store.path.exists()   # made on first use
    assert store.list() == [] and store.path.exists()
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


# --- a store that cannot take a run (issue 12, items 7 and 7d) -------------------------------------------------


def one_line(exc: StoreError) -> str:
    text = str(exc)
    assert "\n" not in text and len(text) < 600, text
    return text


def kept(exc: StoreError) -> Run:
    """The run a failed ``add`` kept in its fallback file, read back as an export."""
    path = str(exc).split("kept in ", 1)[1].split(" (", 1)[0]
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    assert data["vnetbench_run"] == 1
    return Run.from_dict({k: v for k, v in data.items() if k != "vnetbench_run"})


def test_a_locked_store_says_so_and_keeps_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr("vnetbench.measure.store.LOCK_TIMEOUT_S", 0.3)
    store = RunStore(tmp_path / "runs.sqlite")
    assert store.list() == []
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError) as err:
            store.add(a_run())
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert "is locked by another program" in one_line(err.value)
    assert same(kept(err.value), a_run())
    assert store.list() == []                                      # nothing half-written


def test_a_damaged_store_says_so_everywhere_and_keeps_the_run(tmp_path):
    path = tmp_path / "runs.sqlite"
    path.write_bytes(b"this is not a database, just a file that took its name" * 100)
    store = RunStore(path)
    with pytest.raises(StoreError) as err:
        store.add(a_run())
    assert "is damaged" in one_line(err.value) and same(kept(err.value), a_run())
    for call in (store.list, lambda: store.get(1)):
        with pytest.raises(StoreError) as err:
            call()
        assert "is damaged" in one_line(err.value)


def test_a_damaged_row_hides_none_of_the_others(tmp_path):
    """One row that cannot be read is listed as damaged, with its id; the runs beside it stay readable."""
    store = RunStore(tmp_path / "runs.sqlite")
    ids = [store.add(a_run()) for _ in range(3)]
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET data = '{not json' WHERE id = ?", (ids[1],))
        db.execute("UPDATE runs SET data = '[1, 2]' WHERE id = ?", (ids[2],))
    listing = store.scan()
    assert [r.id for r in listing.runs] == [ids[0]] == [r.id for r in store.list()]
    assert [run_id for run_id, _ in listing.damaged] == [ids[2], ids[1]] and not listing.damage
    assert same(store.get(ids[0]), a_run())
    with pytest.raises(StoreError) as err:
        store.get(ids[1])
    assert f"run #{ids[1]}" in one_line(err.value) and "is damaged" in one_line(err.value)


def test_runs_lists_what_it_can_read_and_marks_the_damaged_row(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    ids = [store.add(a_run()) for _ in range(3)]
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET data = '{not json' WHERE id = ?", (ids[1],))
    env = {**os.environ, "VNETBENCH_DATA_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "vnetbench", "runs"], capture_output=True, text=True, env=env,
                          timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [f"#{ids[2]}", f"#{ids[0]}", f"#{ids[1]}"]
    assert "DAMAGED" in lines[2] and "web01 -> web02" in lines[0] + lines[1]
    assert f"#{ids[1]}" in proc.stderr and proc.stderr.count("\n") == 1
    proc = subprocess.run([sys.executable, "-m", "vnetbench", "runs", "--json"], capture_output=True, text=True,
                          env=env, timeout=60)
    rows = json.loads(proc.stdout)
    assert [r["id"] for r in rows if "damaged" in r] == [ids[1]] and len(rows) == 3


def _page_corrupted(tmp_path: Path) -> RunStore:
    """A store of several pages whose middle pages were overwritten (its header, page 1, intact)."""
    store = RunStore(tmp_path / "runs.sqlite")
    for _ in range(30):
        run = a_run()
        run.samples = run.samples * 40
        store.add(run)
    assert store.path.stat().st_size > 4096 * 12
    with open(store.path, "r+b") as f:
        f.seek(4096 * 5)
        f.write(bytes(range(256)) * 16 * 4)
    return RunStore(store.path)


def test_a_page_corrupted_store_takes_no_run_and_keeps_it_in_the_fallback_file(tmp_path):
    store = _page_corrupted(tmp_path)
    with pytest.raises(StoreError) as err:
        store.add(a_run())
    message = one_line(err.value)
    assert "is damaged" in message and "takes no new run" in message
    assert same(kept(err.value), a_run())


def test_runs_on_a_page_corrupted_store_says_so_in_one_line(tmp_path):
    """``vnetbench runs`` says in one line that the file is damaged (and lists what it can still read when
    the damage spares the runs table)."""
    _page_corrupted(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "vnetbench", "runs"], capture_output=True, text=True,
                          env={**os.environ, "VNETBENCH_DATA_DIR": str(tmp_path)}, timeout=60)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "is damaged" in proc.stderr


def test_runs_on_a_damaged_store_is_one_line(tmp_path):
    (tmp_path / "runs.sqlite").write_text("garbage" * 500)
    proc = subprocess.run([sys.executable, "-m", "vnetbench", "runs"], capture_output=True, text=True,
                          env={**os.environ, "VNETBENCH_DATA_DIR": str(tmp_path)}, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "is damaged" in proc.stderr


def test_a_data_folder_that_cannot_be_made_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    store = RunStore(blocker / "sub" / "runs.sqlite")
    with pytest.raises(StoreError) as err:
        store.add(a_run())
    assert "cannot open the run store" in one_line(err.value) and same(kept(err.value), a_run())


FULL_AND_READ_ONLY = """
import json, os, sys
from vnetbench.measure import RunStore, StoreError
sys.path.insert(0, {tests!r})
from test_measure_store import a_run
out = {{}}
full, ro = {full!r}, {ro!r}
store = RunStore(full + "/runs.sqlite")
store.add(a_run())
fd = os.open(full + "/filler", os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(fd, b"x" * 4096)
except OSError:
    os.close(fd)
big = a_run()
big.samples = big.samples * 3000
try:
    store.add(big)
    out["full"] = "stored"
except StoreError as exc:
    out["full"] = str(exc)
os.unlink(full + "/filler")
out["after_full"] = [r.to_dict()["samples"] for r in RunStore(full + "/runs.sqlite").list()].__len__()
ro_store = RunStore(ro + "/runs.sqlite")
ro_store.add(a_run())
os.system(f"mount -o remount,ro {{ro}}")
try:
    ro_store.add(a_run())
    out["ro"] = "stored"
except StoreError as exc:
    out["ro"] = str(exc)
out["ro_list"] = len(RunStore(ro + "/runs.sqlite").list())
try:
    RunStore(ro + "/new/runs.sqlite").add(a_run())
    out["ro_new"] = "stored"
except StoreError as exc:
    out["ro_new"] = str(exc)
print("RESULT " + json.dumps(out))
"""


def test_a_full_disk_and_a_read_only_folder_say_so_and_keep_the_run(tmp_path):
    """Real small filesystems, mounted in a private user and mount namespace (no root needed)."""
    full, ro, keep = tmp_path / "full", tmp_path / "ro", tmp_path / "keep"
    for folder in (full, ro, keep):
        folder.mkdir()
    script = FULL_AND_READ_ONLY.format(tests=str(Path(__file__).parent), full=str(full), ro=str(ro))
    setup = f"mount -t tmpfs -o size=256k tmpfs {full} && mount -t tmpfs -o size=1m tmpfs {ro} && "
    proc = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                           setup + f'exec {sys.executable} -c "$0"', script], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "TMPDIR": str(keep)})
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines and "Operation not permitted" in proc.stderr and os.environ.get("CI") != "1":
        pytest.skip(f"no unprivileged user namespaces here: {proc.stderr.strip()[:200]}")
    assert lines, proc.stderr[-3000:]
    out = json.loads(lines[0][len("RESULT "):])
    assert "is full" in out["full"] and "kept in " + str(keep) in out["full"], out["full"]
    assert out["after_full"] == 1                                  # the store is whole: one run, not 1.5
    assert "read-only" in out["ro"] and "kept in " in out["ro"], out["ro"]
    assert out["ro_list"] == 1
    assert out["ro_new"] != "stored" and "kept in " in out["ro_new"], out["ro_new"]
    assert len(list(keep.glob("vnetbench-run-*.json"))) == 3
    for value in (out["full"], out["ro"], out["ro_new"]):
        assert "\n" not in value and len(value) < 600
