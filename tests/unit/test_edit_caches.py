"""What the edit path keeps or shares to stay fast answers as if made afresh (issue 32: edits <= 100 ms).

- ``Network`` places vNICs that sit alike once per pass (``network._placing``): each vNIC's point must be what
  placing it alone gives.
- ``Vector.move`` extends the segment labels it holds instead of making them anew (``decide.Labels.extended``):
  after any edits they must equal labels made from the network as it is.
- ``Vector.move`` brings the moved points' rows of ``inside`` up to date: they must equal a fresh Vector's.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from random_designs import random_design, random_pvlan_design, random_rule_design
from test_predict_matrix import _random_edit, following

from vnetbench.predict.decide import Labels
from vnetbench.predict.network import Network
from vnetbench.predict.vector import Vector


def _placed_alone(net: Network) -> list[tuple]:
    """(point, what placing its vNIC alone gives) for every vNIC of a plain VM."""
    out = []
    for vm in net.topology.vms:
        if vm.role.value != "vm":
            continue
        for point, nic in zip(net.points[vm.id], vm.vnics):
            out.append((point, net._place(vm, nic)))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_each_vnic_sits_where_placing_it_alone_puts_it(seed: int):
    d = random_rule_design(seed) if seed % 2 else random_design(seed)
    net = Network(d.t)
    for point, alone in _placed_alone(net):
        assert (point.portgroup, point.problem, point.variants, point.choice) == \
            (alone.portgroup, alone.problem, alone.variants, alone.choice), point.name
        if not point.variants:   # (a vNIC whose uplink the platform chooses gets its run-time segment after)
            assert point.segment == alone.segment, point.name


def test_vnics_alike_but_for_one_field_sit_apart():
    """Two VMs on one host and trunk portgroup that differ only in a field placing reads sit apart."""
    from builders import Design

    d = Design("alike")
    host = d.host("h", pnics=1)
    d.plug(d.pswitch("sw"), host.pnics[0].id, trunk=True)
    trunk = d.pg(d.switch(host, "vs", uplinks=[host.pnics[0].id]), "t", 4095)
    for name, vlan in (("a", 10), ("b", 20), ("c", 20)):
        d.vm(name, host, trunk, f"10.0.{vlan}.{len(name) + vlan}/24", guest_vlan=vlan)
    d.t.vms[2].vnics[0].connected = False
    net = Network(d.t)
    a, b, c = (net.points[vm.id][0] for vm in d.t.vms)
    assert a.segment is not None and b.segment is not None and a.segment != b.segment
    assert c.segment is None and c.problem


@pytest.mark.parametrize("seed", range(30))
def test_labels_and_inside_kept_through_edits_equal_fresh_ones(seed: int):
    d = (random_design, random_rule_design, random_pvlan_design)[seed % 3](seed)
    doc, engine = following(d.t)
    rnd = random.Random(seed)
    for _ in range(10):
        _random_edit(d, doc, rnd)
        engine.matrix()
        builder = engine._builder
        if builder is None:
            continue
        vec, net = builder.vec, builder.net
        fresh = Labels(net.segments)
        kept = vec.labels
        for name in ("local", "domain", "att"):
            assert np.array_equal(getattr(kept, name), getattr(fresh, name)), name
        assert (kept.alt is None) == (fresh.alt is None) and (kept.alt is None or np.array_equal(kept.alt, fresh.alt))
        assert (kept.pvlan is None) == (fresh.pvlan is None)
        if kept.pvlan is not None:
            assert all(np.array_equal(k, f) for k, f in zip(kept.pvlan, fresh.pvlan))
        again = Vector(builder.walker, vec.points)
        rows = [again.networks[network] for network in vec.networks]
        assert np.array_equal(vec.inside, again.inside[rows])
