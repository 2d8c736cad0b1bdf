"""A long rule list as arrays, for the rule book of ``rules``: one flow against thousands of rules is a few
vector operations (which rules each side's address and names fall under, which apply to the protocol and port
and, for the NSX DFW, at the vNIC), then the first match.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .decide import first_rule
from .rules import Party, Spec, _port_matches, _proto_matches, parse_spec


class CompiledRules:
    """One rule list as arrays: which rules a party's address and ids fall under, per side, and (for the
    DFW) at which vNICs each rule is applied."""

    def __init__(self, rules: Sequence[Any]) -> None:
        self.rules = list(rules)
        self._applied: tuple[np.ndarray, dict[str, list[int]]] | None = None
        self.sides = [self._side([parse_spec(getattr(r, side)) for r in self.rules]) for side in ("src", "dst")]
        self._protos: dict[str | None, np.ndarray] = {}
        self._ports: dict[int | None, np.ndarray] = {}

    @staticmethod
    def _side(specs: list[Spec]) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, list[int]],
                                          list[tuple[int, int, int]]]:
        """Per side: any, the IPv4 ranges as arrays, the names, and the (few) IPv6 ranges as a list."""
        everything = np.array([s.everything for s in specs], dtype=bool)
        four = [s.lo is not None and s.version == 4 for s in specs]
        lo = np.array([s.lo if v4 else 1 for s, v4 in zip(specs, four)], dtype=np.int64)
        hi = np.array([s.hi if v4 else 0 for s, v4 in zip(specs, four)], dtype=np.int64)
        six = [(i, s.lo, s.hi) for i, s in enumerate(specs) if s.version == 6 and s.lo is not None and s.hi is not None]
        names: dict[str, list[int]] = {}
        for i, s in enumerate(specs):
            if not s.everything:
                names.setdefault(s.name, []).append(i)
        return everything, lo, hi, names, six

    def matching(self, side: int, party: Party) -> np.ndarray:
        """Which rules' side (0 source, 1 destination) names the party: by address range or by id."""
        everything, lo, hi, names, six = self.sides[side]
        hit = everything.copy()
        if party.ip is not None and party.ip.version == 6:
            value = int(party.ip)
            hit[[i for i, first, last in six if first <= value <= last]] = True
        elif party.ip is not None:
            value = int(party.ip)
            hit |= (lo <= value) & (value <= hi)
        for name in party.ids:
            hit[names.get(name, [])] = True
        return hit

    def flow_mask(self, proto: str | None, port: int | None) -> np.ndarray:
        """Which rules match the protocol and port (cached per value)."""
        if proto not in self._protos:
            self._protos[proto] = np.array([_proto_matches(r, proto) for r in self.rules], dtype=bool)
        if port not in self._ports:
            self._ports[port] = np.array([_port_matches(r.port, port) for r in self.rules], dtype=bool)
        return self._protos[proto] & self._ports[port]

    def applied(self, ids: Iterable[str]) -> np.ndarray:
        """Which DFW rules apply at a vNIC named by ``ids``: those applied to nothing in particular (every
        vNIC), or to one of the ids."""
        if self._applied is None:
            everywhere = np.array([not r.applied_to for r in self.rules], dtype=bool)
            by_id: dict[str, list[int]] = {}
            for i, rule in enumerate(self.rules):
                for target in dict.fromkeys(rule.applied_to):
                    by_id.setdefault(target, []).append(i)
            self._applied = (everywhere, by_id)
        everywhere, by_id = self._applied
        mask = everywhere.copy()
        for target in ids:
            mask[by_id.get(target, [])] = True
        return mask

    def first(self, among: np.ndarray | None, src: Party, dst: Party, proto: str | None, port: int | None) -> int:
        """The index of the rule (in ``among``, if given) that decides (``decide.first_rule``), or the number
        of rules when none matches."""
        hit = self.flow_mask(proto, port) & self.matching(0, src) & self.matching(1, dst)
        if among is not None:
            hit &= among
        return first_rule(hit)
