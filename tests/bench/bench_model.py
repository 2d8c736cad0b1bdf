"""Benchmark of the model on large designs: save, load and validate; prints figures, asserts nothing.

    .venv/bin/python tests/bench/bench_model.py [VMS ...]

Validation runs after every edit in the designer (the problems panel), so its time on a large design is the
figure to watch; load and save times are what opening and saving a file costs.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate  # noqa: E402
from vnetbench.model import dumps, loads  # noqa: E402
from vnetbench.model.validate import validate  # noqa: E402


def timed(fn, *args, repeat: int = 3):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def main(sizes: list[int]) -> None:
    print(f"{'VMs':>6} {'hosts':>6} {'objects':>8} {'file KiB':>9} {'save ms':>8} {'load ms':>8} {'json load ms':>13}"
          f" {'validate ms':>12}  problems")
    for vms in sizes:
        topology = generate(vms=vms, hosts=max(2, vms // 20))
        save_s, text = timed(dumps, topology)
        load_s, loaded = timed(loads, text)
        json_s, from_json = timed(loads, dumps(topology, "json"))
        assert from_json == loaded
        check_s, problems = timed(validate, loaded)
        objects = text.count("\n- id:") + text.count("  id:")
        kinds = Counter(p.severity for p in problems)
        print(f"{vms:>6} {len(topology.hosts):>6} {objects:>8} {len(text.encode()) / 1024:>9.0f} {save_s * 1e3:>8.0f} "
              f"{load_s * 1e3:>8.0f} {json_s * 1e3:>13.0f} {check_s * 1e3:>12.1f}  {kinds['error']} errors, {kinds['warning']} warnings")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1_000, 10_000])
