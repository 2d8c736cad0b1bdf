"""Reading and writing design files: ``.vnet.yaml`` for people, ``.vnet.json`` for very large designs.

YAML because admins read and edit these by hand and review them in diffs: block style, comments allowed,
one key per line. We write a plain subset (no anchors, tags or flow style) and read YAML through our own
non-recursive builder over the parser's events, which refuses anchors, aliases, tags and duplicate keys at
their line (ruling out cycles and "billion laughs" too) and bounds nesting before anything recurses. The
same content may be stored as JSON (a file that starts with ``{``): JSON parses far faster; flow-style YAML
starting with ``{`` still loads. A file is refused before it is parsed when it is not a regular file or
exceeds the limits below. Saves are atomic: write a temporary file beside the target, fsync, then rename
over it, so a failed save never damages the existing file.

Saving over a YAML file changes only the lines of what changed (``roundtrip``): comments, key order, styles
and quoting stay as the person wrote them, and a save with no change gives the same bytes. A new YAML file
is written whole and starts with the ``yaml-language-server`` modeline that points editors at the schema;
an existing file keeps its first lines as they are (its modeline, or none).
"""

from __future__ import annotations

import codecs
import errno
import gc
import json
import logging
import os
import re
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from .codec import FormatError, Where, _place, decode, encode
from .objects import FORMAT_VERSION, Topology
from .schema import SCHEMA_ID
from .text import shown

log = logging.getLogger(__name__)

#: The first line of a new YAML design: editors with the YAML language server complete and check it.
MODELINE = f"# yaml-language-server: $schema={SCHEMA_ID}\n"

try:  # the C parser is much faster on large designs
    _Loader: type = yaml.CSafeLoader
    _BaseDumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader, _BaseDumper = yaml.SafeLoader, yaml.SafeDumper


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """Text of several lines (a description) as a ``|`` block, as a person writes it, not as "\\n" escapes."""


def _represent_str(dumper: Any, value: str) -> Any:
    style = "|" if "\n" in value.rstrip("\n") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


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
    """The file's data brought up to the current format version, or a ``FormatError`` saying why not."""
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

#: Limits on what a file may hold, checked before or while parsing so a hostile file costs little. Each is
#: far above any real design (a 10,000-VM design is 2.4 MB of YAML with 44,000 mappings and lists).
MAX_FILE_BYTES = 32 * 2**20
MAX_DEPTH = 64
MAX_CONTAINERS = 1_000_000
MAX_DIGITS = 100

_SURROGATE = re.compile("[\ud800-\udfff]")
_LONG_NUMBER = re.compile(rf"[0-9][0-9_]{{{MAX_DIGITS},}}|0[xX][0-9a-fA-F_]{{{MAX_DIGITS},}}")
_NUMBERISH = bytes(ord("0") if chr(i) in "0123456789_abcdefABCDEFxX" else ord(" ") for i in range(256))
_TOO_DEEP = ("the data is nested far too deep", f"a design nests a few levels only (at most {MAX_DEPTH})")
_TOO_MANY = (f"the file holds more than {MAX_CONTAINERS:,} mappings and lists, far more than any design",
             "check that this is a vnetbench design")


def _at(text: str, position: int) -> str:
    """``line L, column C`` of a character offset."""
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    return f"line {line}, column {column}"


