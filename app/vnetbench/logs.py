"""Logging for the command line and the designer: messages to stderr, a log file in the state folder.

The console shows warnings (``--quiet``: errors only, ``--verbose``: progress, ``--debug``: everything); the
file ``vnetbench.dirs.log_file()`` keeps progress and up (everything with ``--debug``), so a report of a
failure can attach it. The file is opened only when the first message arrives, so a quiet command costs
nothing; past 1 MiB it is moved to ``vnetbench.log.1`` at the next start (one old log is kept).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from . import dirs

MAX_BYTES = 2**20
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


def setup(console_level: int = logging.WARNING, file_level: int = logging.INFO) -> Path | None:
    """Send vnetbench's messages to stderr and to the log file; the file's path, or ``None`` if it cannot be
    written (a read-only home): logging then goes to stderr only."""
    root = logging.getLogger("vnetbench")
    root.setLevel(min(console_level, file_level))
    for handler in list(root.handlers):      # a second call (tests, the GUI after the CLI) replaces the first
        if getattr(handler, "_vnetbench", False):
            root.removeHandler(handler)
            handler.close()
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(console_level)
    console.setFormatter(logging.Formatter("vnetbench: %(levelname)s: %(message)s"))
    _add(root, console)
    path = dirs.log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.stat().st_size > MAX_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
        file = logging.FileHandler(path, encoding="utf-8", delay=True)
    except OSError:
        return None
    file.setLevel(file_level)
    file.setFormatter(logging.Formatter(FORMAT))
    _add(root, file)
    return path


def _add(root: logging.Logger, handler: logging.Handler) -> None:
    handler._vnetbench = True  # type: ignore[attr-defined]
    root.addHandler(handler)


def install_crash_handlers() -> None:
    """For the designer, started from a menu with no terminal to print on: an exception nothing caught goes to
    the log file with its traceback, and a fatal signal (a crash inside Qt) makes faulthandler write every
    thread's stack into ``dirs.crash_file()``. Help > About names both files."""
    import faulthandler

    log = logging.getLogger("vnetbench.crash")
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace) -> None:
        log.critical("unhandled %s: %s", kind.__name__, error, exc_info=(kind, error, trace))
        previous(kind, error, trace)

    sys.excepthook = hook
    path = dirs.crash_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        global _crash_stream
        _crash_stream = open(path, "a", encoding="utf-8")   # kept open: faulthandler writes to its descriptor
        faulthandler.enable(_crash_stream, all_threads=True)
    except OSError:
        faulthandler.enable(all_threads=True)


_crash_stream = None
