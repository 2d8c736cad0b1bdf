"""Benchmark of export on a large design; prints seconds per format, asserts nothing.

    .venv/bin/python tests/bench/bench_export.py [VMS HOSTS]

Defaults to about 5,000 objects (every object with an id: hosts, pNICs, switches, portgroups, VMs, vNICs,
physical switches, ports, routers, links) from ``generate.py``, the shared benchmark designs.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate  # noqa: E402
from vnetbench.export import FORMATS, Options, export  # noqa: E402
from vnetbench.export.scene import build_scene  # noqa: E402
from vnetbench.model import Index, dumps, loads  # noqa: E402

BENCH_FORMATS = ["svg", "png", "drawio", "report-html"]


def main(argv: list[str]) -> None:
    vms, hosts = (int(argv[0]), int(argv[1])) if len(argv) >= 2 else (2000, 50)
    topology = loads(dumps(generate(vms=vms, hosts=hosts)))  # as read from a file: enums, not strings
    objects = len(Index(topology).entries)
    print(f"design: {vms} VMs on {hosts} hosts, {objects} objects")
    start = time.perf_counter()
    scene = build_scene(topology)
    x, y, w, h = scene.bounds()
    print(f"  layout (scene)     {time.perf_counter() - start:7.2f} s  {len(scene.boxes)} boxes, "
          f"{len(scene.edges)} lines, {w:.0f} x {h:.0f} px")
    with tempfile.TemporaryDirectory(prefix="vnetbench-bench-export-") as tmp:
        for fmt in BENCH_FORMATS + ["pdf", "dot", "mermaid", "matrix-csv", "report-pdf"]:
            out = Path(tmp, "bench" + FORMATS[fmt][1])
            start = time.perf_counter()
            done = export(topology, fmt, out, Options())
            seconds = time.perf_counter() - start
            extra = f", scale {done.scale:.2f}" if fmt == "png" else ""
            print(f"  {fmt:<18} {seconds:7.2f} s  {out.stat().st_size / 1e6:7.2f} MB{extra}")


if __name__ == "__main__":
    main(sys.argv[1:])
