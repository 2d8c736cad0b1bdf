"""The pairs two address families answer differently, counted by class, and the other family's matrix kept
current by the same edits in the designer's live matrix (``predict.live``): a dual-stack design's docks then
pay each edit once per family, never a whole second matrix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from generate import SHAPES  # noqa: E402

from vnetbench import resources_dir  # noqa: E402
from vnetbench.model import Document, load  # noqa: E402
from vnetbench.model.objects import Action, Rule, VmRole  # noqa: E402
from vnetbench.predict import Engine  # noqa: E402
from vnetbench.predict.family import Differing  # noqa: E402
from vnetbench.predict.live import LiveMatrix  # noqa: E402

DUAL = resources_dir() / "examples" / "esx-dual-stack.vnet.yaml"


def _brute(one, other) -> set[tuple[str, str]]:  # noqa: ANN001 - two Matrix
    return {(a, b) for a in one.endpoints for b in one.endpoints
            if a != b and one.verdict(a, b) is not other.verdict(a, b)}


@pytest.mark.parametrize("seed", [1, 2])
def test_the_count_by_class_equals_the_pairs_one_by_one(seed: int):
    topology = SHAPES["dualstack"](120, 12, seed)
    one, other = Engine(topology, 4).matrix(), Engine(topology, 6).matrix()
    differing, expected = Differing(one, other), _brute(one, other)
    assert expected, "the shape's rules are IPv4 only: some pairs must differ"
    assert len(differing) == len(expected)
    assert differing.pairs() == expected


def test_the_other_familys_engine_follows_the_edits():
    document = Document(load(DUAL))
    live = LiveMatrix(document)

    def both(engine, matrix):  # noqa: ANN001, ANN202
        return matrix, live.matrix_of(6)

    _, six = live.run(both)
    engine6 = live._other
    fw = next(vm for vm in document.topology.vms if vm.role is not VmRole.VM and vm.forwarding.rules)
    document.insert(fw.forwarding, "rules", Rule(Action.DENY, "any", "any", name="deny all"), 0)
    four, six = live.run(both)
    assert live._other is engine6, "the IPv6 engine was kept and followed the edit"
    fresh4, fresh6 = Engine(document.topology, 4).matrix(), Engine(document.topology, 6).matrix()
    assert Differing(four, six).pairs() == _brute(fresh4, fresh6)
    assert all(six.verdict(a, b) is fresh6.verdict(a, b) for a in six.endpoints for b in six.endpoints)

    live.set_family(6)
    assert live._engine is engine6, "switching to the other family takes its engine over"
    live.run(lambda engine, matrix: matrix)
    assert live._other is None, "an engine nobody asked for is let go"
