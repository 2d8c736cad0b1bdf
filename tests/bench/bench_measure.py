"""Measurement overhead: the throughput vnetbench reports against raw iperf3 on the same path, same run.

    sudo .venv/bin/python tests/bench/bench_measure.py [--duration S] [--rounds N]

Two namespaces joined by a veth, measured unshaped (CPU-bound, where overhead would show) and through a
1 Gbit/s token bucket (the local lab's emulated pNIC). Raw and vnetbench runs alternate, so both see the
same machine state; raw iperf3 is read from its own ``-J`` report, not from vnetbench's parser. Prints the
figures and exits 1 when vnetbench's median falls below 95% of the raw median on any path.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "measure"))

from measure_netns import NetnsPair, can_make_namespaces, make_pair, remove_pair  # noqa: E402

from vnetbench.measure import RunStatus, TestSpec, measure  # noqa: E402

THRESHOLD = 0.95


def raw_iperf3(pair: NetnsPair, duration: float, port: int = 5999) -> float:
    server = subprocess.Popen(["ip", "netns", "exec", pair.b.ns, "iperf3", "-s", "-1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        out = subprocess.run(["ip", "netns", "exec", pair.a.ns, "iperf3", "-c", pair.b.ip4, "-p", str(port),
                              "-t", f"{duration:g}", "-J"], capture_output=True, text=True, check=True).stdout
        return json.loads(out)["end"]["sum_received"]["bits_per_second"] / 1e6
    finally:
        server.wait(5)


def vnetbench_iperf3(pair: NetnsPair, duration: float) -> float:
    m = measure(TestSpec("throughput", duration=duration), pair.a, pair.b)
    if m.status != RunStatus.OK:
        raise SystemExit(f"vnetbench measurement failed: {m.error}")
    return float(m.summary["throughput_mbps"])


def bench(pair: NetnsPair, label: str, duration: float, rounds: int) -> bool:
    raw, ours = [], []
    for _ in range(rounds):
        raw.append(raw_iperf3(pair, duration))
        ours.append(vnetbench_iperf3(pair, duration))
    r, v = statistics.median(raw), statistics.median(ours)
    ratio = v / r
    print(f"{label:28} raw iperf3 {r:9.0f} Mbit/s  vnetbench {v:9.0f} Mbit/s  ratio {ratio:.3f}  "
          f"(raw {', '.join(f'{x:.0f}' for x in raw)}; vnetbench {', '.join(f'{x:.0f}' for x in ours)})")
    return ratio >= THRESHOLD


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not can_make_namespaces():
        print("bench_measure: needs root to create network namespaces", file=sys.stderr)
        return 2
    pair = make_pair("bench")
    try:
        ok = bench(pair, "veth, unshaped", args.duration, args.rounds)
        pair.shape(1000)
        ok &= bench(pair, "veth, 1 Gbit/s token bucket", args.duration, args.rounds)
    finally:
        remove_pair(pair.namespaces, (pair.a, pair.b))
    print(f"vnetbench reports >= {THRESHOLD:.0%} of raw iperf3 on every path: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
