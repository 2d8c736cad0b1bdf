"""The base of the main window's parts (``window_actions``, ``window_files``, ``window_edits``,
``window_questions``): to a type checker each part is the window it belongs to, so its calls to Qt are checked;
at run time it is a plain mixin, and ``MainWindow`` puts the parts and ``QMainWindow`` together."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow

if TYPE_CHECKING:
    WindowPart = QMainWindow
else:
    class WindowPart:
        """A part of ``MainWindow``."""

__all__ = ["WindowPart"]
