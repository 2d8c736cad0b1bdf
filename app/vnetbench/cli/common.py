"""Helpers shared by the sub-commands: loading a design (``-``: standard input), printing JSON."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..model import Topology, TopologyFileError, load
from .main import CliError


def load_design(path: str) -> Topology:
    """The design in file ``path``; ``-`` reads it from standard input."""
    try:
        if path == "-":
            from ..model.fileformat import load_stream

            return load_stream(sys.stdin.buffer)
        return load(path)
    except TopologyFileError as exc:
        raise CliError(str(exc)) from None


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")
