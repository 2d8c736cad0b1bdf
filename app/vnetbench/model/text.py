"""Text from a design file, made safe for where it goes: a terminal line or an export format.

Names come from files anyone can write (and from vCenter, through ``vnetbench import``), so they may hold
ESC, BEL, NUL, a lone surrogate, a right-to-left override, a spreadsheet formula or kilobytes of junk. Names
are data, never commands: one helper per destination, and every writer for that destination calls it.

- ``one_line`` for messages and names in a table (every character stays visible, escaped if need be, and
  the line is bounded); ``printable`` for whole blocks of terminal text (the same escapes; line feeds kept).
  A terminal never receives ESC, BEL, CR, a C1 control or a bidi override raw.
- ``exportable`` for the export writers: characters no file format can hold are dropped (an escape sequence
  in a diagram label helps nobody), and bidi overrides become a visible ``\\u202e`` so a name cannot show
  reversed.
- ``csv_cell`` for every text cell of every CSV writer: ``exportable``, then a leading apostrophe before
  ``= + - @`` TAB CR (OWASP's advice against formula injection), and CR made LF so the csv module quotes it.
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
#: Characters that reorder how the text around them is shown (Trojan Source): shown as escapes everywhere.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: What a spreadsheet reads as the start of a formula (OWASP, CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def exportable(text: str, breaks: bool = True) -> str:
    """``text`` without the characters SVG/draw.io (XML 1.0), PDF, DOT, CSV or UTF-8 cannot hold; with
    ``breaks=False`` line breaks and tabs become spaces too (a Mermaid label is one line)."""
    text = _UNEXPORTABLE.sub("", text if breaks else _LINE_BREAKS.sub(" ", text))
    return _BIDI.sub(lambda m: _escape(m.group()), text)


def csv_cell(text: str) -> str:
    """A text cell (a name, an id, a reason) that a spreadsheet shows as the text it is, never runs as a
    formula, and never splits a row at. Numbers are not passed here: ``-3`` in a numeric column stays a number."""
    text = exportable(text)
    if text.startswith(_FORMULA_START):
        text = "'" + text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def printable(text: str) -> str:
    """A block of terminal text with every character a terminal would act on (ESC, BEL, CR, TAB, C1, bidi
    overrides) written as a visible ``\\x1b``-style escape; line feeds are kept."""
    if text.isprintable():
        return text
    return "\n".join(line if line.isprintable() else "".join(c if c.isprintable() else _escape(c) for c in line)
                     for line in text.split("\n"))


def one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """A message as one printable line: breaks become spaces, other unprintables ``\\x1b``-style escapes,
    and at most ``limit`` characters."""
    text = printable(_LINE_BREAKS.sub(" ", text))
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
