"""The matrix equals the per-pair walk on the benchmark's shapes the engine was not tuned on (issue 32):
routers with thousands of routes (here hundreds), routed firewalls with a /32 rule per VM, a DFW rule per
VM, and the vCenter-maximum shape, each at about 300 VMs; and it stays equal after the edits an admin makes
there (a VLAN, a VM moved, the first DFW rule of a design without one, a /32 rule on a firewall).

Every pair's verdict from a fresh matrix is checked against the walk on a seeded sample of pairs (all 90,000
would take minutes), and the matrix kept current after edits against a fresh one on every pair."""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from generate import SHAPES  # noqa: E402

from vnetbench.model import Document  # noqa: E402
from vnetbench.model.objects import Action, DfwRule, Proto, Rule, VmRole  # noqa: E402
from vnetbench.predict import Engine  # noqa: E402

NEW_SHAPES = ["routed", "routedfw", "routeddfw", "vcenter"]
VMS, HOSTS = 300, 40
SAMPLE = 1_000


def _check_against_walk(engine: Engine, rnd: random.Random, pairs: int = SAMPLE) -> None:
    matrix = engine.matrix()
    ids = matrix.endpoints
    for _ in range(pairs):
        a, b = rnd.choice(ids), rnd.choice(ids)
        walked = engine.walker.flow(a, b)
        assert matrix.verdict(a, b) is walked.verdict, (a, b, walked.reasons)


@pytest.mark.parametrize("shape", NEW_SHAPES)
def test_matrix_equals_the_walk_on_unseen_shapes(shape: str):
    topology = SHAPES[shape](VMS, HOSTS, 3)
    engine = Engine(topology)
    verdicts = {v for v, n in engine.matrix().counts().items() if n}
    assert len(verdicts) >= 3, verdicts     # a shape that answers one way everywhere would test little
    _check_against_walk(engine, random.Random(shape))


@pytest.mark.parametrize("shape", ["routedfw", "vcenter"])
def test_multi_interface_endpoints_with_each_other_equal_the_walk(shape: str):
    """Every pair of endpoints with several interfaces (the routed firewalls, whose classes the matrix answers
    from blocks of flows): a random sample of pairs would meet few of them."""
    t = SHAPES[shape](VMS, HOSTS, 3)
    engine = Engine(t)
    matrix = engine.matrix()
    multi = [vm.id for vm in t.vms if len(vm.vnics) > 1]
    assert len(multi) >= 2, multi
    for a in multi:
        for b in multi:
            walked = engine.walker.flow(a, b)
            assert matrix.verdict(a, b) is walked.verdict, (a, b, walked.reasons)


@pytest.mark.parametrize("shape", NEW_SHAPES)
def test_matrix_kept_current_after_edits_equals_a_fresh_one(shape: str):
    t = SHAPES[shape](VMS, HOSTS, 5)
    rnd = random.Random(shape)
    doc = Document(t)
    engine = Engine(t)
    doc.subscribe(engine.changed)
    engine.matrix()
    plain = [vm for vm in t.vms if vm.role is VmRole.VM]
    firewalls = [vm for vm in t.vms if vm.role is VmRole.FIREWALL]
    pgs = [pg for sw in t.switches for pg in sw.portgroups]
    edits = [
        lambda: doc.set(rnd.choice(pgs), "vlan", rnd.choice(pgs).vlan.tag),      # a VLAN: its VMs move
        lambda: doc.set(rnd.choice(plain).vnics[0], "network", rnd.choice(pgs).id),
        lambda: doc.insert(t.nsx.dfw, "rules", DfwRule(       # the first DFW rule, or one more
            Action.DENY, rnd.choice(plain).vnics[0].ip.split("/")[0] + "/32", "any", Proto.TCP, 22,
            applied_to=[rnd.choice(plain).id]), 0),
        lambda: doc.insert(t.nsx.dfw, "rules", DfwRule(Action.DENY, rnd.choice(plain).id, "any"), 0),
    ]
    if firewalls:
        edits.append(lambda: doc.insert(rnd.choice(firewalls).forwarding, "rules", Rule(
            Action.DENY, "any", rnd.choice(plain).vnics[0].ip.split("/")[0] + "/32"), 0))
    for step, edit in enumerate(edits):
        edit()
        kept = list(engine.matrix().rows())
        fresh = list(Engine(copy.deepcopy(t)).matrix().rows())
        differ = [(a, b, v, w) for (a, b, v), (_, _, w) in zip(kept, fresh) if v is not w]
        assert kept == fresh, (shape, step, differ[:5])
    _check_against_walk(engine, rnd, SAMPLE // 3)
