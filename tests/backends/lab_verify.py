"""Verify a deployed design pair by pair, as `vnetbench verify` does, for the lab tests that need every cell."""

from __future__ import annotations

from vnetbench.measure.verify import Outcome, Verification, Verifier, plan_pairs
from vnetbench.predict import Engine


def verify_every_pair(lab, design, family: int = 4) -> tuple[Verification, list[tuple[str, str, list[str]]]]:  # noqa: ANN001
    """The verification of every pair of ``design`` (deployed by ``lab``) in ``family``, and the cells it did
    not confirm with their contradictions."""
    engine = Engine(design, family)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    result = Verifier(lab, design, plans, scope, limits=left, family=family).run()
    bad = [(c.src_name, c.dst_name, [ch.detail for ch in c.contradictions]) for c in result.cells
           if c.outcome is not Outcome.CONFIRMED]
    return result, bad
