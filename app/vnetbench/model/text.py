"""Text from a design file, made safe for where it goes: a terminal line or an export format.

Names come from files anyone can write, so they may hold ESC, BEL, NUL, a lone surrogate or kilobytes of
junk. Two helpers, one per destination: ``one_line`` for messages (every character stays visible, escaped
if need be, and the line is bounded), ``exportable`` for the export writers (characters no file format can
hold are dropped, since an escape sequence in a diagram label helps nobody).
"""

from __future__ import annotations

import re

#: Longest message a person is shown; longer ones are cut with an ellipsis.
MESSAGE_LIMIT = 400
#: Longest stretch of a bad value echoed inside a message.
VALUE_LIMIT = 60

# C0 and C1 controls, DEL, surrogates, and the two non-characters XML refuses.
_UNEXPORTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_LINE_BREAKS = re.compile(r"[\r\n\t\v\f\x85\u2028\u2029]+")


def exportable(text: str, breaks: bool = True) -> str:
    """``text`` without the characters SVG/draw.io (XML 1.0), PDF, DOT, CSV or UTF-8 cannot hold; with
    ``breaks=False`` line breaks and tabs become spaces too (a Mermaid label is one line)."""
    return _UNEXPORTABLE.sub("", text if breaks else _LINE_BREAKS.sub(" ", text))


def one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """A message as one printable line: breaks become spaces, other unprintables ``\\x1b``-style escapes,
    and at most ``limit`` characters."""
    text = _LINE_BREAKS.sub(" ", text)
    if not text.isprintable():
        text = "".join(c if c.isprintable() else _escape(c) for c in text)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def shown(value: object, limit: int = VALUE_LIMIT) -> str:
    """A bounded ``repr`` of a bad value for a message; huge whole numbers by their size only."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
