"""Benchmark: deploy 100 VMs with 2 vNICs each onto vcsim (plan included), against a govc shell loop.

Targets (issue 7): at least 5x faster than the govc loop, and a no-op re-apply (plan + apply of an unchanged
design) under 2 s. Run: .venv/bin/python tests/bench/bench_vsphere.py [--vms N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "backends" / "vsphere"))

import keyring  # noqa: E402

from vcsim_tools import MemoryKeyring, Vcsim, go_tool, make_backend  # noqa: E402
from vsphere_designs import many_vms_design  # noqa: E402

GOVC_LOOP = """
set -e
govc host.vswitch.add -host DC0_H0 govc-sw
govc host.portgroup.add -host DC0_H0 -vswitch govc-sw -vlan 100 govc-a
govc host.portgroup.add -host DC0_H0 -vswitch govc-sw -vlan 200 govc-b
for i in $(seq -w 1 "$N"); do
  govc vm.create -on=false -host DC0_H0 -net govc-a -net.adapter vmxnet3 "govc-vm$i"
  govc vm.network.add -vm "govc-vm$i" -net govc-b -net.adapter vmxnet3
done
"""


def bench_vnetbench(count: int) -> dict[str, float]:
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    sim = Vcsim()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            backend = make_backend(sim, ring, Path(tmp))
            t0 = time.perf_counter()
            backend.connect()
            t1 = time.perf_counter()
            design = many_vms_design(count)
            plan = backend.plan(design)
            t2 = time.perf_counter()
            results = backend.apply(plan)
            t3 = time.perf_counter()
            failed = [r for r in results if not r.ok]
            if failed:
                raise SystemExit(f"{len(failed)} changes failed, first: {failed[0].change}: {failed[0].error}")
            again = backend.plan(design)
            noop = backend.apply(again)
            t4 = time.perf_counter()
            if not again.empty or noop:
                raise SystemExit(f"the re-apply was not a no-op: {len(again.changes)} changes")
            inv = backend.inventory()
            vms = [v for v in inv.vms if v.managed == design.id]
            assert len(vms) == count and all(len(v.nics) == 2 for v in vms)
            removed = backend.teardown(design.id)
            t5 = time.perf_counter()
            assert all(r.ok for r in removed)
            backend.close()
            return {"connect": t1 - t0, "plan": t2 - t1, "apply": t3 - t2, "deploy": t3 - t1, "noop": t4 - t3,
                    "teardown": t5 - t4, "changes": len(plan.changes)}
    finally:
        sim.kill()


def bench_govc(count: int) -> float:
    sim = Vcsim()
    try:
        env = sim.govc_env()
        env["PATH"] = f"{go_tool('govc').parent}:{env.get('PATH', '')}"
        env["N"] = f"{count:03d}"
        t0 = time.perf_counter()
        subprocess.run(["bash", "-c", GOVC_LOOP], env=env, check=True, capture_output=True, timeout=1200)
        elapsed = time.perf_counter() - t0
        made = sim.govc("find", "/", "-type", "m", "-name", "govc-vm*").split()
        assert len(made) == count, f"the govc loop made {len(made)} VMs"
        return elapsed
    finally:
        sim.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vms", type=int, default=100)
    args = parser.parse_args()
    ours = bench_vnetbench(args.vms)
    govc = bench_govc(args.vms)
    speedup = govc / ours["deploy"]
    print(f"vSphere deploy of {args.vms} VMs x 2 vNICs on vcsim ({ours['changes']} planned changes)")
    print(f"  vnetbench connect             {ours['connect']:7.3f} s (not counted)")
    print(f"  vnetbench plan                {ours['plan']:7.3f} s")
    print(f"  vnetbench apply               {ours['apply']:7.3f} s")
    print(f"  vnetbench plan + apply        {ours['deploy']:7.3f} s")
    print(f"  govc shell loop               {govc:7.3f} s")
    print(f"  speed-up                      {speedup:7.1f} x   (target >= 5 x)")
    print(f"  no-op re-apply (plan+apply)   {ours['noop']:7.3f} s   (target < 2 s)")
    print(f"  teardown                      {ours['teardown']:7.3f} s")
    ok = speedup >= 5 and ours["noop"] < 2
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
