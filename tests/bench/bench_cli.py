"""How long the command line takes to answer, as whole processes (start-up included; prints figures).

    .venv/bin/python tests/bench/bench_cli.py            # every command, 15 runs each
    .venv/bin/python tests/bench/bench_cli.py --runs 30

Each command runs as the user runs it: the installed ``vnetbench`` script of this interpreter's environment,
a fresh process every time. Targets (issue 14, 2-core machine): ``--version`` and ``--help`` <= 150 ms;
``validate`` and ``predict`` on a bundled example <= 350 ms. A bare ``python -c pass`` is printed as the floor.
The median is the figure to quote; the best run shows what a quiet machine gives.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml")
SCRIPT = str(Path(sys.executable).parent / "vnetbench")

#: (label, argv, target in ms or None)
COMMANDS = [
    ("python -c pass (floor)", [sys.executable, "-c", "pass"], None),
    ("vnetbench --version", [SCRIPT, "--version"], 150),
    ("vnetbench --help", [SCRIPT, "--help"], 150),
    ("vnetbench validate EXAMPLE", [SCRIPT, "validate", EXAMPLE], 350),
    ("vnetbench predict EXAMPLE web01 db01", [SCRIPT, "predict", EXAMPLE, "--from", "web01", "--to", "db01"], 350),
    ("vnetbench matrix EXAMPLE", [SCRIPT, "matrix", EXAMPLE], None),
]


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print(f"{'command':<40} {'median ms':>10} {'best ms':>8} {'target':>7}")
    for label, argv, target in COMMANDS:
        timed(argv)  # warm the file cache
        runs = [timed(argv) for _ in range(args.runs)]
        median = statistics.median(runs)
        verdict = "" if target is None else (f"<= {target}" + (" ok" if median <= target else " MISSED"))
        print(f"{label:<40} {median:>10.0f} {min(runs):>8.0f} {verdict:>7}")
    print(f"{args.runs} runs each; load average at the end: {open('/proc/loadavg').read().split()[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
