"""Tiles of a microsegmented design, and the multi-interface classes against the single ones, are computed
only where the NSX DFW at the source lets a flow leave (issue 32: the whole-vCenter shape): every other cell
is BLOCKED (or UNREACH) without its flows. Small tiles make the 300-VM designs span many of them, so the
off-diagonal tiles and both directions of each are exercised; every cell must equal the matrix computed with
every flow (whose equality with the walk the shape tests check)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from generate import SHAPES  # noqa: E402

from vnetbench.predict import Engine, matrix as matrix_module  # noqa: E402
from vnetbench.predict.result import Verdict  # noqa: E402


def _cells(matrix) -> np.ndarray:  # noqa: ANN001 - a Matrix
    """The endpoint x endpoint verdict codes, self pairs from the self table."""
    classes = np.asarray(matrix.classes)
    cells = np.asarray(matrix.table)[classes][:, classes]
    np.fill_diagonal(cells, np.asarray(matrix.self_table)[classes])
    return cells


@pytest.mark.parametrize("shape", ["vcenter", "routeddfw", "microseg"])
def test_tiles_cut_at_the_source_dfw_equal_every_flow_computed(shape: str, monkeypatch: pytest.MonkeyPatch):
    topology = SHAPES[shape](300, 40, 3)
    monkeypatch.setattr(matrix_module, "TILE", 48)
    cut: list[float] = []
    leaving = matrix_module.MatrixBuilder._leaving

    def spy(self, pa, pb):  # noqa: ANN001, ANN202 - records how much of each block is left to compute
        found = leaving(self, pa, pb)
        cut.append(1.0 if found is None else len(found[0]) * len(found[1]) / (len(pa) * len(pb)))
        return found

    meeting = matrix_module.MatrixBuilder._meeting
    groups: list[float] = []

    def spy_groups(self, xs, pts):  # noqa: ANN001, ANN202 - the same for the multi-interface classes
        found = meeting(self, xs, pts)
        groups.append(1.0 if found is None else len(found) / len(pts))
        return found

    monkeypatch.setattr(matrix_module.MatrixBuilder, "_leaving", spy)
    monkeypatch.setattr(matrix_module.MatrixBuilder, "_meeting", spy_groups)
    matrix = Engine(topology).matrix()
    assert len(cut) > 20 and min(cut) < 0.5, cut           # many tiles, some of them cut short
    if shape != "microseg":                                # the routed firewalls have several interfaces
        assert groups and min(groups) < 0.5, groups
    assert sum(n for v, n in matrix.counts().items() if v is not Verdict.BLOCKED) > 0
    monkeypatch.setattr(matrix_module.MatrixBuilder, "_leaving", lambda self, pa, pb: None)
    monkeypatch.setattr(matrix_module.MatrixBuilder, "_meeting", lambda self, xs, pts: None)
    every_flow = Engine(topology).matrix()
    assert matrix.endpoints == every_flow.endpoints
    assert np.array_equal(_cells(matrix), _cells(every_flow))


def test_a_build_leaves_every_rule_table_an_edit_reads(monkeypatch: pytest.MonkeyPatch):
    """Cut tiles ask the firewalls about a few points at a time (answered without a table): the build still
    makes each table, so that the first edit after it does not (a VLAN edit at 45,000 VMs took 2 s so)."""
    monkeypatch.setattr(matrix_module, "TILE", 48)
    engine = Engine(SHAPES["vcenter"](300, 40, 3))
    engine.matrix()
    vec = engine._builder.vec
    owners = set(vec.judged[False][0]) | set(vec.judged[True][0])
    assert owners                                          # the routed firewalls judge ways
    assert owners | {"dfw-out", "dfw-in"} <= set(vec._tables)
