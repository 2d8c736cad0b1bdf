"""Reading what a person types into a model field: the right type, checked the way validation checks it.

The inspector calls ``parse`` on every keystroke, so a bad value (VLAN 5000 on a standard switch, an address
without a prefix) shows its message while typing and is never written to the model.
"""

from __future__ import annotations

import ipaddress
import re
import types
import typing
from enum import Enum
from typing import Any

from ..model import Index, SwitchKind
from ..model.vlan import Vlan, VlanError, VlanList, check_vlan_id

#: Integer fields that hold one VLAN tag.
VLAN_TAGS = {"guest_vlan", "access_vlan", "native_vlan", "vlan"}
MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


class FieldError(ValueError):
    """What is wrong with a typed value, and what to type instead."""


def optional(hint: Any) -> tuple[Any, bool]:
    """(the type without None, whether None is allowed)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        allows_none = len(args) < len(typing.get_args(hint))
        inner = args[0] if len(args) == 1 else typing.Union[tuple(args)]
        return inner, allows_none
    return hint, False


def format_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (Vlan, VlanList)):
        return value.text
    if isinstance(value, list):
        return ", ".join(format_value(v) for v in value)
    return str(value)


def parse(text: str, hint: Any, field: str, switch_kind: SwitchKind | None = None,
          index: Index | None = None) -> Any:
    """The value ``text`` means for a field of type ``hint``; ``FieldError`` says what is wrong."""
    text = text.strip()
    inner, allows_none = optional(hint)
    if text == "" and allows_none:
        return None
    if field == "vlan" and switch_kind is not None:  # a portgroup's VLAN, read as its switch kind reads it
        vlan = Vlan.read(int(text) if text.isascii() and text.isdigit() else text)
        error = vlan.problem(switch_kind)
        if error is not None:
            raise FieldError(f"{error.message}: {error.hint}")
        return vlan
    if field == "allowed":
        allowed = VlanList.read(text)
        if not allowed.valid:
            raise FieldError(f"{allowed.error}: {allowed.hint}")
        return allowed
    if isinstance(inner, type) and issubclass(inner, Enum):
        try:
            return inner(text)
        except ValueError:
            raise FieldError(f"choose one of {', '.join(m.value for m in inner)}") from None
    if inner is bool:
        if text.lower() in ("true", "yes", "1", "on"):
            return True
        if text.lower() in ("false", "no", "0", "off"):
            return False
        raise FieldError("write true or false")
    if inner is int:
        if not re.fullmatch(r"-?\d+", text):
            raise FieldError("write a whole number")
        value = int(text)
        if field in VLAN_TAGS:
            try:
                check_vlan_id(value)
            except VlanError as exc:
                raise FieldError(f"{exc.message}: {exc.hint}") from None
        elif value < 0:
            raise FieldError("write a number of 0 or more")
        return value
    if inner is float:
        try:
            return float(text)
        except ValueError:
            raise FieldError("write a number") from None
    if typing.get_origin(inner) is list:
        items = [t.strip() for t in text.split(",") if t.strip()]
        if field == "addresses":  # an interface's further addresses, either family
            return [_checked_address(t) for t in items]
        if index is not None:
            unknown = [t for t in items if t not in index]
            if unknown:
                raise FieldError(f"no object with id {unknown[0]!r}: list ids separated by commas")
        return items
    if str in typing.get_args(inner) and int in typing.get_args(inner):  # a port: a number or a range
        return int(text) if text.isdigit() else text
    if inner is str:
        return _checked_text(text, field)
    raise FieldError(f"cannot edit {field} here")


def address_problem(text: str, with_prefix: bool) -> str | None:
    """What is wrong with an address as typed (``None``: nothing), naming the part that is wrong:
    "10.0.100.300 is not a valid IPv4 address: 300 is more than 255"."""
    address, slash, prefix = text.strip().partition("/")
    if slash and not with_prefix:
        return f"write the address without a prefix, like {address}"
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return f"{address or 'an empty text'} is not a valid IP address{_why_not(address)}"
    if not with_prefix:
        return None
    usual = 64 if parsed.version == 6 else 24
    if not slash:
        return f"add the prefix length, like {address}/{usual}"
    longest = parsed.max_prefixlen
    if not prefix.isdigit() or int(prefix) > longest:
        return f"/{prefix} is not a prefix length for IPv{parsed.version}: use 0 to {longest}, like {address}/{usual}"
    return None


def _checked_address(text: str) -> str:
    """One address/prefix of an interface, in its canonical form (IPv6 short, RFC 5952); ``FieldError`` says
    what is wrong and how to write it."""
    problem = address_problem(text, with_prefix=True)
    if problem:
        raise FieldError(f"{problem} (list addresses separated by commas, like 2001:db8:10::11/64)")
    address, _, prefix = text.partition("/")
    return f"{ipaddress.ip_address(address)}/{prefix}"


def _why_not(address: str) -> str:
    """The part of an IPv4 address that is wrong, for the message (empty when it is not IPv4-shaped)."""
    if ":" in address:
        return " (an IPv6 address looks like 2001:db8::5)"
    parts = address.split(".")
    if not all(p.isdigit() for p in parts):
        return ": use digits and dots, like 10.0.1.5"
    if len(parts) != 4:
        return f": an IPv4 address has four numbers, not {len(parts)}, like 10.0.1.5"
    too_big = next((p for p in parts if int(p) > 255), None)
    return f": {too_big} is more than 255" if too_big else ""


def _checked_text(text: str, field: str) -> str:
    if field in ("ip", "host_address") and text:
        problem = address_problem(text, with_prefix=True)
        if problem:
            raise FieldError(problem)
    elif field in ("gateway", "gateway6", "nat_gateway", "via") and text:
        problem = address_problem(text.split("/")[0], with_prefix=False)
        if problem:
            raise FieldError(problem)
    elif field == "prefix" and text:
        try:
            ipaddress.ip_network(text, strict=False)
        except ValueError:
            raise FieldError("write a network, like 10.0.2.0/24") from None
    elif field == "mac" and text and not MAC.match(text):
        raise FieldError("write a MAC address like 00:50:56:01:02:03")
    elif field in ("id", "name") and not text:
        raise FieldError(f"the {field} cannot be empty")
    return text
