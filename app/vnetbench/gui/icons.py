"""Toolbar and menu icons: line drawings in resources/icons/actions, drawn in the theme's text colour.

The SVGs stroke with ``currentColor``; each is written once per colour to a cache folder with that colour
filled in, and loaded as an SVG icon, so it is sharp at every scale factor and readable on a light or dark
theme alike.
"""

from __future__ import annotations

import os
import tempfile
from functools import cache
from pathlib import Path

from PySide6.QtGui import QGuiApplication, QIcon, QPalette

from .. import resources_dir


def _folder() -> Path:
    folder = Path(tempfile.gettempdir()) / f"vnetbench-icons-{os.getuid() if hasattr(os, 'getuid') else 0}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@cache
def _icon(name: str, colour: str) -> QIcon:
    svg = (resources_dir() / "icons" / "actions" / f"{name}.svg").read_text().replace("currentColor", colour)
    path = _folder() / f"{name}-{colour.lstrip('#')}.svg"
    if not path.exists() or path.read_text() != svg:
        path.write_text(svg)
    return QIcon(str(path))


def action_icon(name: str) -> QIcon:
    """The icon ``name`` (new, open, save, undo, ...) in the current palette's text colour."""
    colour = QGuiApplication.palette().color(QPalette.ColorRole.WindowText).name()
    return _icon(name, colour)
