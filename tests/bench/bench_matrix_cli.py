"""``vnetbench matrix`` as whole processes on large designs: wall, CPU and peak RSS (prints figures).

    .venv/bin/python tests/bench/bench_matrix_cli.py                      # 10,000 and 45,000 VMs
    .venv/bin/python tests/bench/bench_matrix_cli.py --sizes 10000 --shape racks

Each design from ``generate.SHAPES`` is saved to a file first, then the installed ``vnetbench`` script runs
on it as the user runs it, once per output: ``--summary`` (counts on classes), ``--csv`` and ``--jsonl``
(streamed: every ordered pair, 100 million at 10,000 VMs, two billion at 45,000). A streamed output past
``--limit`` bytes (default 2 GB) is read up to there and the pipe closed, as ``| head -c`` would, so a
whole vCenter's 60 GB of CSV is not waited for: its rate and its peak memory are what tell. Targets (issue
32): memory bounded at any size (the peak of ``--csv`` within a few hundred MiB of ``--summary``'s), never
a MemoryError. CPU and peak RSS come from the child's rusage; the load average is printed at the end.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import SHAPES  # noqa: E402

from vnetbench.model import save  # noqa: E402

SCRIPT = str(Path(sys.executable).parent / "vnetbench")
SIZES = {10_000: 500, 45_000: 2_500}
OUTPUTS = ["--summary", "--csv", "--jsonl"]


def run(argv: list[str], limit: int) -> tuple[float, float, float, int, int]:
    """Wall s, CPU s, peak RSS MiB, bytes read, exit status of one process, its output read up to ``limit``."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = 0
    while got < limit:
        chunk = proc.stdout.read1(1 << 20)
        if not chunk:
            break
        got += len(chunk)
    proc.stdout.close()        # past the limit: the writer meets a closed pipe, as under `| head -c`
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if err.strip():
        print("   stderr:", err.decode(errors="replace").strip().splitlines()[-1])
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, got, os.waitstatus_to_exitcode(status)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--shape", default=None, help="generate.SHAPES name (default: racks; vcenter at 45,000)")
    parser.add_argument("--limit", type=float, default=2e9, help="bytes of a streamed output read (2e9)")
    args = parser.parse_args()
    print(f"{'shape':<9} {'VMs':>6} {'output':<10} {'wall s':>8} {'CPU s':>8} {'peak RSS MiB':>12} {'bytes':>15}  "
          "status")
    with tempfile.TemporaryDirectory() as tmp:
        for vms in args.sizes:
            shape = args.shape or ("vcenter" if vms >= 45_000 else "racks")
            path = Path(tmp) / f"{shape}-{vms}.vnet.yaml"
            save(SHAPES[shape](vms, SIZES.get(vms, vms // 20), 1), path)
            for output in OUTPUTS:
                wall, cpu, rss, got, code = run([SCRIPT, "matrix", str(path), output], int(args.limit))
                cut = " (read up to the limit, then closed)" if got >= args.limit else ""
                print(f"{shape:<9} {vms:>6} {output:<10} {wall:>8.1f} {cpu:>8.1f} {rss:>12.0f} {got:>15,}  "
                      f"exit {code}{cut}", flush=True)
    print("load average at the end:", open("/proc/loadavg").read().split()[:3])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
