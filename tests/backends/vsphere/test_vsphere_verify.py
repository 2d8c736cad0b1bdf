"""``verify`` on vSphere against vcsim: it runs as far as the simulator allows and says what it could not check.

vcsim has no guests (its guest operations need Docker), so no probe can run in a VM: every pair comes back
"not checked" with the reason, never "contradicted". vcsim has no ESXi to SSH to, so no esxi_ssh_user is set and
the host pNIC counters are named as not read, with the setting that would turn them on.
The VMs' addresses are on loopback and the SSH port is closed, so the probes' connections stay on this machine.
"""

from __future__ import annotations

import socket

from vnetbench.measure.verify import Outcome, Verifier, plan_pairs
from vnetbench.model import VM, NicType, VNic
from vnetbench.predict import Engine

from vsphere_designs import lab_design


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_verify_on_vcsim_checks_what_it_can_and_names_the_rest(backend):
    design = lab_design("vsphere-verify")
    design.vms = [VM(f"vm-{n}", f"vnb-test-{n}", host="h0", vnics=[
        VNic(f"{n}0", "eth0", NicType.VMXNET3, network="pg-none", ip=f"127.0.0.{20 + i}/8")])
        for i, n in enumerate("ab")]
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    backend.settings["ssh_port"] = _closed_port()
    engine = Engine(design)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    result = Verifier(backend, design, plans, scope, limits=left).run()
    assert [c.outcome for c in result.cells] == [Outcome.NOT_CHECKED] * 2
    assert result.contradictions == 0
    for cell in result.cells:
        assert cell.checks and all(ch.outcome is Outcome.NOT_CHECKED and ch.detail for ch in cell.checks), cell
    assert any("does not read host pNIC counters (of DC0_H0" in x and "set esxi_ssh_user" in x
               for x in result.limits), result.limits
    assert "2 pairs, 0 contradictions, 2 not checked" in result.headline()
