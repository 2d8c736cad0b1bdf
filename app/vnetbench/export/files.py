"""Writing export files so that a failure never leaves half a file where the old one was."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..model.fileformat import atomic_write


#: New export files are for sharing (wiki, ticket), so readable by others, unlike a temp file's 0600.
NEW_FILE_MODE = 0o644


def write_text(path: str | os.PathLike, text: str) -> Path:
    target = Path(path)
    _check_folder(target)
    existed = target.exists()
    atomic_write(target, text)
    if not existed:
        os.chmod(target, NEW_FILE_MODE)
    return target


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Temporary file beside the target, fsync, rename over it."""
    target = Path(path)
    _check_folder(target)
    target = target.resolve()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else NEW_FILE_MODE)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _check_folder(target: Path) -> None:
    if target.is_dir():
        raise IsADirectoryError(f"output {target} is a folder; name a file, e.g. {target / 'design.svg'}")
    if not target.parent.is_dir():
        raise FileNotFoundError(f"output folder {target.parent} does not exist; create it or choose another -o")
