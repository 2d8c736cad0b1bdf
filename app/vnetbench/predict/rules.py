"""Firewall rule matching (SEMANTICS.md 4.6): first match wins, then the default policy.

A flow without a protocol (the matrix's generic "can they talk") matches only rules that name no protocol
and no port: a rule about tcp/22 says nothing about traffic in general.

A rule's address is parsed once (``parse_spec`` is cached), and a long rule list is compiled once per engine
state (``RuleBook``) into arrays, so one flow against a firewall holding a rule per VM, or against a DFW with
ten thousand rules, costs a few vector operations instead of a Python loop over every rule.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..model.objects import Action, Proto

#: Rule lists shorter than this are matched rule by rule (arrays cost more than they save).
_COMPILE_FROM = 32


@dataclass(frozen=True)
class Party:
    """One side of a flow as rules see it: its address and the ids it can be named by."""

    ip: ipaddress.IPv4Address | None
    ids: frozenset[str]


@dataclass(frozen=True)
class Spec:
    """A rule's ``src``/``dst`` as matching needs it: everything, or an object id and/or an address range."""

    everything: bool
    name: str
    lo: int | None = None      # first and last IPv4 address of the network it names, if it names one
    hi: int | None = None


@lru_cache(maxsize=1 << 16)
def parse_spec(spec: str | None) -> Spec:
    text = (spec or "any").strip()
    if text.lower() in ("any", "*", ""):
        return Spec(True, text)
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        return Spec(False, text)
    if network.version != 4:
        return Spec(False, text)
    return Spec(False, text, int(network.network_address), int(network.broadcast_address))


def spec_matches(spec: str | None, party: Party) -> bool:
    parsed = parse_spec(spec)
    if parsed.everything or parsed.name in party.ids:
        return True
    return party.ip is not None and parsed.lo is not None and parsed.lo <= int(party.ip) <= parsed.hi


@lru_cache(maxsize=1 << 12)
def port_ranges(spec: int | str | None) -> tuple[tuple[int, int], ...] | None:
    """The port ranges a rule names; None for any port."""
    if spec is None or str(spec).strip().lower() in ("", "any"):
        return None
    out = []
    for part in str(spec).replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        try:
            out.append((int(lo), int(hi or lo)))
        except ValueError:
            continue
    return tuple(out)


def _port_matches(spec: int | str | None, port: int | None) -> bool:
    ranges = port_ranges(spec)
    if ranges is None:
        return True
    return port is not None and any(lo <= port <= hi for lo, hi in ranges)


def _proto_matches(rule: Any, proto: str | None) -> bool:
    return rule.proto is Proto.ANY or str(rule.proto) == proto


def generic(rule: Any) -> bool:
    """Whether the rule can match a flow that names no protocol and no port (what the matrix predicts)."""
    return _proto_matches(rule, None) and _port_matches(rule.port, None)


def rule_matches(rule: Any, src: Party, dst: Party, proto: str | None, port: int | None) -> bool:
    if not _proto_matches(rule, proto) or not _port_matches(rule.port, port):
        return False
    return spec_matches(rule.src, src) and spec_matches(rule.dst, dst)


def describe(rule: Any, index: int) -> str:
    name = rule.name or f"#{index + 1}"
    what = str(rule.proto) + (f"/{rule.port}" if rule.port not in (None, "") else "")
    return f"rule '{name}' ({rule.action} {what} {rule.src} -> {rule.dst})"


def evaluate(rules: Sequence[Any], default: Action, src: Party, dst: Party, proto: str | None,
             port: int | None) -> tuple[bool, str]:
    """(allowed, which rule or the default policy decided)."""
    for i, rule in enumerate(rules):
        if rule_matches(rule, src, dst, proto, port):
            return rule.action is Action.ALLOW, describe(rule, i)
    return default is Action.ALLOW, f"default policy {default}"


