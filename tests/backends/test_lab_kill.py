"""SIGKILL `lab up` at random moments, 20 times: each time the next `up` converges and `down` restores the kernel.

Half the kills land while the namespace batch runs (an ``ip`` wrapper says when it starts), half at a random
moment of a whole deploy. The whole process group dies, ``ip`` children included, as with a power cut of
the terminal. Safe on a shared machine: the design has an id of its own (so its own namespace tag), its
state folder is the test's, and it removes only its own lab (``lab down FILE``, never ``--all``).
``VNETBENCH_KILL_ROUNDS`` sets the number of rounds (default 20).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lab_designs import campus
from lab_kernel import kernel_lists

from vnetbench.model import load, save
from vnetbench_local import LocalLabBackend
from vnetbench.backends.planning import design_tag
from vnetbench_local.names import ns_prefix

pytestmark = pytest.mark.lab
ROUNDS = int(os.environ.get("VNETBENCH_KILL_ROUNDS", "20"))


def _cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vnetbench", "lab", "--mode", "root", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def _start(env: dict, path: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "vnetbench", "lab", "--mode", "root", "up", str(path), "--yes"],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_lab_up_killed_at_random_moments_always_converges(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces on the host's kernel)")
    seed = int(os.environ.get("VNETBENCH_KILL_SEED", str(int(time.time()))))
    rnd = random.Random(seed)
    design = campus(vms_per_host=2, hosts=2)
    tag = design_tag(design.id)
    path = tmp_path / "kill.vnet.yaml"
    save(design, path)
    state_dir = tmp_path / "state"
    env = {**os.environ, "VNETBENCH_LAB_DIR": str(state_dir)}
    started = tmp_path / "netns-batch-started"
    real = subprocess.run(["sh", "-c", "command -v ip"], capture_output=True, text=True).stdout.strip()
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "ip").write_text(f'#!/bin/sh\ncase " $* " in *" -n "*) ;; *" -batch "*) touch {started};; esac\n'
                             f'exec {real} "$@"\n')
    (shim / "ip").chmod(0o755)
    shim_env = {**env, "PATH": f"{shim}:{env['PATH']}"}
    backend = LocalLabBackend({"mode": "root", "state_dir": str(state_dir)})   # the next up and down, in here
    design = load(path)
    before = kernel_lists()

    t0 = time.monotonic()
    assert _cli(env, "up", str(path), "--yes").returncode == 0
    deploy_s = time.monotonic() - t0
    assert _cli(env, "down", str(path)).returncode == 0

    where = []
    try:
        for n in range(ROUNDS):
            started.unlink(missing_ok=True)
            if n % 2 == 0:      # while the namespace batch runs
                proc = _start(shim_env, path)
                deadline = time.monotonic() + 30
                while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.002)
                time.sleep(rnd.uniform(0, 0.03))
                where.append("netns batch")
            else:               # anywhere in a deploy
                proc = _start(env, path)
                time.sleep(rnd.uniform(0, deploy_s))
                where.append("random")
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            round_ = f"round {n} (seed {seed}, killed {where[-1]})"
            up = backend.apply(backend.plan(design))
            assert all(r.ok for r in up), (round_, [f"{r.change.key}: {r.error}" for r in up if not r.ok])
            assert backend.plan(design).empty, (round_, [str(c) for c in backend.plan(design).changes])
            down = backend.teardown(design.id)
            assert all(r.ok for r in down), (round_, [f"{r.change.key}: {r.error}" for r in down if not r.ok])
            after = kernel_lists()
            assert after == before, (f"{round_}: the kernel differs after down",
                                     after[0] ^ before[0], after[1] ^ before[1])
            assert not (state_dir / f"{tag}.json").exists()
    finally:
        _cli(env, "down", str(path))
        leftover = {ns for ns in kernel_lists()[0] if ns.startswith(ns_prefix(tag))}
    assert not leftover
    assert len(where) == ROUNDS and where.count("netns batch") >= ROUNDS // 2
    print(f"{ROUNDS} kills (seed {seed}): {where.count('netns batch')} during the namespace batch, "
          f"{where.count('random')} at random moments of a {deploy_s:.1f} s deploy; all converged")
