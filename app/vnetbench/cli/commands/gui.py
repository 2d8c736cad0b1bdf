"""``vnetbench gui [FILE]``: open the designer window (Qt is imported only here, and only when asked)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys

from ...extras import install_hint
from ..common import design_path, load_design
from ..main import EXIT_BACKEND, EXIT_USAGE, CliError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("gui",
                                   description="Open the drag-and-drop designer, optionally with a design file.")
    parser.add_argument("file", nargs="?", help="a design to open (.vnet.yaml)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for module in ("PySide6", "pyqtgraph"):
        if importlib.util.find_spec(module) is None:
            raise CliError(install_hint(module, "gui") or module, EXIT_USAGE)
    headless = sys.platform.startswith("linux") and not any(
        os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))
    if headless:
        raise CliError("no display to open a window on (DISPLAY is not set): run it in a desktop session, "
                       "or use the headless commands (vnetbench predict, matrix, validate)", EXIT_BACKEND)
    path = design_path(args.file) if args.file else None
    if path:
        load_design(path)  # a bad file is reported here in one line, before any window opens
    from ...gui.app import main

    return main([path] if path else [])
