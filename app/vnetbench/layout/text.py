"""How wide text is, without Qt: the advance widths of DejaVu Sans, the face every diagram is drawn in.

The layout sizes boxes so their text fits, and it must do so in the CLI and in a worker thread where no Qt
application exists. The widths below are DejaVu Sans (Book and Bold) at 1000 px, as Qt measures them; a size is
a linear scale of them (Qt uses fractional advances, so this matches what it draws). A character not in the table
counts as wide as "W", so an unusual name makes a box too wide rather than cut.
"""

from __future__ import annotations

from functools import lru_cache

FONT_FAMILY = "DejaVu Sans"
#: Pixel sizes: a box's name, its details, a frame's name.
LABEL_PX = 12
DETAIL_PX = 10
#: Line heights (Qt's font height at those sizes, rounded up).
LABEL_LINE = 15.0
DETAIL_LINE = 12.0

_CHARS = (" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
          "\u00b7\u2013\u2014\u2192\u2190\u2026\u00d7\u00b5\u00b0\u00e9\u00e8\u00e1\u00fc\u00f6\u00e4\u00df\u00f1")
_BOOK = (318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636,
         636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295,
         295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838,
         500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521,
         392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838, 318, 500, 1000, 838, 838, 1000, 838, 636, 500, 615,
         615, 613, 634, 612, 613, 630, 634)
_BOLD = (348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696,
         696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372,
         372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838,
         500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595,
         478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838, 380, 500, 1000, 838, 838, 1000, 838, 736, 500, 678,
         678, 675, 712, 687, 675, 719, 712)
_WIDTHS = {False: dict(zip(_CHARS, _BOOK)), True: dict(zip(_CHARS, _BOLD))}
_WIDE = {False: 1000, True: 1103}


@lru_cache(maxsize=65536)
def text_width(text: str, px: float, bold: bool = False) -> float:
    """The advance width of ``text`` in pixels at ``px`` pixels."""
    table, wide = _WIDTHS[bold], _WIDE[bold]
    return sum(table.get(ch, wide) for ch in text) * px / 1000.0


def wrap(text: str, px: float, bold: bool, width: float) -> list[str]:
    """``text`` in lines no wider than ``width``: broken after a comma or a space, else anywhere (a long
    unbroken name). Nothing is dropped: joining the lines gives the text back (less the spaces broken at)."""
    if text_width(text, px, bold) <= width:
        return [text]
    lines: list[str] = []
    line = ""
    for word in _words(text):
        candidate = line + word
        if line and text_width(candidate.rstrip(), px, bold) > width:
            lines.append(line.rstrip())
            line = word.lstrip()
        else:
            line = candidate
        while text_width(line.rstrip(), px, bold) > width:  # one word wider than the line: cut it
            cut = len(line) - 1
            while cut > 1 and text_width(line[:cut], px, bold) > width:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _words(text: str) -> list[str]:
    """Pieces to break between: each ends after a space or a comma."""
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in " ,":
            out.append(text[start:i + 1])
            start = i + 1
    if start < len(text):
        out.append(text[start:])
    return out
