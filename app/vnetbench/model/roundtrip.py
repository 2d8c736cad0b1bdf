"""Saving over a design file a person wrote: only the lines of what changed are rewritten.

Designs live in version control and are reviewed as diffs, so a save keeps every comment, the key order,
block and flow style and the quoting of the file it replaces. The fast loader gives plain data without any
of that, so a save re-reads the file's text and applies the *differences* between what the file holds
(``old``) and the design being saved (``new``):

- the text is cut into line ranges along its block structure (the top-level keys, each list item, each key
  of a nested mapping), found from the C parser's events, so a 10,000-VM design is not handed to a slow
  pure-Python editor as a whole;
- a range whose data did not change is copied byte for byte; a removed one is dropped; an added one is
  written fresh in the house style;
- a changed range that cannot be cut further (one VM, a flow-style list, a block text) is edited with
  ruamel.yaml's round-trip mode, which keeps the comments and styles inside it.

Values are compared in their canonical form (what the codec writes), so a key a person spelled out with its
default value is kept while it keeps that value. The result is parsed back and must give the design being
saved; if it does not (a layout this cannot follow), the caller writes the file fresh instead.
"""

from __future__ import annotations

import difflib
import io
import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError as RuamelError
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarfloat import ScalarFloat
from ruamel.yaml.scalarstring import (DoubleQuotedScalarString, FoldedScalarString, LiteralScalarString,
                                      SingleQuotedScalarString)

_MISSING = object()
#: Characters the YAML reader counts as line breaks besides "\n": text holding them is not cut into lines.
_ODD_BREAKS = re.compile("[\r\x85\u2028\u2029]")
_DASH = re.compile(r" *- +")


class CannotKeep(Exception):
    """The file's layout is beyond what a line-preserving edit can follow: write it fresh."""


