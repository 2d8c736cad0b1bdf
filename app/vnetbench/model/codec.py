"""Turn plain data (what YAML/JSON parsing gives) into model dataclasses and back, by their type hints.

One generic converter instead of a hand-written reader per class: every field gets the same checks
(type, unknown keys with a "did you mean", sane number sizes) and every error names the place in the file,
like ``vms[3].vnics[0].type``. Saving drops fields that hold their default, so files stay short and diffs small.

A model type may read itself from plain data (a *typed scalar*, like a VLAN): it has ``from_plain(value)``
(raising ``ValueError`` with ``message``/``hint`` for a value of the wrong kind) and ``to_plain()``.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any, TypeVar

from .text import one_line, shown

T = TypeVar("T")

#: Integers beyond this are not a VLAN, a speed or a count in any design; refuse them early.
MAX_INT = 2**53


class FormatError(ValueError):
    """A file's content does not fit the format. ``where`` is the place (``hosts[0].pnics[1].speed_mbps``)."""

    def __init__(self, where: str, message: str, hint: str = "") -> None:
        self.where = where
        self.message = message
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self) -> str:
        place = f"{self.where}: " if self.where else ""
        hint = f" ({self.hint})" if self.hint else ""
        return one_line(f"{place}{self.message}{hint}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@cache
def _fields(cls: type) -> tuple[dataclasses.Field, ...]:
    return dataclasses.fields(cls)


_NO_DEFAULT = object()


@cache
def _defaults(cls: type) -> dict[str, Any]:
    """Each field's default value (factories called once), or ``_NO_DEFAULT``."""
    out = {}
    for f in _fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
        else:
            out[f.name] = _NO_DEFAULT
    return out


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {bool: "true/false", int: "a whole number", float: "a number", str: "text", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(tp))
    if tp is type(None):
        return "nothing (null)"
    if origin is list:
        return "a list"
    if origin is dict:
        return "a mapping"
    if isinstance(tp, type) and issubclass(tp, Enum):
        return "one of " + ", ".join(repr(m.value) for m in tp)
    if dataclasses.is_dataclass(tp):
        return "a mapping"
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(tp, str(tp))


def _join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


# A place in the file is carried as a cheap chain of (parent, key) tuples and turned into text only when an
# error needs it: building "vms[123].vnics[0]" for every value made loading large designs twice as slow.
Where = tuple | str


def _place(where: Where) -> str:
    keys: list[str | int] = []
    while isinstance(where, tuple):
        where, key = where
        keys.append(key)
    text = where
    for key in reversed(keys):
        text = _join(text, key)
    return text


Decoder = Callable[[Any, Where], Any]


def decode(tp: Any, value: Any, where: str = "") -> Any:
    """Convert plain ``value`` to type ``tp``, raising ``FormatError`` that names ``where``."""
    return _decoder(tp)(value, where)


def typed_scalar(tp: Any) -> bool:
    """Whether ``tp`` reads itself from plain file values (``from_plain``), like ``Vlan``."""
    return isinstance(tp, type) and hasattr(tp, "from_plain")


@cache
def _decoder(tp: Any) -> Decoder:
    """A function that decodes values of type ``tp``, built once per type."""
    if typed_scalar(tp):
        return _typed_decoder(tp)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(tp)
    if origin is list:
        (item_tp,) = typing.get_args(tp)
        item = _decoder(item_tp)

        def decode_list(value: Any, where: Where) -> list:
            if not isinstance(value, list):
                raise FormatError(_place(where), f"expected a list, found {_kind(value)}",
                                  "write it as a YAML list: - item")
            return [item(v, (where, i)) for i, v in enumerate(value)]
        return decode_list
    if origin is dict:
        _, val_tp = typing.get_args(tp)
        val = _decoder(val_tp)

        def decode_dict(value: Any, where: Where) -> dict:
            if not isinstance(value, dict):
                raise FormatError(_place(where), f"expected a mapping, found {_kind(value)}")
            for k in value:
                if not isinstance(k, str):
                    raise FormatError(_place(where), f"key {shown(k)} must be text", "quote the key")
            return {k: val(v, (where, k)) for k, v in value.items()}
        return decode_dict
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum_decoder(tp)
    scalar = _SCALARS.get(tp)
    if scalar is None:
        raise TypeError(f"codec cannot decode {tp!r}")  # a model class uses a type the codec does not know
    return scalar


def _union_decoder(tp: Any) -> Decoder:
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    optional = len(args) < len(typing.get_args(tp))
    exact = {a: _decoder(a) for a in args if a in (bool, int, str)}
    others = [_decoder(a) for a in args]

    def decode_union(value: Any, where: Where) -> Any:
        if value is None and optional:
            return None
        # The exact scalar type first, so 10 stays an int in ``int | str``.
        fn = exact.get(type(value))
        if fn is not None:
            return fn(value, where)
        if len(others) == 1:  # ``X | None``: X's own error names the place inside it (teaming.load_balancing)
            return others[0](value, where)
        for fn in others:
            try:
                return fn(value, where)
            except FormatError:
                continue
        raise FormatError(_place(where), f"expected {_describe(tp)}, found {_kind(value)}")
    return decode_union


def _typed_decoder(tp: Any) -> Decoder:
    def decode_typed(value: Any, where: Where) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise FormatError(_place(where), f"the number {value} is far too large", "check for a typo")
        try:
            return tp.from_plain(value)
        except ValueError as exc:
            raise FormatError(_place(where), getattr(exc, "message", str(exc)), getattr(exc, "hint", "")) from None
    return decode_typed


def _enum_decoder(tp: type[Enum]) -> Decoder:
    members = {m.value: m for m in tp}
    legacy = tp.legacy_spellings() if hasattr(tp, "legacy_spellings") else {}  # e.g. a rule's old "deny"

    def decode_enum(value: Any, where: Where) -> Enum:
        member = members.get(value, legacy.get(value)) if isinstance(value, str) else None
        if member is not None:
            return member
        choices = list(members)
        close = difflib.get_close_matches(value, choices, n=1) if isinstance(value, str) and len(value) < 100 else []
        hint = f"did you mean {close[0]!r}?" if close else "use one of " + ", ".join(choices)
        raise FormatError(_place(where), f"{shown(value)} is not a valid choice", hint)
    return decode_enum


def _dataclass_decoder(cls: type) -> Decoder:
    hints = _hints(cls)
    fields = _fields(cls)
    names = [f.name for f in fields]
    known = frozenset(names)
    required = [f.name for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    field_decoders: dict[str, Decoder] = {}

    def decode_dataclass(value: Any, where: Where) -> Any:
        if not isinstance(value, dict):
            raise FormatError(_place(where), f"expected a mapping with keys, found {_kind(value)}")
        if not field_decoders:  # resolved on first use: model classes refer to each other
            field_decoders.update({name: _decoder(hints[name]) for name in names})
        kwargs = {}
        for key, item in value.items():
            if key not in known:
                close = difflib.get_close_matches(key, names, n=1) if isinstance(key, str) and len(key) < 100 else []
                hint = f"did you mean {close[0]!r}?" if close else "allowed keys: " + ", ".join(names)
                raise FormatError(_join(_place(where), str(key)), "unknown key", hint)
            kwargs[key] = field_decoders[key](item, (where, key))
        for name in required:
            if name not in kwargs:
                raise FormatError(_place(where), f"the key {name!r} is missing", f"add {name}: ...")
        return cls(**kwargs)
    return decode_dataclass


def _decode_bool(value: Any, where: Where) -> bool:
    if isinstance(value, bool):
        return value
    raise FormatError(_place(where), f"expected true or false, found {_kind(value)}")


def _decode_int(value: Any, where: Where) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > MAX_INT:
            raise FormatError(_place(where), f"the number {shown(value)} is far too large", "check for a typo")
        return value
    raise FormatError(_place(where), f"expected a whole number, found {_kind(value)}")


def _decode_float(value: Any, where: Where) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, int) and abs(value) > MAX_INT or isinstance(value, float) and not math.isfinite(value):
            raise FormatError(_place(where), f"the number {shown(value)} is not usable here",
                              "use an ordinary finite number")
        return float(value)
    raise FormatError(_place(where), f"expected a number, found {_kind(value)}")


def _decode_str(value: Any, where: Where) -> str:
    if isinstance(value, str):
        return value
    raise FormatError(_place(where), f"expected text, found {_kind(value)}", "put it in quotes")


_SCALARS: dict[Any, Decoder] = {bool: _decode_bool, int: _decode_int, float: _decode_float, str: _decode_str}


def encode(obj: Any) -> Any:
    """Plain data for ``obj``; dataclass fields equal to their default are left out."""
    if typed_scalar(type(obj)):
        return obj.to_plain()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {}
        for name, default in _defaults(type(obj)).items():
            value = getattr(obj, name)
            if default is not _NO_DEFAULT and value == default:
                continue
            out[name] = encode(value)
        return out
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, list):
        return [encode(v) for v in obj]
    if isinstance(obj, dict):
        return {k: encode(v) for k, v in obj.items()}
    return obj
