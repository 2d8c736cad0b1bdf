"""`vnetbench measure` stopped by signals, run twice at once, or with a store that cannot take its run
(issue 12, items 7, 7c and 7d), on the ESX example in the local lab."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from vnetbench import resources_dir
from vnetbench.backends import backend_class
from vnetbench.model import load, save
from vnetbench_local.desired import desired_lab

pytestmark = [pytest.mark.lab, pytest.mark.slow]


@pytest.fixture
def lab(tmp_path):
    """The four-cases example deployed (root mode), with the environment a CLI child needs to find it."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    design = load(resources_dir() / "examples" / "esx-four-cases.vnet.yaml")
    design.id = f"ms-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "four.vnet.yaml"
    save(design, path)
    env = {**os.environ, "VNETBENCH_LAB_DIR": str(tmp_path / "lab"), "VNETBENCH_DATA_DIR": str(tmp_path / "data")}
    backend = backend_class("local")({"mode": "root", "state_dir": env["VNETBENCH_LAB_DIR"]})
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    namespaces = sorted({info.ns for info in desired_lab(design).endpoints.values()})
    yield path, env, namespaces
    backend.teardown(design.id)


def cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vnetbench", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def start(env: dict, path: Path, seconds: int, test: str = "throughput") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "vnetbench", "measure", str(path), "--from", "web01", "--to",
                             "bak01", "--test", test, "--duration", str(seconds)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def probes(namespaces: list[str]) -> list[str]:
    """iperf3/sockperf processes running in the lab's namespaces."""
    found = []
    for ns in namespaces:
        pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
        for pid in pids:
            try:
                name = Path(f"/proc/{pid}/comm").read_text().strip()
            except OSError:
                continue
            if name in ("iperf3", "sockperf"):
                found.append(f"{ns}:{name}:{pid}")
    return found


def wait_for(condition, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_stops_the_measure_its_probes_and_stores_nothing(lab, sig):
    path, env, namespaces = lab
    proc = start(env, path, 30)
    assert wait_for(lambda: len(probes(namespaces)) >= 2), "the probes never started"
    time.sleep(0.5)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 128 + sig, (proc.returncode, out, err)
    assert "Traceback" not in err and "KeyError" not in err, err
    assert probes(namespaces) == []
    listing = cli(env, "runs", "--json")
    assert listing.returncode == 0 and json.loads(listing.stdout) == []   # a stopped run leaves no row


def test_probes_of_a_killed_measure_are_reaped_by_lab_status_and_by_the_next_measure(lab):
    path, env, namespaces = lab
    for reaper in ("status", "measure"):
        proc = start(env, path, 30, "rr" if reaper == "measure" else "throughput")
        assert wait_for(lambda: len(probes(namespaces)) >= 2), "the probes never started"
        proc.kill()
        proc.communicate()
        assert probes(namespaces), "the killed measure's probes should still run until reaped"
        if reaper == "status":
            assert cli(env, "lab", "status").returncode == 0
        else:
            done = cli(env, "measure", str(path), "--from", "web01", "--to", "web02", "--test", "throughput",
                       "--duration", "1")
            assert done.returncode == 0, done.stderr
        assert probes(namespaces) == [], reaper


def test_two_measures_of_one_design_at_once_refuse_the_second_in_one_line(lab):
    path, env, namespaces = lab
    first = start(env, path, 4)
    assert wait_for(lambda: len(probes(namespaces)) >= 2)
    second = cli(env, "measure", str(path), "--from", "web01", "--to", "web02", "--test", "rr", "--duration", "1")
    out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    assert second.returncode == 3 and second.stderr.count("\n") == 1, second.stderr
    assert "another measurement of this deployment is running (pid " in second.stderr


def test_a_damaged_store_keeps_the_measured_result(lab):
    path, env, _ = lab
    data = Path(env["VNETBENCH_DATA_DIR"])
    data.mkdir()
    (data / "runs.sqlite").write_bytes(b"not a database" * 1000)
    done = cli({**env, "TMPDIR": str(data)}, "measure", str(path), "--from", "web01", "--to", "bak01", "--test",
               "throughput", "--duration", "1")
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "Mbit/s received" in done.stdout                      # the result is printed
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("vnetbench measure:")]
    assert len(lines) == 1 and "is damaged" in lines[0] and "Traceback" not in done.stderr, done.stderr
    kept = Path(lines[0].split("kept in ", 1)[1].split(" (", 1)[0])
    assert json.loads(kept.read_text())["summary"]["throughput_mbps"] > 0
    listing = cli(env, "runs")
    assert listing.returncode == 2 and "is damaged" in listing.stderr and "Traceback" not in listing.stderr