class _Compiled:
    """One rule list as arrays: which rules a party's address and ids fall under, per side."""

    def __init__(self, rules: Sequence[Any]) -> None:
        self.rules = list(rules)
        self.sides = [self._side([parse_spec(getattr(r, side)) for r in self.rules]) for side in ("src", "dst")]
        self._protos: dict[str | None, np.ndarray] = {}
        self._ports: dict[int | None, np.ndarray] = {}

    @staticmethod
    def _side(specs: list[Spec]) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, list[int]]]:
        everything = np.array([s.everything for s in specs], dtype=bool)
        lo = np.array([s.lo if s.lo is not None else 1 for s in specs], dtype=np.int64)
        hi = np.array([s.hi if s.hi is not None else 0 for s in specs], dtype=np.int64)
        names: dict[str, list[int]] = {}
        for i, s in enumerate(specs):
            if not s.everything:
                names.setdefault(s.name, []).append(i)
        return everything, lo, hi, names

    def matching(self, side: int, party: Party) -> np.ndarray:
        everything, lo, hi, names = self.sides[side]
        hit = everything.copy()
        if party.ip is not None:
            value = int(party.ip)
            hit |= (lo <= value) & (value <= hi)
        for name in party.ids:
            hit[names.get(name, [])] = True
        return hit

    def flow_mask(self, proto: str | None, port: int | None) -> np.ndarray:
        if proto not in self._protos:
            self._protos[proto] = np.array([_proto_matches(r, proto) for r in self.rules], dtype=bool)
        if port not in self._ports:
            self._ports[port] = np.array([_port_matches(r.port, port) for r in self.rules], dtype=bool)
        return self._protos[proto] & self._ports[port]

    def first(self, among: np.ndarray, src: Party, dst: Party, proto: str | None, port: int | None) -> int:
        """The index of the first rule in ``among`` that matches, or -1."""
        hit = among & self.flow_mask(proto, port) & self.matching(0, src) & self.matching(1, dst)
        found = int(np.argmax(hit)) if len(hit) else -1
        return found if found >= 0 and hit[found] else -1


class RuleBook:
    """Rule evaluation for single flows, with each long rule list compiled once.

    Holds compiled lists by identity, so it belongs to one engine state: the engine makes a new book (or
    calls ``forget``) when a rule changes. The NSX DFW is indexed by the ids its rules are applied to.
    """

    def __init__(self, dfw: Any) -> None:
        self.dfw = dfw
        self.forget()

    def forget(self) -> None:
        self._compiled: dict[int, _Compiled] = {}
        self._applied: tuple[np.ndarray, dict[str, list[int]]] | None = None

    def _compile(self, rules: Sequence[Any]) -> _Compiled:
        compiled = self._compiled.get(id(rules))
        if compiled is None or len(compiled.rules) != len(rules):
            compiled = self._compiled[id(rules)] = _Compiled(rules)
        return compiled

    def evaluate(self, rules: Sequence[Any], default: Action, src: Party, dst: Party, proto: str | None,
                 port: int | None) -> tuple[bool, str]:
        """``evaluate``, compiled for long lists."""
        if len(rules) < _COMPILE_FROM:
            return evaluate(rules, default, src, dst, proto, port)
        i = self._compile(rules).first(np.ones(len(rules), dtype=bool), src, dst, proto, port)
        if i < 0:
            return default is Action.ALLOW, f"default policy {default}"
        return rules[i].action is Action.ALLOW, describe(rules[i], i)

    def applied(self, ids: Iterable[str]) -> np.ndarray:
        """Which DFW rules apply at a vNIC named by ``ids``: those applied to nothing in particular (every
        vNIC), or to one of the ids."""
        if self._applied is None:
            everywhere = np.array([not r.applied_to for r in self.dfw.rules], dtype=bool)
            by_id: dict[str, list[int]] = {}
            for i, rule in enumerate(self.dfw.rules):
                for target in dict.fromkeys(rule.applied_to):
                    by_id.setdefault(target, []).append(i)
            self._applied = (everywhere, by_id)
        everywhere, by_id = self._applied
        mask = everywhere.copy()
        for target in ids:
            mask[by_id.get(target, [])] = True
        return mask

    def dfw_evaluate(self, ids: Iterable[str], src: Party, dst: Party, proto: str | None,
                     port: int | None) -> tuple[bool, str, int]:
        """The DFW at one vNIC: first match among the rules applied there, then the default policy;
        (allowed, which, how many rules apply there)."""
        rules, default = self.dfw.rules, self.dfw.default_policy
        applied = self.applied(ids)
        count = int(applied.sum())
        i = self._compile(rules).first(applied, src, dst, proto, port)
        if i < 0:
            return default is Action.ALLOW, f"default policy {default}", count
        return rules[i].action is Action.ALLOW, describe(rules[i], int(applied[:i].sum())), count
