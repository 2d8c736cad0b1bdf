"""DFW rule edits reread only the rules they touch (``DfwSets``), and answer as the whole list read afresh."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from random_designs import random_rule, random_rule_design
from test_predict_matrix import following

from vnetbench.model import Document
from vnetbench.predict import Engine
from vnetbench.predict.dfwsets import DfwSets


def _dfw_edit(d, rnd: random.Random, doc: Document | None = None) -> None:  # noqa: ANN001 - a Design
    """A DFW rule added, removed or changed in one field (a protocol or port change takes it out of the
    matrix's flows, or brings it back), through the document when one is given."""
    dfw = d.t.nsx.dfw
    kind = rnd.choice(["add", "remove", "set", "set", "set"]) if dfw.rules else "add"
    if kind == "add":
        rule, at = random_rule(d, rnd, dfw=True), rnd.randint(0, len(dfw.rules))
        doc.insert(dfw, "rules", rule, at) if doc else dfw.rules.insert(at, rule)
    elif kind == "remove":
        rule = rnd.choice(dfw.rules)
        doc.remove(dfw, "rules", rule) if doc else dfw.rules.remove(rule)
    else:
        rule, field = rnd.choice(dfw.rules), rnd.choice(["src", "dst", "action", "applied_to", "proto", "port"])
        value = getattr(random_rule(d, rnd, dfw=True), field)
        doc.set(rule, field, value) if doc else setattr(rule, field, value)


def _answers(sides: dict, n: int) -> list[np.ndarray]:
    """Every point against every other through each side's rule sets, asked point by point on either side
    (so both sides' indexes of the rule sets are made and, once made, carried through edits)."""
    everything = np.arange(n)
    return [sets.allowed(np.array([p]), everything) for sets in sides.values() for p in range(n)] + \
        [sets.allowed(everything, np.array([p])) for sets in sides.values() for p in range(n)]


@pytest.mark.parametrize("seed", range(16))
def test_dfw_sets_kept_through_edits_answer_as_fresh_ones(seed: int):
    """After each burst of rule edits the kept sets, spliced, answer every pair as sets read afresh."""
    d = random_rule_design(seed)
    engine = Engine(d.t)
    vec = engine.matrix() and engine._builder.vec
    kept = DfwSets(vec.n, vec.behind_dfw)
    _answers(kept.read(vec.sets, d.t.nsx.dfw), vec.n)
    rnd = random.Random(seed)
    for step in range(12):
        for _ in range(rnd.randint(1, 3)):
            _dfw_edit(d, rnd)
        fresh = DfwSets(vec.n, vec.behind_dfw).read(vec.sets, d.t.nsx.dfw)
        for a, b in zip(_answers(kept.read(vec.sets, d.t.nsx.dfw), vec.n), _answers(fresh, vec.n)):
            assert (a == b).all(), (seed, step)


@pytest.mark.parametrize("seed", range(16))
def test_matrix_after_dfw_rule_edits_equals_a_fresh_one(seed: int):
    """Edits of the DFW alone, through the document: the matrix kept current equals a fresh engine's."""
    d = random_rule_design(seed)
    doc, engine = following(d.t)
    rnd = random.Random(seed)
    for step in range(10):
        for _ in range(rnd.randint(1, 3)):
            _dfw_edit(d, rnd, doc)
        kept = list(engine.matrix().rows())
        fresh = list(Engine(copy.deepcopy(d.t)).matrix().rows())
        assert kept == fresh, (seed, step, [(a, b, v, w) for (a, b, v), (_, _, w) in zip(kept, fresh) if v is not w][:5])