def keep_layout(text: str, old: Any, canon: Any, new: Any, fresh: Any) -> str:
    """``text`` with ``new`` applied where it differs from ``canon``.

    ``old`` is the plain data the fast loader read from ``text``; ``canon`` the same data as the codec writes
    it; ``new`` what is being saved; ``fresh(value, column)`` renders a value nobody has written yet.
    Raises ``CannotKeep`` when the text cannot be edited in place.
    """
    if canon == new:
        return text
    lines = text.splitlines(keepends=True)
    root = None if _ODD_BREAKS.search(text) else _blocks(text, lines)
    try:
        if root is None:
            return "".join(_leaf(lines, 0, "root", old, canon, new))
        return "".join(_patch(root, lines, 0, len(lines), old, canon, new, fresh))
    except (yaml.YAMLError, RuamelError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        raise CannotKeep(str(exc)) from None


# --- the block structure of the text ------------------------------------------------------------------


@dataclass
class _Block:
    """A block-style mapping or list whose entries each start on a line of their own."""

    kind: str                                  # "map" or "seq"
    column: int = -1                           # where its keys or dashes stand
    starts: list[int] = field(default_factory=list)   # the line each entry starts on
    children: list[_Block | None] = field(default_factory=list)  # each entry's value, if a block itself
    ok: bool = True


def _blocks(text: str, lines: list[str]) -> _Block | None:
    """The root's block structure, or ``None`` when the root is not a block mapping."""
    stack: list[tuple[_Block, list]] = []   # (block, [expecting a key?]) ; key state for mappings
    root: _Block | None = None
    for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        cls = type(event)
        if cls in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
            block, _ = stack.pop()
            done = block if block.ok else None
            if stack:
                stack[-1][0].children.append(done)
                _after_value(stack)
            else:
                root = done
            continue
        if cls not in (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent, yaml.AliasEvent):
            continue
        if stack:
            parent, state = stack[-1]
            if parent.kind == "seq" or state[0]:   # an entry starts: a list item or a mapping key
                _entry(parent, event, lines)
        if cls in (yaml.MappingStartEvent, yaml.SequenceStartEvent):
            kind = "map" if cls is yaml.MappingStartEvent else "seq"
            stack.append((_Block(kind, ok=not event.flow_style), [True]))
            continue
        if stack:
            parent, state = stack[-1]
            if parent.kind == "map" and state[0]:
                state[0] = False      # a key: its value comes next
            else:
                parent.children.append(None)
                _after_value(stack)
    return root if root is not None and root.kind == "map" else None


def _after_value(stack: list[tuple[_Block, list]]) -> None:
    parent, state = stack[-1]
    if parent.kind == "map":
        state[0] = True


def _entry(block: _Block, event: Any, lines: list[str]) -> None:
    """Note where an entry starts; a block whose entries share lines or hide behind a dash is not cut."""
    line, column = event.start_mark.line, event.start_mark.column
    prefix = lines[line][:column] if line < len(lines) else ""
    if block.kind == "map":
        good = not prefix.strip()
    else:
        good = bool(_DASH.fullmatch(prefix))
        column = prefix.index("-") if good else column
    if not good or (block.starts and line <= block.starts[-1]) or block.column not in (-1, column):
        block.ok = False
    block.column = column
    block.starts.append(line)


# --- applying differences -----------------------------------------------------------------------------


def _plan(old: Any, canon: Any, new: Any) -> list[tuple[str, Any, Any]]:
    """The edit from ``old`` to ``new``, in order: ``(keep|patch, i, j)``, ``(drop, i, None)``, ``(add, None, j)``.

    ``i`` indexes the old entries (positions, which for a mapping follow its keys), ``j`` names a new entry
    (a key, or a position in a list)."""
    if isinstance(new, dict):
        added = _added(old, new)
        ops: list[tuple[str, Any, Any]] = [("add", None, k) for k in added.get(_MISSING, ())]
        for i, key in enumerate(old):
            if key in new:
                ops.append(("keep" if canon.get(key, _MISSING) == new[key] else "patch", i, key))
            else:
                ops.append(("drop" if key in canon else "keep", i, None))
            ops.extend(("add", None, k) for k in added.get(key, ()))
        return ops
    if len(canon) != len(old):
        raise ValueError("the list changed length when read")
    matcher = difflib.SequenceMatcher(None, [_identity(x) for x in canon], [_identity(x) for x in new],
                                      autojunk=False)
    ops = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            ops.extend(("keep" if canon[i] == new[j] else "patch", i, j) for i, j in zip(range(i1, i2), range(j1, j2)))
        else:
            ops.extend(("drop", i, None) for i in range(i1, i2))
            ops.extend(("add", None, j) for j in range(j1, j2))
    return ops


def _added(old: dict, new: dict) -> dict[Any, list]:
    """The keys new in ``new``, by the old key they follow (``_MISSING``: before every old key), in order."""
    out: dict[Any, list] = {}
    previous: Any = _MISSING
    for key in new:
        if key in old:
            previous = key
        else:
            out.setdefault(previous, []).append(key)
    return out


def _identity(item: Any) -> str:
    """What makes list items "the same one": their id, else their whole content."""
    if isinstance(item, dict) and isinstance(item.get("id"), str):
        return "id:" + item["id"]
    return json.dumps(item, sort_keys=True, default=str)


def _children(old: Any, canon: Any, new: Any, i: Any, j: Any) -> tuple[Any, Any, Any]:
    if isinstance(new, dict):
        key = list(old)[i]
        return old[key], (canon.get(key, _MISSING) if isinstance(canon, dict) else _MISSING), new[j]
    return old[i], canon[i], new[j]


def _same_kind(block: _Block | None, old: Any, canon: Any, new: Any) -> bool:
    kind = dict if block is not None and block.kind == "map" else list
    return block is not None and all(isinstance(x, kind) for x in (old, canon, new))


def _patch(block: _Block, lines: list[str], start: int, end: int, old: Any, canon: Any, new: Any,
           fresh: Any) -> list[str]:
    """New lines for lines ``start:end``, an entry (or the whole file) whose value is ``block``."""
    if not _same_kind(block, old, canon, new) or len(block.starts) != len(old):
        raise ValueError("the structure differs from the data")
    bounds = block.starts + [end]
    out = lines[start:bounds[0]]
    pending: list[str] = []     # trailing comments of the entry before: they lead into the next one
    for op, i, j in _plan(old, canon, new):
        if op == "add":
            out += fresh(_entry_value(new, j), block.column).splitlines(keepends=True)
            continue
        body, tail = _split_tail(lines[bounds[i]:bounds[i + 1]], block.column)
        out += pending
        pending = tail
        if op == "keep":
            out += body
        elif op == "patch":
            o, c, n = _children(old, canon, new, i, j)
            child = block.children[i]
            if c is not _MISSING and _same_kind(child, o, c, n) and block.kind == "map":
                out += _patch(child, lines, bounds[i], bounds[i] + len(body), o, c, n, fresh)
            elif block.kind == "map":
                out += _leaf(body, block.column, "map", o, c, n)
            else:   # a list item is edited under its list's key, so its dash keeps its place
                out += _leaf(lines[start:start + 1] + body, _column(lines[start]), "seq", o, c, n)[1:]
    return out + pending


def _column(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _entry_value(new: Any, j: Any) -> Any:
    """A new entry as the fresh writer takes it: a one-key mapping or a one-item list."""
    return {j: new[j]} if isinstance(new, dict) else [new[j]]


def _split_tail(body: list[str], column: int) -> tuple[list[str], list[str]]:
    """Blank lines and comments at the end of an entry that stand left of it: they belong to what follows."""
    cut = len(body)
    while cut > 1:
        line = body[cut - 1]
        stripped = line.lstrip(" ")
        if stripped.strip() and not (stripped.startswith("#") and len(line) - len(stripped) <= column):
            break
        cut -= 1
    return body[:cut], body[cut:]


# --- one entry through ruamel.yaml -------------------------------------------------------------------------


def _leaf(body: list[str], column: int, kind: str, old: Any, canon: Any, new: Any) -> list[str]:
    """Edit one entry with ruamel.yaml: ``kind`` ``map`` is one key, ``seq`` one item under the line of its
    list's key, ``root`` the whole document."""
    text = "".join(_dedent(line, column) for line in body)
    mapping, offset = _indents(text)
    editor = YAML(typ="rt")
    editor.preserve_quotes = True
    editor.width = 4096
    editor.indent(mapping=mapping, sequence=offset + 2, offset=offset)
    editor.Representer = _Representer
    document = editor.load(text)
    if kind == "root":
        document = _merge(document, old, canon, new)
    elif kind == "map":
        (key,) = list(document)
        document[key] = _merge(document[key], old, canon, new)
    else:
        (key,) = list(document)
        document[key][0] = _merge(document[key][0], old, canon, new)
    out = io.StringIO()
    editor.dump(document, out)
    pad = " " * column
    return [pad + line if line.strip() else line for line in out.getvalue().splitlines(keepends=True)]


class _Representer(RoundTripRepresenter):
    """Numbers written so that YAML 1.1 (our loader) reads back exactly the same value."""

    def represent_exact_float(self, value: float) -> Any:
        """A number as it was written where that reads back the same; else as PyYAML writes it
        (``5.0e-324``: ruamel's ``5e-324`` is text to YAML 1.1, and it may drop a digit of a long one)."""
        if isinstance(value, ScalarFloat):
            node = self.represent_scalar_float(value)
            if yaml.safe_load(node.value) == value:
                return node
        return self.represent_scalar("tag:yaml.org,2002:float", yaml.safe_dump(float(value)).split("\n")[0])


_Representer.add_representer(float, _Representer.represent_exact_float)
_Representer.add_representer(ScalarFloat, _Representer.represent_exact_float)


_KEY_LINE = re.compile(r"[^#]*:\s*(#.*)?$")


def _indents(text: str) -> tuple[int, int]:
    """How the text indents a nested mapping and where it puts a nested list's dash (``a:`` then ``- b`` is 0,
    then ``  - b`` is 2), taken from the first of each found, so a rewritten entry looks like its neighbours."""
    mapping = offset = None
    above: tuple[int, bool] | None = None   # the previous line's key column, and whether a block opens there
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        dashes = re.match(r"(?:-(?: +|$))*", stripped).group()  # type: ignore[union-attr]  # * matches always
        if above is not None and above[1]:
            if dashes and offset is None:
                offset = indent - above[0]
            elif not dashes and indent > above[0] and mapping is None:
                mapping = indent - above[0]
        above = (indent + len(dashes), bool(_KEY_LINE.match(stripped)))
    return mapping or 2, max(offset or 0, 0)


def _dedent(line: str, column: int) -> str:
    """A line of an entry at ``column`` moved to column 0 (a comment or blank line may stand further left)."""
    lead = len(line) - len(line.lstrip(" "))
    if lead < column and line.strip() and not line.lstrip(" ").startswith("#"):
        raise ValueError("a line stands left of its entry")
    return line[min(lead, column):]


def _merge(node: Any, old: Any, canon: Any, new: Any) -> Any:
    """``node`` (ruamel's reading of ``old``) changed in place to hold ``new``; what stays keeps its style."""
    if canon is not _MISSING and canon == new:
        return node
    is_map = isinstance(node, CommentedMap) and all(isinstance(x, dict) for x in (old, canon, new))
    is_seq = isinstance(node, CommentedSeq) and all(isinstance(x, list) for x in (old, canon, new))
    if not (is_map or is_seq):
        return _restyle(node, new)
    keys = list(node)
    if len(keys) != len(old):
        raise ValueError("the structure differs from the data")
    position = 0
    for op, i, j in _plan(old, canon, new):
        if op == "add":
            if isinstance(node, CommentedMap):
                node.insert(position, _value(j), _value(new[j]))
            else:
                node.insert(position, _value(new[j]))
            position += 1
        elif op == "drop":
            del node[keys[i] if isinstance(node, CommentedMap) else position]
        else:
            if op == "patch":
                at = keys[i] if isinstance(node, CommentedMap) else position
                node[at] = _merge(node[at], *_children(old, canon, new, i, j))
            position += 1
    return node


#: Characters a YAML file holds only as escapes (control characters, breaks YAML 1.1 counts as line ends).
_NEEDS_ESCAPES = re.compile("[^\x09\x0a\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]")
_STYLES = (LiteralScalarString, FoldedScalarString, SingleQuotedScalarString, DoubleQuotedScalarString)


def _restyle(node: Any, new: Any) -> Any:
    """A new scalar written the way the old one was (block text, quotes), where that style can hold it."""
    if isinstance(new, str) and not _NEEDS_ESCAPES.search(new):
        for style in _STYLES:
            if isinstance(node, style):
                if style in (LiteralScalarString, FoldedScalarString) and "\n" not in new.rstrip("\n"):
                    break
                return style(new)
    return _value(new)


def _value(value: Any) -> Any:
    """Plain data as ruamel.yaml should write it, read back the same by our YAML 1.1 loader."""
    if isinstance(value, dict):
        return CommentedMap((_value(k), _value(v)) for k, v in value.items())
    if isinstance(value, list):
        return CommentedSeq(_value(v) for v in value)
    if isinstance(value, str):
        if _NEEDS_ESCAPES.search(value):
            return DoubleQuotedScalarString(value)
        if "\n" in value.rstrip("\n") and not re.search(r" \n|[^\S\n]$|^\s", value):
            return LiteralScalarString(value)
        if _resolves_to_other(value):
            return SingleQuotedScalarString(value)
    return value


def _resolves_to_other(text: str) -> bool:
    """Whether YAML 1.1 reads this text, unquoted, as something else (``yes``, ``0x1F``, ``1_000``)."""
    for tag, regexp in yaml.resolver.Resolver.yaml_implicit_resolvers.get(text[:1], ()):
        if regexp.match(text):
            return tag != "tag:yaml.org,2002:str"
    return False
