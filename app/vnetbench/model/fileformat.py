"""Reading and writing design files: ``.vnet.yaml`` for people, ``.vnet.json`` for very large designs.

YAML because admins read and edit these by hand and review them in diffs: block style, comments allowed,
one key per line. We write a plain subset (no anchors, tags or flow style) and refuse anchors/aliases on
load, which also rules out cycles and "billion laughs" expansions. The same content may be stored as JSON
(a file that starts with ``{``): YAML parsers need seconds for a 10,000-VM design, JSON a tenth of one. Saves are atomic: write a temporary
file beside the target, fsync, then rename over it, so a failed save never damages the existing file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from .codec import FormatError, decode, encode
from .objects import FORMAT_VERSION, Topology

try:  # the C parser is much faster on large designs
    _Loader: type = yaml.CSafeLoader
    _Dumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader, _Dumper = yaml.SafeLoader, yaml.SafeDumper

MAX_FILE_BYTES = 64 * 1024 * 1024


class TopologyFileError(FormatError):
    """A design file cannot be read. Carries the file name with the place inside it."""

    def __init__(self, path: str | os.PathLike | None, error: FormatError) -> None:
        self.path = str(path) if path is not None else None
        super().__init__(error.where, error.message, error.hint)

    def __str__(self) -> str:
        prefix = f"{self.path}: " if self.path else ""
        return prefix + super().__str__()


# --- migrations ---------------------------------------------------------------------------------------


def _from_0(data: dict[str, Any]) -> dict[str, Any]:
    """Format 0 (the first prototype): vNICs named their ``portgroup``; positions sat on each object."""
    places: dict[str, Any] = {}

    def lift_position(obj: dict[str, Any]) -> None:
        if isinstance(obj, dict) and "x" in obj and "id" in obj:
            places[str(obj["id"])] = {"x": obj.pop("x"), "y": obj.pop("y", 0)}

    def items(value: Any) -> list:
        """A list field's items; anything else is left for the decoder to report."""
        return value if isinstance(value, list) else []

    for key in ("hosts", "switches", "vms", "physical_switches", "physical_routers", "physical_hosts"):
        for obj in items(data.get(key)):
            lift_position(obj)
    for vm in items(data.get("vms")):
        for nic in items(vm.get("vnics")) if isinstance(vm, dict) else []:
            if isinstance(nic, dict) and "portgroup" in nic:
                nic["network"] = nic.pop("portgroup")
    if places:
        layout = data.setdefault("layout", {})
        if isinstance(layout, dict) and isinstance(layout.setdefault("places", {}), dict):
            layout["places"].update(places)
    data["format_version"] = 1
    return data


#: version -> function that lifts data of that version to the next one.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: _from_0}


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    version = data.get("format_version")
    if version is None:
        raise FormatError("format_version", "the key is missing",
                          f"a vnetbench design starts with 'format_version: {FORMAT_VERSION}'")
    if not isinstance(version, int) or isinstance(version, bool):
        raise FormatError("format_version", f"expected a whole number, found {version!r}",
                          f"write format_version: {FORMAT_VERSION}")
    if version > FORMAT_VERSION:
        raise FormatError("format_version",
                          f"this file was written by a newer vnetbench (format {version}); "
                          f"this version reads formats up to {FORMAT_VERSION}",
                          "upgrade vnetbench to open it")
    if version < 0:
        raise FormatError("format_version", f"{version} is not a format version", f"use {FORMAT_VERSION}")
    while version < FORMAT_VERSION:
        data = MIGRATIONS[version](data)
        version = data["format_version"]
    return data


# --- parse and check the plain data --------------------------------------------------------------------


def _check_tree(root: Any) -> None:
    """Refuse shared or cyclic nodes (YAML aliases) and containers nested absurdly deep."""
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        if depth > 64:
            raise FormatError("", "the data is nested far too deep", "a design nests a few levels only")
        if id(node) in seen:
            raise FormatError("", "the file uses YAML anchors or aliases (& and *)",
                              "write each object out in full; vnetbench files do not share nodes")
        seen.add(id(node))
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children)


