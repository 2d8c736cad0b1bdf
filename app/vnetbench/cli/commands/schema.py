"""``vnetbench schema``: the JSON Schema of design files, as shipped with vnetbench, on stdout."""

from __future__ import annotations

import argparse
import sys

from ... import resources_dir
from ..main import EXIT_BACKEND, EXIT_OK, CliError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "schema", description="Print the JSON Schema (draft 2020-12) of .vnet.yaml design files. Its $id is "
                              "the URL new files name in their yaml-language-server modeline.")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = resources_dir() / "schema" / "topology.schema.json"
    try:
        sys.stdout.write(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CliError(f"the schema shipped with vnetbench is missing ({path}: {exc.strerror or exc}); "
                       "reinstall vnetbench", EXIT_BACKEND) from None
    return EXIT_OK
