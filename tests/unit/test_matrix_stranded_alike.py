"""A VLAN edit that strands a portgroup's VMs gives them a class per host; the matrix computes the flows
towards such classes once per group that answers alike (``MatrixBuilder._alike_afar``). These designs have
stranded VMs that must not be grouped: reached on one host and not on the other, so the matrix kept current
must still equal a fresh one and the per-pair walk."""

from __future__ import annotations

import copy

from builders import Action, Design, DfwRule, SwitchKind
from test_predict_matrix import following

from vnetbench.model.objects import Dfw
from vnetbench.predict import Engine


def _design() -> tuple[Design, object]:
    """A vDS on esx1 and esx2 with portgroup A (VLAN 10: d1 on esx1, d2 on esx2, gateway r1), and c on esx1
    behind r2, which also has an address in A's subnet on VLAN 20. esx1's uplink port carries VLAN 20, esx2's
    does not. The DFW judges replies (stateless) and drops A's subnet towards c's. Six VMs elsewhere make
most of the design apart from A's subnet (``_fill_singles`` takes the stranded way then)."""
    d = Design()
    ps = d.pswitch("core")
    h1, h2 = d.host("esx1"), d.host("esx2")
    vds = d.switch(None, "vds", ["esx1.vmnic0", "esx2.vmnic0"], kind=SwitchKind.VDS, members=[h1, h2])
    d.plug(ps, "esx1.vmnic0", trunk=True, allowed="10,20,40")
    d.plug(ps, "esx2.vmnic0", trunk=True, allowed="10,40")
    pg_a, pg_c = d.pg(vds, "A", 10), d.pg(vds, "C", 40)
    d.router("r1", [(d.port(ps, "r1", vlan=10), "10.0.10.1/24", None)])
    d.router("r2", [(d.port(ps, "r2a", vlan=20), "10.0.10.254/24", None),
                    (d.port(ps, "r2c", vlan=40), "10.0.40.1/24", None)])
    d.vm("d1", h1, pg_a, "10.0.10.11/24", "10.0.10.1")
    d.vm("d2", h2, pg_a, "10.0.10.12/24", "10.0.10.1")
    d.vm("c", h1, pg_c, "10.0.40.10/24", "10.0.40.1")
    for i in range(6):   # classes apart from A's subnet, so the stranded classes' cells are filled as such
        d.vm(f"other{i}", h2, d.pg(vds, f"O{i}", 50 + i), f"10.0.{50 + i}.10/24")
    d.t.nsx.dfw = Dfw(Action.ALLOW, False, [DfwRule(Action.DENY, "10.0.10.0/24", "10.0.40.0/24", name="a-to-c")])
    return d, pg_a


def test_stranded_vms_reached_on_one_host_only_keep_classes_that_answer_apart():
    """After A moves to VLAN 20, d1 and d2 have no gateway. r2 still delivers c's flow to d1 (esx1's port
    carries VLAN 20), whose reply the DFW drops: BLOCKED; d2's segment has no way out: UNREACH."""
    d, pg_a = _design()
    doc, engine = following(d.t)
    doc.set(pg_a, "vlan", 20)
    matrix = engine.matrix()
    fresh = Engine(copy.deepcopy(d.t))
    assert fresh.predict("c", "d1").verdict.value == "blocked"
    assert fresh.predict("c", "d2").verdict.value == "unreachable"
    assert matrix.verdict("c", "d1") == fresh.predict("c", "d1").verdict
    assert matrix.verdict("c", "d2") == fresh.predict("c", "d2").verdict
    assert list(matrix.rows()) == list(fresh.matrix().rows())
