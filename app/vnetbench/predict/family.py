"""Prediction per address family: one engine per family the design uses (``Engine(topology, family)``, each
on the design as that family sees it: ``model.families.project``), and where two families' answers differ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

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


#: Joint classes compared at a time when counting (bounds the temporaries).
_ROWS = 256


class Differing:
    """The ordered pairs of distinct endpoints whose verdicts differ between two families' matrices of one
    design, held by class, never pair by pair: a dual-stack design with IPv4-only rules at 10,000 VMs has
    millions of such pairs. ``(a, b) in differing`` reads two cells; ``len`` counts them with the classes'
    multiplicities; ``pairs()`` lists them (for small designs)."""

    def __init__(self, one: Matrix, other: Matrix) -> None:
        import numpy as np

        self.one, self.other = one, other
        at = {e: i for i, e in enumerate(other.endpoints)}
        self._position = set(one.endpoints) & set(at)
        c1, c2 = one.classes, other.classes[np.array([at[e] for e in one.endpoints], dtype=np.int64)]
        joint, inverse = np.unique(np.stack([c1, c2], axis=1), axis=0, return_inverse=True)
        sizes = np.bincount(inverse.ravel(), minlength=len(joint)).astype(np.float64)   # (exact below 2**53)
        count = 0.0
        for lo in range(0, len(joint), _ROWS):
            rows = joint[lo:lo + _ROWS]
            differ = np.take(one.table[rows[:, 0]], joint[:, 0], axis=1) != \
                np.take(other.table[rows[:, 1]], joint[:, 1], axis=1)
            count += sizes[lo:lo + _ROWS] @ (differ.astype(np.float64) @ sizes)
            mine = np.arange(len(rows))
            count -= sizes[lo:lo + _ROWS][differ[mine, lo + mine]].sum()   # not each endpoint with itself
        self._count = round(count)

    def __contains__(self, pair: object) -> bool:
        a, b = cast(tuple[str, str], pair)
        if a == b or a not in self._position or b not in self._position:
            return False
        return self.one.verdict(a, b) != self.other.verdict(a, b)

    def __len__(self) -> int:
        return self._count

    def pairs(self) -> set[tuple[str, str]]:
        """Every differing pair (endpoint ids): only for designs small enough to list them."""
        return {(a, b) for a in self.one.endpoints for b in self.one.endpoints if (a, b) in self}
