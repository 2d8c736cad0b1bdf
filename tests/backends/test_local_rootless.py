"""The local lab without privileges: a child process drops to ``nobody`` and deploys, pings, tears down."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import traceback

import pytest
from lab_kernel import kernel_lists
from lab_designs import campus

from vnetbench_local import LocalLabBackend
from vnetbench.backends.planning import design_tag

pytestmark = pytest.mark.lab
NOBODY = 65534


def _as_nobody(state_dir: str, design) -> dict:
    """Run the whole lab cycle in a forked child with uid/gid nobody; returns what it saw."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        out: dict = {}
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            out["uid"] = os.geteuid()
            backend = LocalLabBackend({"state_dir": state_dir})
            out["mode"] = backend.context(design_tag(design.id)).mode
            results = backend.apply(backend.plan(design))
            out["failed"] = [r.error for r in results if not r.ok]
            out["replan"] = len(backend.plan(design).changes)
            out["deployments"] = [d.design_id for d in backend.deployments()]
            ep = backend.endpoint(design, "h0v0")
            cmd = ep.start(["ping", "-c3", "-i0.3", "-W2", "10.20.1.11"])
            out["ping"] = [list(cmd.lines()), cmd.wait(10)]
            out["room"] = backend.neighbour_room(design)      # verify's share of the host's one ARP table
            out["neigh"] = []
            for forget in (False, True):
                if forget:
                    backend.forget_neighbours(design)
                shown = ep.start(["ip", "neigh", "show"])
                out["neigh"].append(list(shown.lines()))
                shown.wait(5)
            server = ep.start(["sleep", "60"])
            out["probe"] = server._proc.pid
            out["down"] = [r.ok for r in backend.teardown(design.id)]
            out["probe_exit"] = server.wait(5)
        except BaseException:  # noqa: BLE001 - reported to the parent
            out["error"] = traceback.format_exc()
        os.write(write, json.dumps(out).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        data = json.loads(f.read() or "{}")
    os.waitpid(pid, 0)
    return data


def test_rootless_lab_as_nobody():
    if os.geteuid() != 0:
        pytest.skip("the test drops from root to nobody to prove the lab needs no privileges")
    state_dir = tempfile.mkdtemp(prefix="vnb-rootless-")
    os.chmod(state_dir, 0o777)
    design = campus(vms_per_host=2, hosts=2)
    before, _ = kernel_lists()
    try:
        out = _as_nobody(os.path.join(state_dir, "state"), design)
    finally:
        shutil.rmtree(state_dir, ignore_errors=True)
    assert "error" not in out, out.get("error")
    assert out["uid"] == NOBODY and out["mode"] == "rootless"
    assert out["failed"] == [] and out["replan"] == 0
    assert out["deployments"] == [design.id]
    lines, code = out["ping"]
    assert code == 0 and any(" received" in line and "0 received" not in line for line in lines)      # routed by the L3 switch
    learned, forgotten = out["neigh"]
    assert out["room"] > 0 and any(line.startswith("10.10.0.1 ") for line in learned), learned   # the gateway
    assert not any(line.startswith("10.10.0.1 ") for line in forgotten), forgotten                 # flushed, rootless
    assert out["down"] and all(out["down"])
    assert out["probe_exit"] is not None and not os.path.exists(f"/proc/{out['probe']}")
    after, _ = kernel_lists()
    assert not {n for n in after - before if n.startswith(f"vnb{design_tag(design.id)}")}   # nothing on the host
