"""A vSphere deploy interrupted from outside: Ctrl-C, the server gone between stages, SIGKILL at random moments.

Each time the user gets per-change results (or, after SIGKILL, nothing half-made that the next deploy cannot
settle), the next deploy converges, and teardown leaves vcsim's inventory as it was.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest
from vnetbench.cli.commands import deploy as deploy_command
from vnetbench.cli.main import main
from vnetbench.model import save

from vcsim_tools import cli_args, cli_env, make_backend
from vsphere_designs import lab_design, many_vms_design

pytestmark = pytest.mark.slow


def mixed_design(vms: int = 24):
    """The lab (standard and distributed switches, three VMs) plus ``vms`` VMs on its standard portgroups."""
    design = lab_design("interrupt-lab")
    extra = many_vms_design(vms, design.id)
    for vm in extra.vms:
        vm.host = "h0"
        for nic, network in zip(vm.vnics, ("pg-none", "pg-10"), strict=True):
            nic.network = network
    design.vms += extra.vms
    return design


def deploy_process(design, vcsim, tmp_path) -> subprocess.Popen:
    path = tmp_path / "design.vnet.yaml"
    save(design, path)
    return subprocess.Popen([sys.executable, "-m", "vnetbench", "deploy", str(path), *cli_args(vcsim, tmp_path)],
                            env=cli_env(vcsim, tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def snapshot(backend) -> dict[str, list[str]]:
    """What teardown must leave as it found: every VM, switch and portgroup by name. (vcsim keeps the uplink
    portgroup of a destroyed distributed switch, and crashes when asked to destroy it; vCenter removes it with
    the switch. Those orphans are left out.)"""
    inv = backend.inventory()
    return {"vms": sorted(v.name for v in inv.vms), "dvs": sorted(d.name for d in inv.dvses),
            "dvpgs": sorted(p.name for p in inv.dvpgs if p.dvs or not p.uplink),
            "host": sorted(f"{h.name}/{x}" for h in inv.hosts
                           for x in [s.name for s in h.vswitches] + [p.name for p in h.portgroups])}


def converges(backend, design) -> None:
    plan = backend.plan(design)
    results = backend.apply(plan)
    assert [r.error for r in results if not r.ok] == []
    assert backend.plan(design).empty, "one apply settles it"


def interrupted(proc: subprocess.Popen, when) -> tuple[str, str]:
    """SIGINT to ``proc`` once a progress line on stderr satisfies ``when``; its output after it ended."""
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if when(line):
            proc.send_signal(signal.SIGINT)
            break
    out, err = proc.communicate(timeout=120)
    return out, "".join(seen) + err


def summary_of(out: str) -> tuple[int, int, int]:
    """(applied, total, not sent) from ``applied 8 of 33 changes; 25 not sent (cancelled):``."""
    line = next(line for line in out.splitlines() if line.startswith("applied "))
    words = line.split()
    unsent = int(line.split("; ")[-1].split()[0]) if "not sent (cancelled)" in line else 0
    return int(words[1]), int(words[3]), unsent


def test_ctrl_c_during_a_deploy_reports_what_ran_and_exits_130(vcsim, memory_keyring, tmp_path):
    design = mixed_design()
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    before = snapshot(backend)
    proc = deploy_process(design, vcsim, tmp_path)
    out, err = interrupted(proc, lambda line: line.startswith("[1/"))  # the first change is done
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyError" not in err, err
    assert "cancelling" in err
    done, total, unsent = summary_of(out)
    assert total == len(backend.plan(design).changes) + done, "what it reports applied is what vSphere holds"
    assert done < total and unsent == total - done and out.count("cancelled: not sent") == unsent, out
    converges(backend, design)
    assert all(r.ok for r in backend.teardown(design.id))
    assert snapshot(backend) == before


def test_ctrl_c_among_thirty_vm_creations_sends_no_more_and_reports_both(vcsim, memory_keyring, tmp_path):
    """Inside one stage: the VMs already sent end on the server and are counted, the rest are never sent."""
    design = mixed_design(27)  # 30 VMs
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    before = snapshot(backend)
    proc = deploy_process(design, vcsim, tmp_path)
    out, err = interrupted(proc, lambda line: "done: create vm" in line)  # the first VM exists
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err, err
    done, total, unsent = summary_of(out)
    created = [v for v in backend.inventory().vms if v.managed == design.id]
    assert 1 <= len(created) < 30, f"Ctrl-C stopped the sending: {len(created)} of 30 VMs made"
    assert unsent == 30 - len(created) and out.count("cancelled: not sent") == unsent, out
    assert done == total - unsent and total == len(backend.plan(design).changes) + done, out
    converges(backend, design)
    assert all(r.ok for r in backend.teardown(design.id))
    assert snapshot(backend) == before


def test_server_gone_between_stages_gives_per_change_results_and_exit_3(vcsim, memory_keyring, tmp_path, capsys,
                                                                         monkeypatch):
    design = lab_design()
    path = tmp_path / "lab.vnet.yaml"
    save(design, path)
    make_backend(vcsim, memory_keyring, tmp_path)  # puts the password in the test keyring

    def killing_printer(enabled):
        def progress(done, total, message):
            print(f"[{done}/{total}] {message}", file=sys.stderr)
            if done == 1:  # the standard switch stage is over; the next stage starts with a fresh read
                vcsim.kill()
        return progress

    monkeypatch.setattr(deploy_command, "progress_printer", killing_printer)
    code = main(["deploy", str(path), *cli_args(vcsim, tmp_path)])
    out, err = capsys.readouterr()
    assert code == 3, (out, err)
    assert "applied 1 of 10 changes; 9 failed:" in out
    lines = [line for line in out.splitlines() if "not finished: lost the connection to" in line]
    assert len(lines) == 9, out
    assert "Traceback" not in err


def test_kill_a_deploy_at_random_moments_then_it_converges_and_teardown_restores(vcsim, memory_keyring, tmp_path):
    """20 SIGKILLs of ``vnetbench deploy`` (the seed: ``VNB_KILL_SEED``)."""
    design = mixed_design(12)
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    before = snapshot(backend)
    start = time.monotonic()
    full = deploy_process(design, vcsim, tmp_path)
    assert full.wait(120) == 0, full.communicate()
    duration = time.monotonic() - start
    assert all(r.ok for r in backend.teardown(design.id))
    assert snapshot(backend) == before
    rng = random.Random(int(os.environ.get("VNB_KILL_SEED", "12")))
    kills = 0
    while kills < 20:
        for _ in range(1 if rng.random() < 0.6 else 2):  # sometimes a second killed deploy on top of the first
            proc = deploy_process(design, vcsim, tmp_path)
            time.sleep(rng.uniform(0.2, duration))
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=60)
            kills += 1
        converges(backend, design)
        assert all(r.ok for r in backend.teardown(design.id)), f"after {kills} kills"
        assert snapshot(backend) == before, f"after {kills} kills"
