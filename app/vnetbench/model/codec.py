"""Turn plain data (what YAML/JSON parsing gives) into model dataclasses and back, by their type hints.

One generic converter instead of a hand-written reader per class: every field gets the same checks
(type, unknown keys with a "did you mean", sane number sizes) and every error names the place in the file,
like ``vms[3].vnics[0].type``. Saving drops fields that hold their default, so files stay short and diffs small.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from enum import Enum
from functools import cache
from typing import Any, TypeVar

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
        return f"{place}{self.message}{hint}"


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


def decode(tp: Any, value: Any, where: str = "") -> Any:
    """Convert plain ``value`` to type ``tp``, raising ``FormatError`` that names ``where``."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        # Try the exact scalar type first so 10 stays an int in ``int | str``.
        for arg in args:
            if arg is not type(None) and _accepts_exactly(arg, value):
                return decode(arg, value, where)
        for arg in args:
            if arg is type(None):
                continue
            try:
                return decode(arg, value, where)
            except FormatError:
                continue
        raise FormatError(where, f"expected {_describe(tp)}, found {_kind(value)}")
    if origin is list:
        if not isinstance(value, list):
            raise FormatError(where, f"expected a list, found {_kind(value)}", "write it as a YAML list: - item")
        (item,) = typing.get_args(tp)
        return [decode(item, v, _join(where, i)) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise FormatError(where, f"expected a mapping, found {_kind(value)}")
        key_tp, val_tp = typing.get_args(tp)
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise FormatError(where, f"key {k!r} must be text", "quote the key")
            out[k] = decode(val_tp, v, _join(where, k))
        return out
    if dataclasses.is_dataclass(tp):
        return _decode_dataclass(tp, value, where)
    if isinstance(tp, type) and issubclass(tp, Enum):
        if isinstance(value, str):
            try:
                return tp(value)
            except ValueError:
                pass
        choices = [m.value for m in tp]
        close = difflib.get_close_matches(str(value), choices, n=1)
        hint = f"did you mean {close[0]!r}?" if close else "use one of " + ", ".join(choices)
        raise FormatError(where, f"{value!r} is not a valid choice", hint)
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise FormatError(where, f"expected true or false, found {_kind(value)}")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > MAX_INT:
                raise FormatError(where, f"the number {value} is far too large", "check for a typo")
            return value
        raise FormatError(where, f"expected a whole number, found {_kind(value)}")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if isinstance(value, int) and abs(value) > MAX_INT or isinstance(value, float) and not math.isfinite(value):
                raise FormatError(where, f"the number {value} is not usable here", "use an ordinary finite number")
            return float(value)
        raise FormatError(where, f"expected a number, found {_kind(value)}")
    if tp is str:
        if isinstance(value, str):
            return value
        raise FormatError(where, f"expected text, found {_kind(value)}", "put it in quotes")
    raise TypeError(f"codec cannot decode {tp!r}")  # a model class uses a type the codec does not know


def _accepts_exactly(tp: Any, value: Any) -> bool:
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    return False


def _decode_dataclass(cls: type[T], value: Any, where: str) -> T:
    if not isinstance(value, dict):
        raise FormatError(where, f"expected a mapping with keys, found {_kind(value)}")
    hints = _hints(cls)
    names = [f.name for f in _fields(cls)]
    for key in value:
        if key not in names:
            close = difflib.get_close_matches(str(key), names, n=1)
            hint = f"did you mean {close[0]!r}?" if close else "allowed keys: " + ", ".join(names)
            raise FormatError(_join(where, str(key)), "unknown key", hint)
    kwargs = {}
    for f in _fields(cls):
        if f.name in value:
            kwargs[f.name] = decode(hints[f.name], value[f.name], _join(where, f.name))
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise FormatError(where, f"the key {f.name!r} is missing", f"add {f.name}: ...")
    return cls(**kwargs)


def encode(obj: Any) -> Any:
    """Plain data for ``obj``; dataclass fields equal to their default are left out."""
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
