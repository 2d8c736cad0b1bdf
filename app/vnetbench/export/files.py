"""Writing export files so that a failure never leaves half a file where the old one was.

Text goes through ``exportable`` first: a name may hold characters (ESC, NUL, a lone surrogate) that
XML, DOT, CSV or UTF-8 cannot hold, and one helper drops them for every format.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..model.fileformat import atomic_write
from ..model.text import exportable


def write_text(path: str | os.PathLike, text: str) -> Path:
    target = Path(path)
    _check_folder(target)
    atomic_write(target, exportable(text))
    return target


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Temporary file beside the target, fsync, rename over it; a new file gets the umask's mode."""
    target = Path(path)
    _check_folder(target)
    atomic_write(target, data)
    return target.resolve()


def _check_folder(target: Path) -> None:
    if target.is_dir():
        raise IsADirectoryError(f"output {target} is a folder; name a file, e.g. {target / 'design.svg'}")
    if not target.parent.is_dir():
        raise FileNotFoundError(f"output folder {target.parent} does not exist; create it or choose another -o")
