"""Benchmark of ``vnetbench verify`` on the local lab; prints wall and CPU time, asserts nothing.

    .venv/bin/python tests/bench/bench_verify.py [--parallel N] [--labs 50,200]     (as root)

Targets from the issue: a 50-VM lab with all 2,450 ordered pairs in at most 30 s, a 200-VM lab by class
representatives in at most 60 s, on this 2-core machine. The design is ``campus``: 5 ESXi hosts with one
vSwitch each and two VLANs, trunked to one L3 switch, so the pairs are in-host, via-physical and routed. CPU is
this process's and its children's (the probers, one per VM, and the counter reads) together; the machine's load average is printed beside, since
the machine is shared and wall time follows it.

The 50-VM lab needs about 1,300 neighbour (ARP) entries for all its pairs, more than the host kernel's one table
for every namespace holds (``gc_thresh3``, 1024): verify takes the pairs in groups of sources that fit, so no
echo is lost to a refused entry. The kernel's count of refusals during the run (``table_fulls`` of
``/proc/net/stat/arp_cache``, for the whole host) is printed: above 0, that pacing failed or someone else filled it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backends"))

from lab_designs import campus  # noqa: E402
from vnetbench.measure.verify import PARALLEL, Verifier, plan_pairs  # noqa: E402
from vnetbench.predict import Engine  # noqa: E402
from vnetbench_local import LocalLabBackend  # noqa: E402


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _arp_table_fulls() -> int:
    """How many times the host's ARP table refused a new entry (summed over CPUs), or -1 if unreadable."""
    try:
        head, *rows = Path("/proc/net/stat/arp_cache").read_text().split("\n")
        col = head.split().index("table_fulls")
        return sum(int(row.split()[col], 16) for row in rows if row.strip())
    except (OSError, ValueError, IndexError):
        return -1


def bench(vms: int, all_pairs_up_to: int, parallel: int, target: float) -> None:
    hosts = 5
    design = campus(vms_per_host=vms // hosts, hosts=hosts)
    with tempfile.TemporaryDirectory() as tmp:
        backend = LocalLabBackend({"mode": "root", "state_dir": tmp})
        results = backend.apply(backend.plan(design))
        assert all(r.ok for r in results), [r.error for r in results if not r.ok]
        try:
            load, fulls = os.getloadavg()[0], _arp_table_fulls()
            w0, c0 = time.perf_counter(), _cpu()
            engine = Engine(design)
            matrix = engine.matrix()
            plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict,
                                            all_pairs_up_to)
            w1, c1 = time.perf_counter(), _cpu()
            result = Verifier(backend, design, plans, scope, parallel, limits=left).run()
            w2, c2 = time.perf_counter(), _cpu()
            fulls = _arp_table_fulls() - fulls
        finally:
            backend.teardown(design.id)
    counts = result.counts()
    print(f"{vms} VMs, {scope}")
    print(f"  plan (predictions): wall {w1 - w0:6.2f} s  cpu {c1 - c0:6.2f} s")
    print(f"  probes:             wall {w2 - w1:6.2f} s  cpu {c2 - c1:6.2f} s")
    print(f"  total:              wall {w2 - w0:6.2f} s  cpu {c2 - c0:6.2f} s  (target {target:g} s; load average "
          f"{load:.2f} before, {os.getloadavg()[0]:.2f} after; {os.cpu_count()} CPUs)")
    print(f"  {len(result.cells)} pairs probed: {counts}; {result.headline()}")
    print(f"  neighbour entries the kernel refused meanwhile (ARP table full): {fulls}")
    for cell in [c for c in result.cells if c.contradictions][:5]:
        print(f"  contradicted {cell.src_name} -> {cell.dst_name}: " + "; ".join(
            f"{ch.what}: {ch.detail}" for ch in cell.contradictions))


def main() -> None:
    if os.geteuid() != 0:
        sys.exit("run as root: the benchmark deploys a lab in root mode")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parallel", type=int, default=PARALLEL)
    parser.add_argument("--labs", default="50,200", help="which labs to run: 50, 200 or both (50,200)")
    args = parser.parse_args()
    labs = args.labs.split(",")
    if "50" in labs:
        bench(50, 50, args.parallel, 30)
    if "200" in labs:
        bench(200, 0, args.parallel, 60)


if __name__ == "__main__":
    main()
