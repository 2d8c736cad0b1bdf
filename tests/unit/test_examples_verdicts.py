"""Every bundled example with a ``<name>.expect.yaml`` gets its expected verdicts (derived from SEMANTICS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.predict import Engine


def _cases() -> list:
    folder = resources_dir() / "examples"
    out = []
    for expect in sorted(folder.glob("*.expect.yaml")):
        design = expect.with_name(expect.name.replace(".expect.yaml", ".vnet.yaml"))
        for i, item in enumerate(yaml.safe_load(expect.read_text()) or []):
            ipv = f":ipv{item['family']}" if "family" in item else ""
            out.append(pytest.param(design, item, id=f"{design.name.split('.')[0]}:{item['from']}->{item['to']}{ipv}"))
    return out


CASES = _cases()


@pytest.mark.skipif(not CASES, reason="no example has an .expect.yaml yet")
@pytest.mark.parametrize("design,expect", CASES)
def test_example_verdict(design: Path, expect: dict):
    engine = Engine(load(design), expect.get("family"))
    p = engine.predict(expect["from"], expect["to"], expect.get("proto"), expect.get("port"))
    assert str(p.verdict) == expect["verdict"], f"{expect.get('why')} | engine says: {'; '.join(p.reasons)}"


@pytest.mark.skipif(not CASES, reason="no example has an .expect.yaml yet")
def test_example_matrices_agree_with_single_pairs():
    for design, family in sorted({(c.values[0], c.values[1].get("family", 4)) for c in CASES}):
        engine = Engine(load(design), family)
        matrix = engine.matrix()
        for src, dst, verdict in matrix.rows():
            assert verdict == engine.predict(src, dst).verdict, (design.name, family, src, dst)
