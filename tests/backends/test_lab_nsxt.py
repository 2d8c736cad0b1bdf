"""The NSX-T example deployed for real in the local lab and verified pair by pair: Tier-1 and Tier-0 distributed
routers as routing namespaces on every host, the Tier-0 service router as the edge node's namespace, the
segments as per-host bridges joined by VXLAN between the tunnel endpoints."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnetbench.measure.verify import Outcome, Verifier, plan_pairs
from vnetbench.model import load
from vnetbench.predict import Engine

pytestmark = [pytest.mark.lab, pytest.mark.slow]

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def test_the_tier1_tier0_example_confirms_every_pair(lab):
    design = load(EXAMPLES / "nsx-t-t1-t0.vnet.yaml")
    lab.up(design)
    engine = Engine(design)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    result = Verifier(lab, design, plans, scope, limits=left).run()
    bad = [(c.src_name, c.dst_name, [ch.detail for ch in c.contradictions]) for c in result.cells
            if c.outcome is not Outcome.CONFIRMED]
    print("\n".join(map(str, bad)))
    assert bad == []
    assert {(c.src_name, c.dst_name) for c in result.cells} >= {("web01", "db01"), ("web01", "srv01"),
                                                                ("srv01", "app02")}
