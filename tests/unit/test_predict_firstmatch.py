"""The first-match tables answer like a rule-by-rule loop, for any mix of wide and narrow rules."""

from __future__ import annotations

import numpy as np
import pytest

from vnetbench.predict import firstmatch
from vnetbench.predict.firstmatch import NARROW, FirstMatch, RuleSets


def _random_set(rnd: np.random.Generator, n: int) -> np.ndarray:
    size = int(rnd.choice([0, 1, 2, NARROW, NARROW + 1, n // 3, n // 2, n]))
    return np.sort(rnd.choice(n, size=min(size, n), replace=False)).astype(np.int64)


def _random_rule_list(rnd: np.random.Generator) -> tuple:
    """(points, key sets, other sets, actions, default, enforced keys or None) of a random rule list."""
    n = int(rnd.integers(1, 50))
    rules = int(rnd.integers(0, 30))
    keys = [_random_set(rnd, n) for _ in range(rules)]
    others = [_random_set(rnd, n) for _ in range(rules)]
    allow = rnd.random(rules) < 0.5
    default = bool(rnd.random() < 0.5)
    return n, keys, others, allow, default, rnd.random(n) < 0.8 if rnd.random() < 0.5 else None


def _brute(n, keys, others, allow, default, enforced) -> np.ndarray:
    out = np.full((n, n), default, dtype=bool)
    decided = np.zeros((n, n), dtype=bool)
    for k_set, o_set, a in zip(keys, others, allow):
        hit = np.zeros((n, n), dtype=bool)
        hit[np.ix_(k_set, o_set)] = True
        hit &= ~decided
        out[hit] = a
        decided |= hit
    if enforced is not None:
        out[~enforced, :] = True
    return out


@pytest.mark.parametrize("fold", [True, False], ids=["folded", "exceptions"])
@pytest.mark.parametrize("seed", range(60))
def test_first_match_equals_the_rule_by_rule_loop(seed: int, fold: bool, monkeypatch):
    if not fold:  # keep column exceptions as exceptions, as a large table does
        monkeypatch.setattr(firstmatch, "_FOLD", 0)
    rnd = np.random.default_rng(seed)
    rule_list = _random_rule_list(rnd)
    n = rule_list[0]
    table, expected = FirstMatch(*rule_list), _brute(*rule_list)
    everything = np.arange(n)
    assert (table.allowed(everything, everything) == expected).all()
    for _ in range(5):  # any subsets, in any order, either way round
        ks = rnd.permutation(n)[:int(rnd.integers(1, n + 1))]
        os_ = rnd.permutation(n)[:int(rnd.integers(1, n + 1))]
        assert (table.allowed(ks, os_) == expected[np.ix_(ks, os_)]).all()
        assert (table.allowed(ks, os_, transpose=True) == expected[np.ix_(ks, os_)].T).all()


@pytest.mark.parametrize("seed", range(30))
def test_rule_sets_answer_a_few_points_like_the_table(seed: int):
    rnd = np.random.default_rng(seed)
    rule_list = _random_rule_list(rnd)
    n = rule_list[0]
    few, expected = RuleSets(*rule_list), _brute(*rule_list)
    for _ in range(5):
        ks = rnd.permutation(n)[:int(rnd.integers(1, 4))]
        os_ = rnd.permutation(n)[:int(rnd.integers(1, n + 1))]
        assert (few.allowed(ks, os_) == expected[np.ix_(ks, os_)]).all()
        assert (few.allowed(os_, ks) == expected[np.ix_(os_, ks)]).all()
        assert (few.allowed(ks, os_, transpose=True) == expected[np.ix_(ks, os_)].T).all()
