"""Names in Qt widgets as the text they are, never as markup.

Qt reads a tooltip, and a label left in ``AutoText``, as rich text when it looks like HTML: a VM named
``<img width=4000 ...>`` would draw and ``<b>`` would bold. Tooltips that hold names go through ``tip``
(escaped, with the same visible escapes for control characters and bidi overrides the terminal gets);
labels that show names are set to plain text with ``plain``.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from ..model.text import printable


def tip(text: str) -> str:
    """A tooltip showing ``text`` as plain text (line breaks kept), whatever it holds."""
    return "<qt>" + html.escape(printable(text)).replace("\n", "<br>") + "</qt>" if text else ""


def plain(label: QLabel) -> QLabel:
    """``label`` set to show its text as plain text, never as rich text; returned for chaining."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
