"""VLAN notation: what a portgroup's ``vlan`` and a port's ``allowed`` list mean, per switch kind.

Admins write VLANs the way their platform shows them (vSS: 0..4095 with 4095 = trunk; vDS: 0..4094 or trunk
ranges; OVS: a tag or a trunk list). This module is the one place that reads that notation, so validation,
prediction and the inspector's as-you-type check agree on every value.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .objects import SwitchKind

MAX_VLAN = 4094
ALL_VLANS: tuple[tuple[int, int], ...] = ((1, MAX_VLAN),)


class VlanError(ValueError):
    """A VLAN value the switch kind cannot take; ``hint`` says what to write instead."""

    def __init__(self, message: str, hint: str) -> None:
        self.message, self.hint = message, hint
        super().__init__(f"{message} ({hint})")


class VlanMode(StrEnum):
    NONE = "none"
    ACCESS = "access"
    TRUNK = "trunk"


@dataclass(frozen=True)
class Vlan:
    """A parsed VLAN setting: untagged, one access tag, or a trunk carrying ``ranges``."""

    mode: VlanMode
    tag: int | None = None
    ranges: tuple[tuple[int, int], ...] = ()

    def carries(self, vlan: int) -> bool:
        return any(lo <= vlan <= hi for lo, hi in self.ranges)

    def __str__(self) -> str:
        if self.mode is VlanMode.ACCESS:
            return f"VLAN {self.tag}"
        if self.mode is VlanMode.TRUNK:
            return "trunk " + format_ranges(self.ranges)
        return "no VLAN"


UNTAGGED = Vlan(VlanMode.NONE)


def parse_ranges(text: str | int) -> tuple[tuple[int, int], ...]:
    """``all`` / ``10`` / ``10,20-30`` -> sorted, merged ranges of VLAN ids 1..4094."""
    if isinstance(text, int) and not isinstance(text, bool):
        text = str(text)
    if not isinstance(text, str):
        raise VlanError(f"{text!r} is not a VLAN list", "write VLANs like 10,20-30 or all")
    text = text.strip().lower()
    if text in ("all", "*"):
        return ALL_VLANS
    if text in ("", "none"):
        return ()
    ranges = []
    for part in text.replace(" ", "").split(","):
        lo_text, _, hi_text = part.partition("-")
        if not lo_text.isdigit() or (hi_text and not hi_text.isdigit()):
            raise VlanError(f"{part!r} is not a VLAN or a range", "write VLANs like 10,20-30 or all")
        lo, hi = int(lo_text), int(hi_text or lo_text)
        if not (1 <= lo <= MAX_VLAN and 1 <= hi <= MAX_VLAN):
            raise VlanError(f"VLAN {lo if not 1 <= lo <= MAX_VLAN else hi} is out of range",
                            f"VLAN ids in a list run from 1 to {MAX_VLAN}")
        if hi < lo:
            raise VlanError(f"the range {part} runs backwards", f"write it as {hi}-{lo}")
        ranges.append((lo, hi))
    ranges.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return tuple(merged)


def format_ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    if ranges == ALL_VLANS:
        return "all"
    return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in ranges)


def parse_vlan(value: int | str, kind: SwitchKind) -> Vlan:
    """Read a portgroup's ``vlan`` for a switch of ``kind``; ``VlanError`` names what is wrong and the fix."""
    if isinstance(value, bool):
        raise VlanError(f"{value!r} is not a VLAN", "write none, a VLAN id, or trunk")
    if isinstance(value, str):
        text = value.strip().lower()
        if text.isdigit():
            value = int(text)
        elif text in ("none", "untagged", ""):
            return UNTAGGED
        elif text == "trunk" or text.startswith("trunk "):
            if kind is SwitchKind.VSS:
                raise VlanError("a vSphere standard switch has no trunk ranges",
                                "use VLAN 4095 to carry every VLAN to the guest")
            return Vlan(VlanMode.TRUNK, ranges=parse_ranges(text[5:].strip() or "all"))
        else:
            raise VlanError(f"{value!r} is not a VLAN", "write none, a VLAN id (1-4094), or trunk 10-20,30")
    if value == 0:
        return UNTAGGED
    if kind is SwitchKind.VSS and value == 4095:
        return Vlan(VlanMode.TRUNK, ranges=ALL_VLANS)
    if 1 <= value <= MAX_VLAN:
        return Vlan(VlanMode.ACCESS, tag=value)
    if kind is SwitchKind.VSS:
        raise VlanError(f"VLAN {value} is out of range for a standard switch",
                        "use 0 (none), 1-4094, or 4095 (all VLANs to the guest)")
    if value == 4095:
        raise VlanError(f"VLAN 4095 is not a trunk on a {kind.value} switch",
                        "use trunk (all VLANs) or trunk with ranges, like trunk 10-20")
    raise VlanError(f"VLAN {value} is out of range", "use 0 (none), 1-4094, or trunk")


def check_vlan_id(value: int | None) -> None:
    """A single tag (guest VLAN, access VLAN, native VLAN) must be 1..4094."""
    if value is not None and not 1 <= value <= MAX_VLAN:
        raise VlanError(f"VLAN {value} is out of range", f"use a VLAN id from 1 to {MAX_VLAN}")
