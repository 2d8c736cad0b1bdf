"""The matrix's "depends on the uplink chosen at run time" marks (``predict.uplinkmarks``): exactly the pairs
whose explained prediction says so (``Prediction.depends_on_uplink``), on an example and random teamed designs."""

from __future__ import annotations

import pytest
from random_designs import random_design, random_pvlan_design

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.predict import Engine
from vnetbench.predict.uplinkmarks import LEGEND, MARK, uplink_marks


def marks_agree(engine: Engine) -> int:
    matrix = engine.matrix()
    marks = uplink_marks(matrix)
    assert marks.complete
    found = 0
    for src in matrix.endpoints:
        for dst in matrix.endpoints:
            if src != dst:
                expected = engine.predict(src, dst).depends_on_uplink
                assert marks.depends(src, dst) is expected, (src, dst)
                found += expected
    return found


def test_the_half_lost_example_marks_the_unpinned_pairs_across_hosts():
    engine = Engine(load(resources_dir() / "examples" / "esx-teaming-half-lost.vnet.yaml"))
    marks = uplink_marks(engine.matrix())
    assert marks.depends("vm-app01", "vm-db01") and marks.depends("vm-db01", "vm-app02")
    assert not marks.depends("vm-app03", "vm-db01")      # pinned
    assert not marks.depends("vm-app01", "vm-app02")     # in the host the uplink does not matter
    assert marks_agree(engine) == 4
    assert MARK in marks.legend and marks.legend == LEGEND


@pytest.mark.parametrize("seed, marked", [(27, True), (0, False), (12, False), (30, False), (45, False)])
def test_random_teamed_designs_mark_what_the_walk_says(seed: int, marked: bool):
    """(Of the 60 random designs, seed 27 holds pairs that depend on the uplink; the others test the absence.)"""
    assert (marks_agree(Engine(random_design(seed).t)) > 0) is marked


@pytest.mark.parametrize("seed", [2, 29, 32])
def test_random_private_vlan_designs_with_teaming_mark_what_the_walk_says(seed: int):
    """(Seeds whose teamed private VLAN uplink drops a VLAN of the map: some pairs depend on the uplink.)"""
    assert marks_agree(Engine(random_pvlan_design(seed).t)) > 0


def test_a_design_without_teaming_marks_nothing_and_a_huge_one_says_it_left_them_out():
    engine = Engine(load(resources_dir() / "examples" / "esx-four-cases.vnet.yaml"))
    assert not uplink_marks(engine.matrix())
    half = Engine(load(resources_dir() / "examples" / "esx-teaming-half-lost.vnet.yaml"))
    left_out = uplink_marks(half.matrix(), budget=1)
    assert not left_out.complete and not left_out.depends("vm-app01", "vm-db01")
    assert "not computed" in left_out.legend
