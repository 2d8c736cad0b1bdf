"""VLAN values: a portgroup's ``vlan`` and a port's ``allowed`` list, read once when they enter the model.

Admins write VLANs the way their platform shows them (vSS: 0..4095 with 4095 = every VLAN to the guest;
vDS: 0..4094 or trunk ranges; OVS: a tag or a trunk list). The model holds them as typed values (``Vlan``,
``VlanList``) that keep the admin's own spelling, so a file saves back exactly as it was written. A value that
cannot be read is kept too, marked invalid with what is wrong and the fix: loading never fails on it, and
validation reports it by its place in the file. Nothing outside this module reads VLAN notation.

Assigning plain text or a number to a model field (``pg.vlan = 10``, the inspector, an importer) reads it here
as well: the fields are ``VlanField`` descriptors.
"""

from __future__ import annotations

from bisect import bisect_right
from enum import StrEnum
from typing import Any, Callable, Generic, TypeVar

MAX_VLAN = 4094
ALL_VLANS: tuple[tuple[int, int], ...] = ((1, MAX_VLAN),)
#: The vSphere standard switch's notation for "every VLAN to the guest" (virtual guest tagging).
VSS_ALL = 4095
_VSS = "vss"  # SwitchKind.VSS's value (objects imports this module, so the enum cannot be imported here)


class VlanError(ValueError):
    """A VLAN value that cannot be used; ``hint`` says what to write instead."""

    def __init__(self, message: str, hint: str) -> None:
        self.message, self.hint = message, hint
        super().__init__(f"{message} ({hint})")


class VlanMode(StrEnum):
    """How a portgroup carries VLANs: untagged, one VLAN, a trunk, or a value that cannot be read."""

    NONE = "none"
    ACCESS = "access"
    TRUNK = "trunk"
    INVALID = "invalid"


Ranges = tuple[tuple[int, int], ...]


def _plain(value: Any) -> int | str:
    """The plain spelling of a VLAN value; anything but a whole number or text is refused."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise VlanError(f"{value!r} is not a VLAN", "write none, a VLAN id, or trunk")
    return value


class _Spelled:
    """A value read from a spelling. Equality and hash go by the spelling (everything else is read from it), and
    a value equals the plain value it was read from (``pg.vlan == 10``), so code and tests may compare with
    what a person wrote. Plain classes, not dataclasses: to the codec, the schema and the inspector they are
    scalars, like the text they come from."""

    __slots__ = ("spelling", "error", "hint")

    def __init__(self, spelling: int | str, error: str, hint: str) -> None:
        self.spelling, self.error, self.hint = spelling, error, hint

    def __eq__(self, other: object) -> bool:
        if isinstance(other, type(self)):
            return type(self.spelling) is type(other.spelling) and self.spelling == other.spelling
        if isinstance(other, (int, str)) and not isinstance(other, bool):
            return type(self.spelling) is type(other) and self.spelling == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.spelling)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spelling!r})"

    # the codec's protocol for typed scalars: read from, and saved as, the spelling
    DESCRIPTION = ""

    @classmethod
    def from_plain(cls, value: Any) -> Any:
        return cls.read(value)  # type: ignore[attr-defined]

    def to_plain(self) -> int | str:
        return self.spelling

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        return {"anyOf": [{"type": "integer"}, {"type": "string"}], "description": cls.DESCRIPTION}

    @property
    def text(self) -> str:
        """The spelling as text, for an edit field."""
        return str(self.spelling)

    def carries(self, vlan: int) -> bool:
        """Whether ``vlan`` is in the ranges (sorted and merged by ``parse_ranges``: a binary search, since a
        trunk may list thousands of VLANs one by one)."""
        ranges = self.ranges  # type: ignore[attr-defined]
        at = bisect_right(ranges, (vlan, MAX_VLAN + 1)) - 1
        return at >= 0 and ranges[at][0] <= vlan <= ranges[at][1]


class Vlan(_Spelled):
    """A portgroup's VLAN: untagged, one access tag, a trunk carrying ``ranges``, or an unreadable value.

    ``spelling`` is what the admin wrote (saved back unchanged); ``error``/``hint`` say why an invalid value
    cannot be read. Whether the value suits the switch kind is a separate question: ``problem(kind)``.
    """

    __slots__ = ("mode", "tag", "ranges")
    DESCRIPTION = "0 or none (untagged), 1-4094 (access), 4095 (vSS: all VLANs), trunk [ranges]"

    def __init__(self, mode: VlanMode, tag: int | None = None, ranges: Ranges = (), spelling: int | str = 0,
                 error: str = "", hint: str = "") -> None:
        super().__init__(spelling, error, hint)
        self.mode, self.tag, self.ranges = mode, tag, ranges

    @classmethod
    def read(cls, value: int | str) -> Vlan:
        """Read the admin's notation; never raises for text or a number (an unreadable one is kept invalid)."""
        spelling = _plain(value)
        try:
            mode, tag, ranges = _read_vlan(spelling)
        except VlanError as exc:
            return cls(VlanMode.INVALID, spelling=spelling, error=exc.message, hint=exc.hint)
        return cls(mode, tag, ranges, spelling)

    def means(self, other: Vlan) -> bool:
        """The same setting, however each is spelled (``0`` and ``none``)."""
        return (self.mode, self.tag, self.ranges) == (other.mode, other.tag, other.ranges)

    def problem(self, kind: str) -> VlanError | None:
        """Why this value cannot be a portgroup VLAN on a switch of ``kind`` (a ``SwitchKind``), or None."""
        if self.mode is VlanMode.INVALID:
            return VlanError(self.error, self.hint)
        vss = kind == _VSS
        if self.spelling == VSS_ALL and not vss:
            return VlanError(f"VLAN 4095 is not a trunk on a {kind} switch",
                             "use trunk (all VLANs) or trunk with ranges, like trunk 10-20")
        if self.mode is VlanMode.TRUNK and vss and self.spelling != VSS_ALL:
            return VlanError("a vSphere standard switch has no trunk ranges",
                             "use VLAN 4095 to carry every VLAN to the guest")
        return None

    def label(self, kind: str) -> str:
        """What a diagram or listing shows for it on a switch of ``kind``: ``VLAN 10``, ``VLAN 5000 (invalid)``."""
        return f"VLAN {self.text} (invalid)" if self.problem(kind) else str(self)

    def __str__(self) -> str:
        if self.mode is VlanMode.ACCESS:
            return f"VLAN {self.tag}"
        if self.mode is VlanMode.TRUNK:
            return "trunk " + format_ranges(self.ranges)
        if self.mode is VlanMode.INVALID:
            return f"invalid VLAN {self.spelling!r}"
        return "no VLAN"


