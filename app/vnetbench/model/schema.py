"""The JSON Schema (draft 2020-12) of a design file, derived from the model dataclasses.

Generated rather than written by hand so it cannot drift from what the codec reads: the same type hints
drive both. ``resources/schema/topology.schema.json`` is this function's output (a test keeps them equal),
for editors and other tools that want to check a file without vnetbench.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import types
import typing
from enum import Enum
from typing import Any

from .codec import MAX_INT, typed_scalar
from .objects import FORMAT_VERSION, Topology

#: The schema's identity: one URL per file format version, so a file's modeline names the format it was
#: written in. ``vnetbench schema`` prints the schema for editors that cannot fetch it.
SCHEMA_ID = f"https://vnetbench.io/schema/topology-{FORMAT_VERSION}.json"


def json_schema() -> dict[str, Any]:
    """The schema of format ``FORMAT_VERSION``; each model class is one entry of ``$defs``."""
    defs: dict[str, Any] = {}
    root = _dataclass_schema(Topology, defs)
    root["required"] = sorted({"format_version", "id", *root.get("required", [])})
    root["properties"]["format_version"] = {"const": FORMAT_VERSION,
                                            "description": "the file format version; older ones are migrated"}
    del defs["Topology"]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "vnetbench design", **root, "$defs": dict(sorted(defs.items()))}


def schema_text() -> str:
    """The JSON Schema as the text ``vnetbench schema`` prints and resources/ ships."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def _dataclass_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    properties: dict[str, Any] = {}
    required = []
    for f in dataclasses.fields(cls):
        properties[f.name] = _type_schema(hints[f.name], defs)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    out: dict[str, Any] = {"type": "object"}
    doc = inspect.getdoc(cls)
    if doc and not doc.startswith(f"{cls.__name__}("):  # dataclasses invent a signature when undocumented
        out["description"] = doc.split("\n\n")[0].replace("\n", " ")
    out |= {"properties": properties, "additionalProperties": False}
    if required:
        out["required"] = required
    defs[cls.__name__] = out
    return dict(out)


def _type_schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    if typed_scalar(tp):
        return tp.json_schema()
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_type_schema(arg, defs) for arg in typing.get_args(tp)]}
    if origin is list:
        (item,) = typing.get_args(tp)
        return {"type": "array", "items": _type_schema(item, defs)}
    if origin is dict:
        _, value = typing.get_args(tp)
        return {"type": "object", "additionalProperties": _type_schema(value, defs)}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if tp.__name__ not in defs:
            _dataclass_schema(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    if isinstance(tp, type) and issubclass(tp, Enum):
        legacy = list(tp.legacy_spellings()) if hasattr(tp, "legacy_spellings") else []   # old files stay valid
        return {"enum": [m.value for m in tp] + legacy}
    if tp is type(None):
        return {"type": "null"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer", "minimum": -MAX_INT, "maximum": MAX_INT}
    if tp is float:
        return {"type": "number"}
    if tp is str:
        return {"type": "string"}
    raise TypeError(f"no JSON Schema for {tp!r}")  # a model class uses a type the codec does not know either
