"""vcsim killed in the middle of an apply, restarted with the state it had, and the apply run again."""

from __future__ import annotations

from collections import Counter

import pytest

from vcsim_tools import Vcsim, make_backend
from vsphere_designs import lab_design, many_vms_design

pytestmark = pytest.mark.slow


def test_kill_mid_apply_then_apply_again_converges_without_duplicates(vcsim, memory_keyring, tmp_path):
    design = many_vms_design(20, "fault-design")
    be = make_backend(vcsim, memory_keyring, tmp_path)
    be.connect()
    plan = be.plan(design)
    state = tmp_path / "state"
    killed = []

    def progress(done, total, message):
        # After a few VMs exist: save what the server holds right now, then kill it (SIGKILL, by PID).
        if not killed and "VM bench-vm" in message and done >= 8:
            vcsim.govc("object.save", "-d", str(state))
            vcsim.kill()
            killed.append(done)

    results = be.apply(plan, progress)
    be.close()
    assert killed, "the server died during the apply"
    lost = [r for r in results if not r.ok]
    assert lost and all("lost the connection" in r.error for r in lost)
    assert sum(r.ok for r in results) >= killed[0]

    restarted = Vcsim("-load", str(state), user=vcsim.user, password=vcsim.password)
    try:
        be2 = make_backend(restarted, memory_keyring, tmp_path)
        be2.connect()
        replan = be2.plan(design)
        assert 0 < len(replan.changes) < len(plan.changes), "the saved state kept what the first apply made"
        assert all(r.ok for r in be2.apply(replan))
        assert be2.plan(design).empty
        inv = be2.inventory()
        names = Counter(v.name for v in inv.vms)
        assert all(names[vm.name] == 1 for vm in design.vms), "no VM was created twice"
        host = inv.host("DC0_H0")
        assert Counter(p.name for p in host.portgroups).most_common(1)[0][1] == 1
        assert len([v for v in inv.vms if v.managed == design.id]) == len(design.vms)
        be2.close()
    finally:
        restarted.kill()


def test_restart_without_state_rebuilds_everything(vcsim, memory_keyring, tmp_path):
    """Where the server loses its state (a fresh vcsim), the next apply simply builds it all again."""
    design = lab_design()
    be = make_backend(vcsim, memory_keyring, tmp_path)
    first = be.plan(design)
    assert all(r.ok for r in be.apply(first))
    be.close()
    vcsim.kill()
    vcsim.start()
    be2 = make_backend(vcsim, memory_keyring, tmp_path)
    assert len(be2.plan(design).changes) == len(first.changes)
    assert all(r.ok for r in be2.apply(be2.plan(design)))
    assert be2.plan(design).empty
    be2.close()
