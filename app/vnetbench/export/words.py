"""Numbers, counts and text blocks as a person reads them in a document: "20,900 Mbit/s", "1 host",
"2 switches", and a design's description with its lists as lists."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field


def number(value: float | int | None, unit: str = "") -> str:
    """Thousands separators, no exponent, three significant digits below 100: 20,900 / 91.5 / 0.125."""
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value == 0 or abs(value) >= 100 or (isinstance(value, int) and not isinstance(value, bool)):
        text = f"{value:,.0f}"
    else:
        text = f"{value:,.{max(0, 2 - math.floor(math.log10(abs(value))))}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
    return f"{text} {unit}" if unit else text


def plural(noun: str) -> str:
    if re.search(r"(s|x|z|ch|sh)$", noun):
        return noun + "es"
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    return noun + "s"


def count(n: int, noun: str, many: str | None = None) -> str:
    """``count(1, "host")`` is "1 host", ``count(2, "switch")`` "2 switches"; ``many`` for irregular nouns."""
    return f"{number(n)} {noun if n == 1 else many or plural(noun)}"


@dataclass
class Block:
    """A paragraph (``items`` empty) or a list (``ordered`` for "1." items) of a description."""

    text: str = ""
    items: list[str] = field(default_factory=list)
    ordered: bool = False


_ITEM = re.compile(r"^\s*(?:(?P<bullet>[-*\u2022])|(?P<num>\d+)[.)])\s+(?P<text>.*)$")


def blocks(text: str) -> list[Block]:
    """Split a description into paragraphs (at blank lines) and lists: lines starting "- ", "* " or "1. "
    are items; an indented line continues the item above, an unindented one starts a paragraph again."""
    out: list[Block] = []
    current: Block | None = None
    for line in text.splitlines():
        if not line.strip():
            current = None
            continue
        item = _ITEM.match(line)
        if item:
            ordered = item["num"] is not None
            if current is None or not current.items or current.ordered != ordered:
                current = Block(ordered=ordered)
                out.append(current)
            current.items.append(item["text"].strip())
        elif current is not None and current.items and line[:1].isspace():
            current.items[-1] += " " + line.strip()
        elif current is not None and not current.items:
            current.text += " " + line.strip()
        else:
            current = Block(line.strip())
            out.append(current)
    return out
