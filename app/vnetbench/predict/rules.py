"""Firewall rule matching (SEMANTICS.md 4.6): first match wins, then the default policy.

A flow without a protocol (the matrix's generic "can they talk") matches only rules that name no protocol
and no port: a rule about tcp/22 says nothing about traffic in general.

A rule's address is parsed once (``parse_spec`` is cached), and a long rule list is compiled once per engine
state (``RuleBook``, with ``rulearrays``) into arrays, so one flow against a firewall holding a rule per VM,
or against a DFW with ten thousand rules, costs a few vector operations instead of a Python loop over every
rule. Short lists stay plain Python (numpy is not even imported for them).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from ..model.objects import Action, Proto
from .decide import first_rule, permits

#: Rule lists shorter than this are matched rule by rule (arrays cost more than they save).
_COMPILE_FROM = 32


@dataclass(frozen=True)
class Party:
    """One side of a flow as rules see it: its address and the ids it can be named by."""

    ip: ipaddress.IPv4Address | None
    ids: frozenset[str]


class Decision(NamedTuple):
    """A rule list's verdict on one packet, as data: whether it passes, the rule that decided (its index
    as the words count it; None: none matched and the default ``policy`` decided), and those words."""

    allowed: bool
    rule: int | None
    which: str
    policy: Action
    action: Action = Action.ALLOW     # what the deciding rule (or the policy) does: allow, drop or reject


@dataclass(frozen=True)
class Spec:
    """A rule's ``src``/``dst`` as matching needs it: everything, or an object id and/or an address range."""

    everything: bool
    name: str
    lo: int | None = None      # first and last address of the network it names, if it names one
    hi: int | None = None
    version: int = 4           # that network's family: it names no address of the other


@lru_cache(maxsize=1 << 18)
def parse_spec(spec: str | None) -> Spec:
    """A rule's source or destination read once: any (both families), an IPv4 or IPv6 network (its address
    range), or a name. (The cache holds a whole vCenter's rules: a rule per VM names tens of thousands.)"""
    text = (spec or "any").strip()
    if text.lower() in ("any", "*", ""):
        return Spec(True, text)
    if "." not in text and ":" not in text:     # no address has neither: a name, without a failed parse
        return Spec(False, text)
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        return Spec(False, text)
    return Spec(False, text, int(network.network_address), int(network.broadcast_address), network.version)


def spec_matches(spec: str | None, party: Party) -> bool:
    """Whether a rule's source or destination names the party."""
    parsed = parse_spec(spec)
    if parsed.everything or parsed.name in party.ids:
        return True
    return party.ip is not None and parsed.lo is not None and parsed.hi is not None \
        and parsed.version == party.ip.version and parsed.lo <= int(party.ip) <= parsed.hi


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
    """Whether a rule matches a packet: protocol, port, source and destination."""
    if not _proto_matches(rule, proto) or not _port_matches(rule.port, port):
        return False
    return spec_matches(rule.src, src) and spec_matches(rule.dst, dst)


def describe(rule: Any, index: int) -> str:
    """A rule in words for reasons: ``rule 'web-in' (allow tcp/443 any -> web01)``."""
    name = rule.name or f"#{index + 1}"
    what = str(rule.proto) + (f"/{rule.port}" if rule.port not in (None, "") else "")
    return f"rule '{name}' ({rule.action} {what} {rule.src} -> {rule.dst})"


def evaluate(rules: Sequence[Any], default: Action, src: Party, dst: Party, proto: str | None,
             port: int | None) -> Decision:
    """Which rule (or the default policy) decides, and what it permits."""
    return decided(rules, default, first_rule([rule_matches(r, src, dst, proto, port) for r in rules]))


def decided(rules: Sequence[Any], default: Action, i: int, number: int | None = None) -> Decision:
    """The decision when rule ``i`` decided (``len(rules)``: none matched, the default policy); ``number``
    is the rule's index as the words count it, if not ``i``."""
    allowed = bool(permits(_Actions(rules, default), i))
    if i >= len(rules):
        return Decision(allowed, None, f"default policy {default}", default, default)
    number = i if number is None else number
    return Decision(allowed, number, describe(rules[i], number), default, rules[i].action)


class _Actions:
    """Each rule's action, then the default policy's, as ``decide.permits`` reads them (built for the one
    rule read, not for the whole list)."""

    def __init__(self, rules: Sequence[Any], default: Action) -> None:
        self.rules, self.default = rules, default

    def __getitem__(self, i: int) -> bool:
        action = self.rules[i].action if i < len(self.rules) else self.default
        return action is Action.ALLOW


class RuleBook:
    """Rule evaluation for single flows, with each long rule list compiled once.

    Holds compiled lists by identity, so it belongs to one engine state: the engine makes a new book (or
    calls ``forget``) when a rule changes. The NSX DFW is indexed by the ids its rules are applied to.
    """

    def __init__(self, dfw: Any) -> None:
        self.dfw = dfw
        self.forget()

    def forget(self) -> None:
        """Drop the compiled rule lists (the rules changed in place)."""
        self._compiled: dict[int, Any] = {}
        self._applied: Any = None

    def _compile(self, rules: Sequence[Any]) -> Any:
        from .rulearrays import CompiledRules

        compiled = self._compiled.get(id(rules))
        if compiled is None or len(compiled.rules) != len(rules):
            compiled = self._compiled[id(rules)] = CompiledRules(rules)
        return compiled

    def evaluate(self, rules: Sequence[Any], default: Action, src: Party, dst: Party, proto: str | None,
                 port: int | None) -> Decision:
        """``evaluate``, compiled for long lists."""
        if len(rules) < _COMPILE_FROM:
            return evaluate(rules, default, src, dst, proto, port)
        return decided(rules, default, self._compile(rules).first(None, src, dst, proto, port))

    def dfw_evaluate(self, ids: Iterable[str], src: Party, dst: Party, proto: str | None,
                     port: int | None) -> tuple[Decision, int]:
        """The DFW at one vNIC: first match among the rules applied there, then the default policy;
        (the decision, how many rules apply there)."""
        rules, default = self.dfw.rules, self.dfw.default_policy
        ids = set(ids)
        if len(rules) < _COMPILE_FROM:
            here = [r for r in rules if not r.applied_to or ids & set(r.applied_to)]
            return evaluate(here, default, src, dst, proto, port), len(here)
        compiled = self._compile(rules)
        applied = compiled.applied(ids)
        count = int(applied.sum())
        i = compiled.first(applied, src, dst, proto, port)
        return decided(rules, default, i, int(applied[:i].sum())), count
