"""Hypothesis strategies for random model objects, derived from the dataclasses' type hints.

Deriving them (like the codec and the schema do) means a new model field is covered by the round-trip and
schema property tests without anyone remembering to extend them.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from functools import cache
from typing import Any

from hypothesis import strategies as st

from vnetbench.model import FORMAT_VERSION, Topology
from vnetbench.model.codec import MAX_INT

#: Text that stresses YAML quoting: words YAML reads as other types, indicators, unicode, control chars.
TRICKY = ["yes", "no", "null", "~", "true", "1.0", "0x1F", "-", "a: b", "#x", "'", '"', " lead", "trail ",
          "line\nbreak", "tab\there", "\u00e9t\u00e9", "\u2028", "&anchor", "*alias", "!tag", "10", "4095", ""]
text = st.one_of(st.sampled_from(TRICKY), st.text(max_size=12))
ints = st.integers(min_value=-MAX_INT, max_value=MAX_INT)
floats = st.floats(allow_nan=False, allow_infinity=False)


@cache
def for_type(tp: Any) -> st.SearchStrategy:
    if isinstance(tp, type) and hasattr(tp, "from_plain"):  # a typed scalar (a VLAN): any text or number
        return st.one_of(ints, text).map(tp.from_plain)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return st.one_of([for_type(a) for a in typing.get_args(tp)])
    if origin is list:
        return st.lists(for_type(typing.get_args(tp)[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(text, for_type(typing.get_args(tp)[1]), max_size=3)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        fields = {f.name: for_type(hints[f.name]) for f in dataclasses.fields(tp)}
        if tp is Topology:
            fields["format_version"] = st.just(FORMAT_VERSION)
        return st.builds(tp, **fields)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return st.sampled_from(list(tp))
    if tp is type(None):
        return st.none()
    return {bool: st.booleans(), int: ints, float: floats, str: text}[tp]


def topologies() -> st.SearchStrategy[Topology]:
    return for_type(Topology)
