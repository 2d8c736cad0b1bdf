"""Helpers shared by the sub-commands: loading a design, printing JSON."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from .. import example_path
from ..model import Topology, TopologyFileError, load
from .main import CliError


def design_path(path: str) -> str:
    """``path`` itself, or, when no such file exists, the bundled example of that name (``esx-four-cases``)."""
    if os.path.exists(path):
        return path
    example = example_path(path)
    return str(example) if example else path


def load_design(path: str) -> Topology:
    """The design in ``path`` (a file, or a bundled example's name), or a one-line CliError."""
    try:
        return load(design_path(path))
    except TopologyFileError as exc:
        raise CliError(str(exc)) from None


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")
