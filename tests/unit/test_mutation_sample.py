"""A random sample of mutants of the decision code (tests/bench/bench_mutation.py): every one that changes a
verdict on the examples or the random designs must make the agreement tests fail. The full run is the
benchmark; this sample keeps CI within a few minutes. VNETBENCH_MUTATION_SEED replays a sample."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from bench_mutation import DEFAULT_TARGETS, DEFAULT_TESTS, run  # noqa: E402

pytestmark = pytest.mark.slow

SAMPLE = 10


def test_a_sample_of_verdict_changing_mutants_is_killed_by_the_agreement_tests():
    seed = int(os.environ.get("VNETBENCH_MUTATION_SEED") or random.randrange(10**6))
    lines: list[str] = []
    outcomes = run(list(DEFAULT_TARGETS), SAMPLE, seed, seeds=4, tests=list(DEFAULT_TESTS), timeout=90,
                   out=lines.append)
    print("\n".join(lines))
    assert len(outcomes) == SAMPLE
    survivors = [str(o.mutant) + ": " + o.changes for o in outcomes if o.changes and not o.killed]
    assert not survivors, f"replay with VNETBENCH_MUTATION_SEED={seed}: {survivors}"
