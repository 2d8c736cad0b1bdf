"""Benchmark of saving over an existing design file (the text-keeping save); prints figures, asserts nothing.

    .venv/bin/python tests/bench/bench_save.py [VMS ...]

Three saves of a generated design: a new file (written whole), the same design again (no change: the old
bytes), and after renaming one VM and changing another's CPUs (only those lines rewritten). Wall and CPU
seconds of each, and the diff size of the edit.
"""

from __future__ import annotations

import difflib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate  # noqa: E402
from vnetbench.model import load, save  # noqa: E402


def timed(fn, *args) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(sizes: list[int]) -> None:
    print(f"{'VMs':>6} {'KiB':>6} {'new s':>12} {'load s':>12} {'unchanged s':>12} {'edit s':>12} {'diff lines':>10}"
          "   (wall/cpu)")
    for vms in sizes:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "big.vnet.yaml"
            design = generate(vms=vms, hosts=max(2, vms // 20))
            new = timed(save, design, path)
            started = time.perf_counter(), time.process_time()
            design = load(path)
            loading = time.perf_counter() - started[0], time.process_time() - started[1]
            same = timed(save, design, path)
            before = path.read_text()
            design.vms[len(design.vms) // 2].name = "renamed"
            design.vms[1].cpus += 1
            edit = timed(save, design, path)
            diff = [line for line in difflib.unified_diff(before.splitlines(), path.read_text().splitlines(), n=0)
                    if line[:1] in "+-" and not line.startswith(("+++", "---"))]
            figures = " ".join(f"{w:6.2f}/{c:5.2f}" for w, c in (new, loading, same, edit))
            print(f"{vms:>6} {len(before) // 1024:>6} {figures} {len(diff):>10}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1000, 10000])
