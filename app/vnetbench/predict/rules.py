"""Firewall rule matching (SEMANTICS.md 4.6): first match wins, then the default policy.

A flow without a protocol (the matrix's generic "can they talk") matches only rules that name no protocol
and no port: a rule about tcp/22 says nothing about traffic in general.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model.objects import Action, Proto


@dataclass(frozen=True)
class Party:
    """One side of a flow as rules see it: its address and the ids it can be named by."""

    ip: ipaddress.IPv4Address | None
    ids: frozenset[str]


def _spec_matches(spec: str, party: Party) -> bool:
    spec = (spec or "any").strip()
    if spec.lower() in ("any", "*", ""):
        return True
    if spec in party.ids:
        return True
    if party.ip is None:
        return False
    try:
        return party.ip in ipaddress.ip_network(spec, strict=False)
    except ValueError:
        return False


def _port_matches(spec: int | str | None, port: int | None) -> bool:
    if spec is None or str(spec).strip().lower() in ("", "any"):
        return True
    if port is None:
        return False
    for part in str(spec).replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        try:
            if int(lo) <= port <= int(hi or lo):
                return True
        except ValueError:
            continue
    return False


def rule_matches(rule: Any, src: Party, dst: Party, proto: str | None, port: int | None) -> bool:
    if rule.proto is not Proto.ANY and str(rule.proto) != proto:
        return False
    if not _port_matches(rule.port, port):
        return False
    return _spec_matches(rule.src, src) and _spec_matches(rule.dst, dst)


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


def signature(rules: Sequence[Any], party: Party) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Which rules name this party as source and as destination: parties with equal signatures match alike."""
    return (tuple(_spec_matches(r.src, party) for r in rules), tuple(_spec_matches(r.dst, party) for r in rules))
