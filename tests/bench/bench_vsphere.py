"""Benchmark: deploy 100 VMs with 2 vNICs each onto vcsim, against govc doing the same, in one run.

Two views of vnetbench:
- in process: plan + apply on an open session (what the backend itself costs);
- whole process: ``vnetbench deploy`` as a user runs it (interpreter start-up, imports, connect, plan, apply).
Two views of govc: a plain shell loop (one govc process per call, as an admin scripts it), and the same calls
four at a time with ``xargs -P4``. Every variant starts from a fresh vcsim.

Targets (issue 7): in process at least 5x faster than the govc loop, and a no-op re-apply (plan + apply of an
unchanged design) under 2 s. The whole-process ratios are reported as they are. The machine is shared, so
figures are noisy: compare ratios from one run, not absolute times across runs.
Run: .venv/bin/python tests/bench/bench_vsphere.py [--vms N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "backends" / "vsphere"))

import keyring  # noqa: E402
from vnetbench.model import save  # noqa: E402

from vcsim_tools import MemoryKeyring, Vcsim, cli_args, cli_env, go_tool, make_backend  # noqa: E402
from vsphere_designs import many_vms_design  # noqa: E402

GOVC_SETUP = """
set -e
govc host.vswitch.add -host DC0_H0 govc-sw
govc host.portgroup.add -host DC0_H0 -vswitch govc-sw -vlan 100 govc-a
govc host.portgroup.add -host DC0_H0 -vswitch govc-sw -vlan 200 govc-b
"""
GOVC_VM = ('govc vm.create -on=false -host DC0_H0 -net govc-a -net.adapter vmxnet3 "govc-vm$1" && '
           'govc vm.network.add -vm "govc-vm$1" -net govc-b -net.adapter vmxnet3')
GOVC_LOOP = GOVC_SETUP + f'for i in $(seq -w 1 "$N"); do set -- "$i"; {GOVC_VM}; done\n'
GOVC_XARGS = GOVC_SETUP + f"seq -w 1 \"$N\" | xargs -P4 -I{{}} sh -c '{GOVC_VM}' _ {{}}\n"


def bench_in_process(count: int) -> dict[str, float]:
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
            vms = [v for v in backend.inventory().vms if v.managed == design.id]
            assert len(vms) == count and all(len(v.nics) == 2 for v in vms)
            removed = backend.teardown(design.id)
            t5 = time.perf_counter()
            assert all(r.ok for r in removed)
            backend.close()
            return {"connect": t1 - t0, "plan": t2 - t1, "apply": t3 - t2, "deploy": t3 - t1, "noop": t4 - t3,
                    "teardown": t5 - t4, "changes": len(plan.changes)}
    finally:
        sim.kill()


def bench_whole_process(count: int) -> float:
    """``python -m vnetbench deploy`` from start to exit, the password from VNETBENCH_PASSWORD."""
    sim = Vcsim()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.vnet.yaml"
            save(many_vms_design(count), path)
            env = dict(cli_env(sim, Path(tmp), keyring_password=False), VNETBENCH_PASSWORD=sim.password)
            argv = [sys.executable, "-m", "vnetbench", "deploy", str(path), *cli_args(sim, Path(tmp))]
            t0 = time.perf_counter()
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1200)
            elapsed = time.perf_counter() - t0
            if done.returncode != 0:
                raise SystemExit(f"vnetbench deploy failed ({done.returncode}): {done.stderr.strip()[-500:]}")
            made = sim.govc("find", "/", "-type", "m", "-name", "bench-vm*").split()
            assert len(made) == count, f"vnetbench deploy made {len(made)} VMs"
            return elapsed
    finally:
        sim.kill()


def bench_govc(count: int, script: str) -> float:
    sim = Vcsim()
    try:
        env = dict(sim.govc_env(), PATH=f"{go_tool('govc').parent}:{os.environ.get('PATH', '')}", N=f"{count:03d}")
        t0 = time.perf_counter()
        subprocess.run(["bash", "-c", script], env=env, check=True, capture_output=True, timeout=1200)
        elapsed = time.perf_counter() - t0
        made = sim.govc("find", "/", "-type", "m", "-name", "govc-vm*").split()
        assert len(made) == count, f"govc made {len(made)} VMs"
        return elapsed
    finally:
        sim.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vms", type=int, default=100)
    args = parser.parse_args()
    ours = bench_in_process(args.vms)
    whole = bench_whole_process(args.vms)
    loop = bench_govc(args.vms, GOVC_LOOP)
    xargs = bench_govc(args.vms, GOVC_XARGS)
    in_process = loop / ours["deploy"]
    print(f"vSphere deploy of {args.vms} VMs x 2 vNICs on vcsim ({ours['changes']} planned changes)")
    print(f"  vnetbench connect (in process)      {ours['connect']:7.3f} s (not counted in process)")
    print(f"  vnetbench plan                      {ours['plan']:7.3f} s")
    print(f"  vnetbench apply                     {ours['apply']:7.3f} s")
    print(f"  vnetbench plan + apply (in process) {ours['deploy']:7.3f} s")
    print(f"  vnetbench deploy (whole process)    {whole:7.3f} s")
    print(f"  govc shell loop                     {loop:7.3f} s")
    print(f"  govc xargs -P4                      {xargs:7.3f} s")
    print(f"  in process vs govc loop             {in_process:7.1f} x   (target >= 5 x)")
    print(f"  whole process vs govc loop          {loop / whole:7.1f} x")
    print(f"  whole process vs govc xargs -P4     {xargs / whole:7.1f} x")
    print(f"  no-op re-apply (plan+apply)         {ours['noop']:7.3f} s   (target < 2 s)")
    print(f"  teardown                            {ours['teardown']:7.3f} s")
    print("  (a shared machine: compare the ratios of one run, not times across runs)")
    ok = in_process >= 5 and ours["noop"] < 2
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
