"""Helpers shared by the sub-commands: loading a design (a file, ``-`` for standard input, or a
bundled example's name), printing text and JSON.

Every line of text a command prints goes through ``say``, so names (which may hold ESC, BEL, CR, C1 controls
or a right-to-left override) reach the terminal as visible escapes, the same form the error path uses. JSON
is safe as it is: ``json`` writes every control and non-ASCII character as a ``\\u`` escape.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO

from .. import example_path
from ..model import Topology, TopologyFileError, load
from ..model.text import printable
from .main import CliError


def design_path(path: str) -> str:
    """``path`` itself, or, when no such file exists, the bundled example of that name (``esx-four-cases``)."""
    if os.path.exists(path):
        return path
    example = example_path(path)
    return str(example) if example else path


def load_design(path: str) -> Topology:
    """The design in ``path``: a file, ``-`` (standard input), or a bundled example's name; or a one-line
    CliError."""
    try:
        if path == "-":
            from ..model.fileformat import load_stream

            return load_stream(sys.stdin.buffer)
        return load(design_path(path))
    except TopologyFileError as exc:
        raise CliError(str(exc)) from None


def say(text: object = "", file: TextIO | None = None, end: str = "\n", flush: bool = False) -> None:
    """``print`` for text that may hold names: every unprintable character but the line feed escaped."""
    print(printable(str(text)), file=file or sys.stdout, end=end, flush=flush)


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")
