"""The small JSON files the backend keeps on this machine (certificate pins, the ledger): read with a
one-line error naming the file, written atomically and readable only by the user."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from vnetbench.backends.contract import BadSetting


def read_json(path: Path, what: str, fix: str) -> Any:
    """The file's JSON value, None when there is no file; ``BadSetting`` (naming ``what`` and ``fix``) when it
    cannot be read or parsed."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise BadSetting(f"the {what} {path} cannot be read ({type(exc).__name__})", fix) from None


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