def _mark(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _check_text(text: str) -> None:
    """What is refused before any parser runs: binary data and numbers no parser should have to convert."""
    if "\x00" in text:
        raise FormatError("", "the file contains binary data", "open a vnetbench design (.vnet.yaml)")
    long = _long_number(text)
    if long:
        raise FormatError(_at(text, long.start()), f"a value of {len(long.group())} digits, more than any "
                          "number or id in a design", f"check for a typo (at most {MAX_DIGITS} digits in a row)")


def _long_number(text: str) -> re.Match | None:
    """The first run of more than ``MAX_DIGITS`` digits. A pass over the bytes finds candidates (the regex
    alone takes 0.15 s on a 3 MB design, this a tenth of that); the regex confirms from there."""
    raw = text.encode("utf-8", "surrogatepass")
    hit = raw.translate(_NUMBERISH).find(b"0" * (MAX_DIGITS + 1))
    if hit < 0:
        return None
    return _LONG_NUMBER.search(text, len(raw[:hit].decode("utf-8", "surrogatepass")))


def parse_text(text: str) -> Any:
    """Plain data from YAML/JSON text, or a ``FormatError`` that says where the syntax broke.

    A file that starts with ``{`` is tried as JSON first (much faster); if that fails it may still be YAML
    in flow style, so YAML gets its turn, and only when both refuse it is it reported, with both reasons.
    """
    _check_text(text)
    if not text.lstrip().startswith("{"):
        return _parse_yaml(text)
    try:
        return _parse_json(text)
    except _NotJson as json_error:
        try:
            return _parse_yaml(text)
        except FormatError as yaml_error:
            raise _both_refused(json_error, yaml_error) from None


def _both_refused(json_error: _NotJson, yaml_error: FormatError) -> FormatError:
    if json_error.duplicate:  # valid JSON but for a key given twice: YAML's reading names its line
        return yaml_error if isinstance(yaml_error, DuplicateKey) else json_error
    yaml_place = f"{yaml_error.where}: " if yaml_error.where else ""
    return FormatError(json_error.where, f"neither valid JSON ({json_error.message}) nor valid YAML "
                       f"({yaml_place}{yaml_error.message})", "check brackets, commas and quotes near that place")


# --- YAML --------------------------------------------------------------------------------------------------

_RESOLVERS = yaml.resolver.Resolver.yaml_implicit_resolvers
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_STR, _INT, _FLOAT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null"))
_SCALAR_TAGS = {_INT: _CONSTRUCTOR.construct_yaml_int, _FLOAT: _CONSTRUCTOR.construct_yaml_float,
                _BOOL: _CONSTRUCTOR.construct_yaml_bool, _NULL: _CONSTRUCTOR.construct_yaml_null}
_COLLECTION_TAGS = {None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}
_NO_KEY = object()


def _scalar(event: yaml.ScalarEvent) -> Any:
    """A YAML 1.1 scalar as ``yaml.safe_load`` reads it, except that dates stay text (a name may look like
    one) and tags beyond the plain types are refused."""
    value, tag = event.value, event.tag
    if tag in (None, "!"):
        if not event.implicit[0]:
            return value  # quoted
        tag = _STR
        for candidate, regexp in _RESOLVERS.get(value[:1], ()):
            if regexp.match(value):
                tag = candidate
                break
        if tag == "tag:yaml.org,2002:merge":
            raise FormatError(_mark(event.start_mark), "a merge key (<<), which vnetbench files do not use",
                              "write the keys out in full")
    if tag == _STR or tag in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value"):
        return value
    construct = _SCALAR_TAGS.get(tag)
    if construct is None:
        raise FormatError(_mark(event.start_mark), f"the tag {shown(tag)}, which vnetbench files do not use",
                          "write plain values without ! tags")
    return construct(yaml.ScalarNode(tag, value))


def _parse_yaml(text: str) -> Any:
    """Build plain data from the parser's events, without recursion (no nesting can overflow the stack),
    refusing aliases, tags, duplicate keys, deep nesting and absurd sizes at the line where they occur."""
    root: Any = None
    stack: list[list] = []   # [container, pending key, {key: line}] for mappings; [container] for lists
    containers = documents = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            cls = type(event)
            if cls is yaml.ScalarEvent:
                if event.anchor:
                    _refuse_alias(event)
                value: Any = _scalar(event)
            elif cls is yaml.MappingStartEvent or cls is yaml.SequenceStartEvent:
                if event.anchor or event.tag not in _COLLECTION_TAGS:
                    _refuse_alias(event) if event.anchor else _refuse_tag(event)
                if stack and len(stack[-1]) == 3 and stack[-1][1] is _NO_KEY:
                    raise FormatError(_mark(event.start_mark), "a mapping or list used as a key",
                                      "keys are plain text")
                containers += 1
                if len(stack) >= MAX_DEPTH or containers > MAX_CONTAINERS:
                    raise FormatError(_mark(event.start_mark), *(_TOO_DEEP if len(stack) >= MAX_DEPTH else _TOO_MANY))
                stack.append([{}, _NO_KEY, {}] if cls is yaml.MappingStartEvent else [[]])
                continue
            elif cls is yaml.MappingEndEvent or cls is yaml.SequenceEndEvent:
                value = stack.pop()[0]
            elif cls is yaml.AliasEvent:
                _refuse_alias(event)
            elif cls is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise FormatError(_mark(event.start_mark), "a second YAML document (---)",
                                      "a design file holds one document")
                continue
            else:
                continue
            if not stack:
                root = value
                continue
            top = stack[-1]
            if len(top) == 1:
                top[0].append(value)
            elif top[1] is _NO_KEY:
                line = event.start_mark.line + 1
                if value in top[0]:
                    raise DuplicateKey(_mark(event.start_mark), f"the key {shown(value)} appears twice in this "
                                       f"mapping (first on line {top[2][value]})")
                top[1] = value
                top[2][value] = line
            else:
                top[0][top[1]] = value
                top[1] = _NO_KEY
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" in str(exc.problem):   # libyaml's own limit (PyYAML 6.0.4+), met before ours
            raise FormatError(_mark(exc.problem_mark), *_TOO_DEEP) from None
        raise FormatError(_mark(exc.problem_mark), f"not valid YAML: {exc.problem or exc.context}",
                          "check indentation and quoting near that line") from None
    except yaml.reader.ReaderError as exc:
        what = f"the character {shown(chr(exc.character))}" if isinstance(exc.character, int) else "a character"
        raise FormatError(_at(text, exc.position), f"not valid YAML: {what} is not allowed in a YAML file",
                          "remove it, or write it as an escape inside double quotes") from None
    except yaml.YAMLError as exc:
        raise FormatError("", f"not valid YAML: {exc}", "check the file's syntax") from None
    except TypeError:  # an unhashable key the parser let through
        raise FormatError("", "a mapping or list used as a key", "keys are plain text") from None
    return root


def _refuse_alias(event: Any) -> None:
    raise FormatError(_mark(event.start_mark), "the file uses YAML anchors or aliases (& and *)",
                      "write each object out in full; vnetbench files do not share nodes")


def _refuse_tag(event: Any) -> None:
    raise FormatError(_mark(event.start_mark), f"the tag {shown(event.tag)}, which vnetbench files do not use",
                      "write plain mappings and lists without ! tags")


# --- JSON --------------------------------------------------------------------------------------------------


class DuplicateKey(FormatError):
    """A mapping names one key twice; a plain loader would silently keep only the last value."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(where, message, "remove or merge one of them: the first would be silently lost")


class _NotJson(FormatError):
    """JSON refused the text; it may still be YAML in flow style. ``duplicate``: JSON found a key twice."""

    def __init__(self, where: str, message: str, duplicate: bool = False) -> None:
        super().__init__(where, message, "check brackets, commas and quotes near that place")
        self.duplicate = duplicate


class _JsonDuplicate(Exception):
    pass


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _JsonDuplicate(key)
            seen.add(key)
    return obj


def _parse_json(text: str) -> Any:
    """JSON is valid YAML, but Python's JSON parser reads a large design ~50x faster than any YAML parser.

    Its depth needs no check of ours: the parser stops at Python's recursion limit, and the decoder refuses
    anything nested deeper than the model within a few levels."""
    if text.count("{") + text.count("[") > MAX_CONTAINERS:
        raise FormatError("", *_TOO_MANY)
    try:
        data = json.loads(text, object_pairs_hook=_json_object, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise _NotJson(f"line {exc.lineno}, column {exc.colno}", exc.msg) from None
    except _JsonDuplicate as exc:
        raise _NotJson("", f"the key {shown(exc.args[0])} appears twice in one object", True) from None
    except RecursionError:
        raise FormatError("", *_TOO_DEEP) from None
    if "\\u" in text:  # only an escape can make a surrogate: a UTF-8 file cannot hold one
        _check_strings(data)
    return data


def _check_strings(root: Any) -> None:
    """Refuse text with a lone surrogate (JSON's ``\udfff``), which no UTF-8 file can store."""
    stack: list[tuple[Any, Where]] = [(root, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                raise FormatError(_place(where), "the text holds a lone surrogate (half of a \\u escape pair), "
                                  "which no UTF-8 file can store", "write the character itself")
        elif isinstance(node, (dict, list)):
            items = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend((child, (where, key)) for key, child in items)


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
    """The design as plain data for a file, version and identity first for people reading it."""
    data = encode(topology)
    data["format_version"] = FORMAT_VERSION
    # Keep the version and identity first, for people reading the file.
    head = {k: data.pop(k) for k in ("format_version", "id", "name") if k in data}
    return head | data


def loads(text: str) -> Topology:
    """A design from text. The cycle collector is paused meanwhile: loading makes hundreds of thousands of
    objects and no cycles, and the collections they trigger cost a third of a large load. It is left off if
    it was off (the designer runs it on the GUI thread only)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        return from_data(parse_text(text))
    finally:
        if was_on:
            gc.enable()


def dumps(topology: Topology, fmt: str = "yaml") -> str:
    """The design as text: ``yaml`` (the default, for people) or ``json`` (same content, opens much faster)."""
    if fmt == "json":
        return json.dumps(to_data(topology), indent=1, ensure_ascii=False) + "\n"
    return _yaml_text(to_data(topology))


def _yaml_text(data: Any, column: int = 0) -> str:
    """Plain data in the house style (block, one key per line), each line indented by ``column``."""
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True,
                     width=120)
    return "".join(" " * column + line if line.strip() else line for line in text.splitlines(keepends=True))


def format_for(path: str | os.PathLike) -> str:
    """``json`` for a .json path, else ``yaml``: the file name chooses the format."""
    return "json" if str(path).lower().endswith(".json") else "yaml"


def load(path: str | os.PathLike) -> Topology:
    """Read a design file; every failure is a ``TopologyFileError`` naming the file and the place."""
    try:
        return _from_bytes(_read_file(Path(path)))
    except FormatError as exc:
        raise TopologyFileError(path, exc) from None


def load_stream(stream: BinaryIO, name: str = "<stdin>") -> Topology:
    """Read a design from a stream (``-`` on the command line), within the same size limit as a file."""
    try:
        raw = stream.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise FormatError("", f"more than the limit of {MAX_FILE_BYTES // 2**20} MiB",
                              "check that this is a vnetbench design")
        return _from_bytes(raw)
    except FormatError as exc:
        raise TopologyFileError(name, exc) from None


def _from_bytes(raw: bytes) -> Topology:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError("", f"not UTF-8 text (byte {exc.start})",
                          "save the design as UTF-8, or open a .vnet.yaml file") from None
    return loads(text)


def _read_file(path: Path) -> bytes:
    """The bytes of a regular file of at most ``MAX_FILE_BYTES``; anything else is refused before a byte is
    read (a device never ends, a FIFO blocks). Non-blocking open, so even a FIFO cannot hang us."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FormatError("", "no such file", "check the path") from None
    except PermissionError:
        raise FormatError("", "permission denied", "check the file's permissions") from None
    except OSError as exc:
        raise FormatError("", f"cannot open it ({exc.strerror or exc})", "name a design file") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FormatError("", "this is a folder", "name a design file")
        if not stat.S_ISREG(info.st_mode):
            raise FormatError("", "not a regular file (a device, pipe or socket)", "name a design file")
        limit = f"more than the limit of {MAX_FILE_BYTES // 2**20} MiB"
        if info.st_size > MAX_FILE_BYTES:
            raise FormatError("", f"the file is {info.st_size / 2**20:.0f} MiB, {limit}",
                              "check that this is a vnetbench design")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise FormatError("", f"cannot read it ({exc.strerror or exc})", "check the file") from None
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise FormatError("", f"the file grew to {limit} while being read", "check that this is a design")
    return b"".join(chunks)


def save(topology: Topology, path: str | os.PathLike, keep_from: str | os.PathLike | None = None) -> None:
    """Write atomically: a crash or full disk leaves the old file as it was.

    A YAML design keeps the text of ``keep_from`` (by default the file being replaced; for "save as", the file
    the design was opened from) wherever the design did not change; otherwise it is written fresh."""
    target = Path(path)
    fmt = format_for(target)
    kept = _kept_text(topology, Path(keep_from or target)) if fmt == "yaml" else None
    atomic_write(target, kept if kept is not None else
                 (MODELINE if fmt == "yaml" else "") + dumps(topology, fmt))


def _kept_text(topology: Topology, source: Path) -> str | None:
    """``topology`` written over the text of ``source``, changing only the lines of what changed; ``None``
    when there is no readable YAML design there (a new file, a JSON one) or its layout cannot be kept."""
    from .roundtrip import CannotKeep, keep_layout   # ruamel.yaml: only saving over a file loads it

    try:
        raw = _read_file(source)
        text = raw.decode("utf-8-sig")
        old = parse_text(text)
        if text.lstrip().startswith("{") or not isinstance(old, dict) or old.get("format_version") != FORMAT_VERSION:
            return None     # JSON, or an older format: the migrated design is written fresh
        canon = to_data(from_data(old))
    except (FormatError, UnicodeDecodeError):
        return None
    new = to_data(topology)
    try:
        kept = keep_layout(text, old, canon, new, _yaml_text)
        if kept is not text and to_data(from_data(parse_text(kept))) != new:
            raise CannotKeep("the edited text reads back differently")
    except (CannotKeep, FormatError) as exc:
        log.warning("%s: writing the design fresh, its layout could not be kept (%s)", source, exc)
        return None
    return ("\ufeff" if raw.startswith(codecs.BOM_UTF8) else "") + kept


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) through a temporary file beside ``path``, fsync, then rename over it.

    The temporary file starts private (``mkstemp``); before the rename it takes the mode of the file it
    replaces, or for a new file the one the umask gives (``0644`` under the usual ``022``), as any editor's
    save would. A target that exists and is not a regular file (a device such as ``/dev/null``, a FIFO,
    ``/dev/stdout``) is written into directly, and a rename never replaces one: run as root, renaming over
    ``/dev/null`` would replace the machine's null device with a file.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if _write_into_special(Path(path), payload):
        return
    path = Path(path).resolve()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        if not _regular_or_absent(path):  # it became a device or FIFO meanwhile: never rename over that
            raise FileExistsError(errno.EEXIST, "not a regular file, so not replaced", str(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _write_into_special(path: Path, payload: bytes) -> bool:
    """Write into ``path`` if it is an existing non-regular file (following links); False if it is not one."""
    try:
        if stat.S_ISREG(os.stat(path).st_mode):
            return False
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(os.stat(path).st_mode):
        raise IsADirectoryError(errno.EISDIR, "a folder, not a file", str(path))
    fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return True


def _regular_or_absent(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True


def _umask() -> int:
    """The process umask, read without changing it (``os.umask`` sets it, racing other threads' files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022
