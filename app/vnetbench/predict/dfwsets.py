"""The NSX DFW's rule list as point sets at the source and at the destination, kept across DFW edits.

A design with a DFW rule per VM has tens of thousands of rules; reading every rule's point sets again after
one rule changed cost half of a 45,000-VM edit. Here the rule list is compared with the one the sets were
read from by what decides a verdict (action, sides, protocol, port, where it is applied), not by object: the
engine hands on copies of edited rules where the IPv6 relabelling or the projection holds its own. Only the
run of rules between the unchanged head and tail is read again and spliced in (``RuleSets.spliced``).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import compress
from operator import attrgetter, ne

import numpy as np

from .firstmatch import RuleSets
from .rules import generic


_VERDICT_FIELDS = attrgetter("action", "src", "dst", "proto", "port")
_APPLIED_TO = attrgetter("applied_to")


def _verdict_fields(rules: list) -> list[tuple]:
    """Each rule's fields that decide a verdict, copied (``applied_to`` is a list); read without a Python
    call per rule, since the DFW may hold tens of thousands."""
    return list(zip(map(_VERDICT_FIELDS, rules), map(tuple, map(_APPLIED_TO, rules))))


def _first_true(flags: Iterator[bool], most: int) -> int:
    """The index of the first true flag, at most ``most``."""
    return next(compress(range(most), flags), most)


class DfwSets:
    """The DFW's ``RuleSets`` at the source ("dfw-out") and at the destination ("dfw-in"), made over
    ``PointSets``; ``read`` brings them up to date with the rule list."""

    def __init__(self, n: int, enforced: np.ndarray) -> None:
        self.n, self.enforced = n, enforced
        self._fields: list[tuple] = []          # each rule's verdict fields when last read
        self._live_before = np.zeros(1, dtype=np.int64)   # matrix rules (``generic``) before each rule
        self._default: bool | None = None
        self._sides: dict[str, RuleSets] = {}

    def read(self, sets, dfw) -> dict[str, RuleSets]:  # noqa: ANN001 - PointSets, Dfw
        """The two sides' rule sets for the DFW's rules as they are now."""
        rules = dfw.rules
        fields = _verdict_fields(rules)
        default = dfw.default_policy == "allow"
        old = self._fields
        head = tail = 0
        if self._sides and default == self._default:   # the unchanged head and tail, compared without a Python loop
            end = min(len(old), len(fields))
            head = _first_true(map(ne, old, fields), end)
            tail = _first_true(map(ne, reversed(old), reversed(fields)), end - head)
        else:
            self._sides = {}
        span = rules[head:len(rules) - tail]
        live = np.fromiter((generic(r) for r in span), dtype=bool, count=len(span))
        edited = [r for r, matches in zip(span, live.tolist()) if matches]
        src = [sets.match(r.src) for r in edited]
        dst = [sets.match(r.dst) for r in edited]
        at_src = [sets.applied_match(r.src, r.applied_to) for r in edited]
        at_dst = [sets.applied_match(r.dst, r.applied_to) for r in edited]
        allow = [r.action == "allow" for r in edited]
        if self._sides:
            lo, hi = int(self._live_before[head]), int(self._live_before[len(old) - tail])
            self._sides = {"dfw-out": self._sides["dfw-out"].spliced(lo, hi, at_src, dst, allow),
                           "dfw-in": self._sides["dfw-in"].spliced(lo, hi, at_dst, src, allow)}
        else:
            self._sides = {"dfw-out": RuleSets(self.n, at_src, dst, allow, default, self.enforced).indexed(),
                           "dfw-in": RuleSets(self.n, at_dst, src, allow, default, self.enforced).indexed()}
        before = self._live_before
        self._live_before = np.concatenate([
            before[:head + 1], before[head] + np.cumsum(live),
            before[len(old) - tail + 1:] - before[len(old) - tail] + before[head] + int(live.sum())])
        self._fields, self._default = fields, default
        return dict(self._sides)
