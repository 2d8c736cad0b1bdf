"""The matrix dock's verdict filter masks, worked out a block of class rows at a time (issue 32: one numpy call
over the whole class table held the interpreter lock, and so the window, for 300 ms), against their definition
pair by pair: bit v of an endpoint's row mask is set when some other endpoint gets verdict v from it."""

from __future__ import annotations

import types

import numpy as np
import pytest

from vnetbench.gui.panels import matrix as panel
from vnetbench.gui.panels.matrix import VERDICTS, verdict_masks

pytestmark = pytest.mark.gui


def by_pairs(classes: np.ndarray, table: np.ndarray) -> tuple[list[int], list[int]]:
    rows, cols = [0] * len(classes), [0] * len(classes)
    for i, a in enumerate(classes):
        for j, b in enumerate(classes):
            code = int(table[a, b])
            if i != j and 0 <= code < len(VERDICTS):
                rows[i] |= 1 << code
                cols[j] |= 1 << code
    return rows, cols


@pytest.mark.parametrize("seed", range(40))
def test_masks_match_the_pairs_whatever_the_blocks(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(panel, "MASK_ROWS", int(rng.integers(1, 9)))   # blocks that split the table anywhere
    k = int(rng.integers(1, 30))
    classes = rng.integers(0, k, int(rng.integers(1, 60))).astype(np.int32)   # some classes without endpoints
    table = rng.integers(-1, len(VERDICTS) + 1, (k, k)).astype(np.int8)       # and codes outside the verdicts
    rows, cols = verdict_masks(types.SimpleNamespace(classes=classes, table=table))
    assert (rows.tolist(), cols.tolist()) == by_pairs(classes, table)