def parse_text(text: str) -> Any:
    """Plain data from YAML/JSON text, or a ``FormatError`` that says where the syntax broke."""
    if "\x00" in text:
        raise FormatError("", "the file contains binary data", "open a vnetbench design (.vnet.yaml)")
    if text.lstrip().startswith("{"):
        return _parse_json(text)
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise FormatError(where, f"not valid YAML: {exc.problem or exc.context}",
                          "check indentation and quoting near that line") from None
    except yaml.YAMLError as exc:
        raise FormatError("", f"not valid YAML: {exc}", "check the file's syntax") from None
    except RecursionError:
        raise FormatError("", "the data is nested far too deep", "a design nests a few levels only") from None
    _check_tree(data)
    return data


def _parse_json(text: str) -> Any:
    """JSON is valid YAML, but Python's JSON parser reads a large design ~50x faster than any YAML parser."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise FormatError(f"line {exc.lineno}, column {exc.colno}", f"not valid JSON: {exc.msg}",
                          "check brackets, commas and quotes near that place") from None
    except RecursionError:
        raise FormatError("", "the data is nested far too deep", "a design nests a few levels only") from None
    _check_tree(data)
    return data


def _refuse_constant(name: str) -> Any:
    raise FormatError("", f"{name} is not a number a design can hold", "use an ordinary finite number")


def from_data(data: Any) -> Topology:
    """A ``Topology`` from plain data of any supported format version."""
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise FormatError("", f"the file is {kind}, not a vnetbench design",
                          f"a design is a mapping that starts with 'format_version: {FORMAT_VERSION}'")
    data = migrate(dict(data))
    return decode(Topology, data)


def to_data(topology: Topology) -> dict[str, Any]:
    data = encode(topology)
    data["format_version"] = FORMAT_VERSION
    # Keep the version and identity first, for people reading the file.
    head = {k: data.pop(k) for k in ("format_version", "id", "name") if k in data}
    return head | data


def loads(text: str) -> Topology:
    return from_data(parse_text(text))


def dumps(topology: Topology, fmt: str = "yaml") -> str:
    """The design as text: ``yaml`` (the default, for people) or ``json`` (same content, opens much faster)."""
    if fmt == "json":
        return json.dumps(to_data(topology), indent=1, ensure_ascii=False) + "\n"
    return yaml.dump(to_data(topology), Dumper=_Dumper, sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=120)


def format_for(path: str | os.PathLike) -> str:
    return "json" if str(path).lower().endswith(".json") else "yaml"


def load(path: str | os.PathLike) -> Topology:
    """Read a design file; every failure is a ``TopologyFileError`` naming the file and the place."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise FormatError("", f"the file is {size // 2**20} MiB, larger than any design",
                              "check that this is a vnetbench design")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise TopologyFileError(path, FormatError("", "no such file", "check the path")) from None
    except IsADirectoryError:
        raise TopologyFileError(path, FormatError("", "this is a folder", "name a design file")) from None
    except PermissionError:
        raise TopologyFileError(path, FormatError("", "permission denied", "check the file's permissions")) from None
    except FormatError as exc:
        raise TopologyFileError(path, exc) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TopologyFileError(path, FormatError(
            "", f"not UTF-8 text (byte {exc.start})", "save the design as UTF-8, or open a .vnet.yaml file")) from None
    try:
        return loads(text)
    except FormatError as exc:
        raise TopologyFileError(path, exc) from None


def save(topology: Topology, path: str | os.PathLike) -> None:
    """Write atomically: a crash or full disk leaves the old file as it was."""
    atomic_write(Path(path), dumps(topology, format_for(path)))


def atomic_write(path: Path, text: str) -> None:
    path = path.resolve()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
