"""File dialogs that open in the last folder used, remembered across sessions in the designer's settings.

Open, Save As, Export and the measure dock's run export all go through here, so whichever was used last,
the next dialog starts where the person was working.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from .files import settings

KEY = "last_folder"


def last_folder() -> Path:
    """The folder of the last file opened or saved; the home folder the first time (or once it is gone)."""
    folder = Path(str(settings().value(KEY, "") or Path.home()))
    return folder if folder.is_dir() else Path.home()


def remember(path: str | Path) -> None:
    """Note the folder of a file just opened or saved."""
    store = settings()
    store.setValue(KEY, str(Path(path).resolve().parent))
    store.sync()


def open_path(parent: QWidget | None, title: str, filters: str) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, title, str(last_folder()), filters)
    if path:
        remember(path)
    return path or None


def save_path(parent: QWidget | None, title: str, name: str, filters: str) -> str | None:
    """Ask where to save ``name`` (a bare file name starts in the last folder; a full path stays as is)."""
    suggested = Path(name) if Path(name).is_absolute() else last_folder() / name
    path, _ = QFileDialog.getSaveFileName(parent, title, str(suggested), filters)
    if path:
        remember(path)
    return path or None
