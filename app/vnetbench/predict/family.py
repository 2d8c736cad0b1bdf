"""Prediction per address family: one engine per family the design uses (``Engine(topology, family)``, each
on the design as that family sees it: ``model.families.project``), and where two families' answers differ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model.families import FAMILIES, Family, families_in
from ..model.objects import Topology
from .engine import Engine
from .result import Prediction

if TYPE_CHECKING:
    from .matrix import Matrix


def chosen(topology: Topology, wanted: int | None = None) -> list[Family]:
    """The families to predict: ``wanted`` (4 or 6), else every family the design uses."""
    if wanted is None:
        return families_in(topology)
    if wanted not in FAMILIES:
        raise ValueError(f"family {wanted} is not 4 or 6")
    return [6 if wanted == 6 else 4]


def engines(topology: Topology, wanted: int | None = None) -> dict[Family, Engine]:
    """One engine per family to predict (``chosen``)."""
    return {f: Engine(topology, f) for f in chosen(topology, wanted)}


def predict(topology: Topology, src: str, dst: str, proto: str | None = None, port: int | None = None,
            wanted: int | None = None) -> dict[Family, Prediction]:
    """One pair's prediction per family (both families when the design uses both, unless ``wanted``)."""
    return {f: e.predict(src, dst, proto, port) for f, e in engines(topology, wanted).items()}


def differs(answers: dict[Family, Prediction]) -> bool:
    """Whether the families' verdicts differ (what an admin most wants to know of a dual-stack pair)."""
    return len({str(p.verdict) for p in answers.values()}) > 1


#: Rows compared at a time by ``differing_pairs`` (bounds its temporaries).
_ROWS = 256


def differing_pairs(one: Matrix, other: Matrix) -> set[tuple[str, str]]:
    """The ordered pairs (endpoint ids) whose verdicts differ between two families' matrices of one design,
    compared a block of rows at a time on the class tables."""
    import numpy as np

    at = {e: i for i, e in enumerate(other.endpoints)}
    order = np.array([at[e] for e in one.endpoints], dtype=np.int64)
    c1, c2 = one.classes, other.classes[order]
    out: set[tuple[str, str]] = set()
    for lo in range(0, len(c1), _ROWS):
        rows = np.arange(lo, min(len(c1), lo + _ROWS))
        differ = one.table[c1[rows]][:, c1] != other.table[c2[rows]][:, c2]
        differ[rows - lo, rows] = False
        for i, j in zip(*np.nonzero(differ)):
            out.add((one.endpoints[lo + int(i)], one.endpoints[int(j)]))
    return out