UNTAGGED = Vlan(VlanMode.NONE)


class VlanList(_Spelled):
    """A trunk port's allowed VLANs (``all``, ``10,20-30``), kept with the admin's spelling like ``Vlan``."""

    __slots__ = ("ranges",)
    DESCRIPTION = "VLAN ids and ranges a trunk allows: all, or like 10,20-30"

    def __init__(self, ranges: Ranges = ALL_VLANS, spelling: int | str = "all", error: str = "",
                 hint: str = "") -> None:
        super().__init__(spelling, error, hint)
        self.ranges = ranges

    @classmethod
    def read(cls, value: int | str) -> VlanList:
        """The allowed list from a file or inspector value; an unreadable one is kept with its error."""
        spelling = _plain(value)
        try:
            ranges = parse_ranges(spelling)
        except VlanError as exc:
            return cls((), spelling, exc.message, exc.hint)
        return cls(ranges, spelling)

    @property
    def valid(self) -> bool:
        """Whether the spelling could be read (validation reports the ones that could not)."""
        return not self.error

    def __str__(self) -> str:
        return format_ranges(self.ranges) if self.valid else f"invalid VLAN list {self.spelling!r}"


ALL = VlanList()

T = TypeVar("T", Vlan, VlanList)


class VlanField(Generic[T]):
    """A dataclass field that reads plain values into ``T`` on every assignment (file, inspector, importer)."""

    def __init__(self, read: Callable[[Any], T], default: T) -> None:
        self.read: Callable[[Any], T] = read
        self.default: T = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> T:
        if obj is None:
            return self.default
        return obj.__dict__[self.slot]

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.slot] = value if isinstance(value, (Vlan, VlanList)) else self.read(value)


# --- notation ---------------------------------------------------------------------------------------------


def parse_ranges(text: str | int) -> Ranges:
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
        if not _number(lo_text) or (hi_text and not _number(hi_text)):
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


def _number(text: str) -> bool:
    """Plain decimal digits, few enough to be a VLAN or a typo of one (``int`` reads other scripts' digits too)."""
    return text.isascii() and text.isdigit() and len(text) <= 12


def format_ranges(ranges: Ranges) -> str:
    """Ranges as people write them: ``all``, or like ``10,20-30``."""
    if ranges == ALL_VLANS:
        return "all"
    return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in ranges)


def _read_vlan(value: int | str) -> tuple[VlanMode, int | None, Ranges]:
    """A portgroup VLAN in any platform's notation; kind-specific checks are ``Vlan.problem``."""
    if isinstance(value, str):
        text = value.strip().lower()
        if _number(text):
            value = int(text)
        elif text in ("none", "untagged", ""):
            return VlanMode.NONE, None, ()
        elif text == "trunk" or text.startswith("trunk "):
            return VlanMode.TRUNK, None, parse_ranges(text[5:].strip() or "all")
        else:
            raise VlanError(f"{value!r} is not a VLAN", "write none, a VLAN id (1-4094), or trunk 10-20,30")
    if value == 0:
        return VlanMode.NONE, None, ()
    if value == VSS_ALL:
        return VlanMode.TRUNK, None, ALL_VLANS
    if 1 <= value <= MAX_VLAN:
        return VlanMode.ACCESS, value, ()
    raise VlanError(f"VLAN {value} is out of range", "use 0 (none), 1-4094, 4095 (vSS: all VLANs), or trunk")


def parse_vlan(value: int | str | Vlan, kind: str) -> Vlan:
    """A portgroup VLAN usable on a switch of ``kind``; ``VlanError`` names what is wrong and the fix.

    For text typed by a person (the inspector's as-you-type check); the model already holds ``Vlan`` values.
    """
    vlan = value if isinstance(value, Vlan) else Vlan.read(value)
    error = vlan.problem(kind)
    if error is not None:
        raise error
    return vlan


def check_vlan_id(value: int | None) -> None:
    """A single tag (guest VLAN, access VLAN, native VLAN) must be 1..4094."""
    if value is not None and not 1 <= value <= MAX_VLAN:
        raise VlanError(f"VLAN {value} is out of range", f"use a VLAN id from 1 to {MAX_VLAN}")
