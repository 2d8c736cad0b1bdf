"""Benchmark of export on a large design; prints seconds per format, asserts nothing.

    .venv/bin/python tests/bench/bench_export.py [VMS HOSTS]
    .venv/bin/python tests/bench/bench_export.py --scale      # the DOT render and the report size at scale

Defaults to about 5,000 objects (every object with an id: hosts, pNICs, switches, portgroups, VMs, vNICs,
physical switches, ports, routers, links) from ``generate.py``, the shared benchmark designs.

``--scale`` (issue 32): the DOT export of 2,000 VMs rendered by Graphviz's ``dot -Tsvg`` (its CPU and wall
time, its exit status and the picture's size in points), and the HTML report of 2,000 and 10,000 VMs (its
size, target < 10 MB, and the CPU and wall time it took).
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
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


def scale() -> None:
    with tempfile.TemporaryDirectory(prefix="vnetbench-bench-export-") as tmp:
        topology = loads(dumps(generate(vms=2_000, hosts=100)))
        dot_file, svg = Path(tmp, "d.dot"), Path(tmp, "d.svg")
        export(topology, "dot", dot_file, Options())
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(["dot", "-Tsvg", str(dot_file), "-o", str(svg)], capture_output=True, timeout=600)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        head = svg.read_bytes()[:2000] if svg.exists() else b""
        box = re.search(rb'viewBox="[\d.]+ [\d.]+ ([\d.]+) ([\d.]+)"', head)
        size = f"{float(box[1]):.0f} x {float(box[2]):.0f} pt" if box else "no picture"
        print(f"DOT of 2,000 VMs / 100 hosts rendered by dot -Tsvg: {wall:.2f} s wall ({cpu:.2f} s CPU), "
              f"exit {done.returncode}, {size}")
        for vms, hosts in ((2_000, 100), (10_000, 500)):
            topology = loads(dumps(generate(vms=vms, hosts=hosts)))
            out = Path(tmp, f"r{vms}.html")
            c0, start = time.process_time(), time.perf_counter()
            export(topology, "report-html", out, Options())
            print(f"HTML report of {vms:,} VMs: {out.stat().st_size / 1e6:.2f} MB (target < 10 MB), "
                  f"{time.perf_counter() - start:.1f} s wall ({time.process_time() - c0:.1f} s CPU)", flush=True)
    print("load average at the end:", open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    scale() if sys.argv[1:] == ["--scale"] else main(sys.argv[1:])
