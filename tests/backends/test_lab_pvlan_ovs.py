"""Private VLANs on Open vSwitch, deployed in the local lab (real network namespaces): the lab emulates an OVS
switch's map as it does a vDS's (``desired_pvlan``), and ping agrees with the prediction for every pair of
resources/examples/kvm-ovs-private-vlans, isolated ports apart, a community across the hosts, and the isolated
guest behind the port that forgets VLAN 201 cut off."""

from __future__ import annotations

from pathlib import Path

import pytest
from lab_designs import unique_id
from lab_verify import verify_every_pair

from vnetbench.model import load
from vnetbench.predict import Engine, Verdict

pytestmark = [pytest.mark.lab, pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "kvm-ovs-private-vlans.vnet.yaml"


def test_ovs_private_vlans_in_the_lab_agree_with_the_prediction_for_every_pair(lab):
    design = load(EXAMPLE)
    design.id = unique_id("pvovs")
    engine = Engine(design)
    expected = {("web01", "web02"): Verdict.UNREACHABLE, ("web01", "backup01"): Verdict.IN_HOST,
                ("db01", "backup01"): Verdict.IN_HOST, ("db01", "db02"): Verdict.VIA_PHYSICAL,
                ("backup01", "web03"): Verdict.UNREACHABLE, ("web01", "web03"): Verdict.UNREACHABLE}
    for (a, b), verdict in expected.items():
        assert engine.predict(a, b).verdict is verdict, (a, b)
    lab.up(design)
    result, bad = verify_every_pair(lab, design)
    assert not bad, bad
    names = {(c.src_name, c.dst_name) for c in result.cells}
    assert set(expected) <= names, sorted(names)
