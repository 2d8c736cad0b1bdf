"""Benchmark of the local lab: deploy a 50-VM design and tear it down; prints figures, asserts nothing.

    .venv/bin/python tests/bench/bench_lab.py [VMS ...] [--rootless]

Targets from the issue: deploy 50 VMs in at most 5 s, tear down in at most 1 s (Mininet needs about 60 s
for linear,200). The design: 5 ESXi hosts, one vSwitch each with two VLANs, trunked to one L3 switch;
deploy includes waiting until every link carries, then one ping across hosts proves the lab works.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backends"))

from lab_designs import campus  # noqa: E402
from vnetbench_local import LocalLabBackend  # noqa: E402


def bench(vms: int, mode: str) -> None:
    hosts = 5
    design = campus(vms_per_host=max(1, vms // hosts), hosts=hosts)
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        backend = LocalLabBackend({"mode": mode, "state_dir": tmp})
        t0 = time.perf_counter()
        plan = backend.plan(design)
        t1 = time.perf_counter()
        results = backend.apply(plan)
        t2 = time.perf_counter()
        failed = [r for r in results if not r.ok]
        replan = backend.plan(design)
        t3 = time.perf_counter()
        ping = backend.endpoint(design, "h0v0").start(["ping", "-c1", "-W2", "10.10.4.10"])
        list(ping.lines())
        reached = ping.wait(10) == 0
        shaper = measure_shaper(backend, design)
        t4 = time.perf_counter()
        down = backend.teardown(design.id)
        t5 = time.perf_counter()
    print(f"{len(design.vms):4d} VMs ({mode}): {len(plan.changes)} changes planned in {t1 - t0:.3f} s, "
          f"deployed in {t2 - t1:.2f} s (target <= 5 s), re-plan {t3 - t2:.3f} s with {len(replan.changes)} "
          f"changes, ping across hosts {'ok' if reached else 'FAILED'}, torn down in {t5 - t4:.2f} s "
          f"(target <= 1 s), {len(failed)} failed changes, {sum(r.ok for r in down)} namespaces removed")
    if shaper:
        ideal = 1000 * 1448 / 1514
        print(f"      shaper: {shaper:.1f} Mbit/s TCP goodput host 0 -> host 4 through two 1000 Mbit/s pNICs; "
              f"ideal {ideal:.1f} (line rate less Ethernet/IP/TCP headers), off by {100 * (shaper / ideal - 1):+.2f}%")


def measure_shaper(backend: LocalLabBackend, design, seconds: int = 3) -> float | None:
    """TCP goodput (Mbit/s) between VMs on two hosts: every byte crosses two pNIC shapers."""
    server = backend.endpoint(design, "h4v0").start(["iperf3", "-s", "-1", "-p", "5399"])
    time.sleep(0.3)
    client = backend.endpoint(design, "h0v0").start(["iperf3", "-c", "10.10.4.10", "-p", "5399", "-t", str(seconds),
                                                     "-O", "1", "-J"])
    out = "\n".join(client.lines())
    ok = client.wait(seconds + 20) == 0
    server.terminate()
    return json.loads(out)["end"]["sum_received"]["bits_per_second"] / 1e6 if ok else None


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:] if a.isdigit()] or [50]
    mode = "rootless" if "--rootless" in sys.argv else ("root" if os.geteuid() == 0 else "rootless")
    for vms in sizes:
        bench(vms, mode)


if __name__ == "__main__":
    main()
