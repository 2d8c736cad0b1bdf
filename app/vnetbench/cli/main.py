"""``vnetbench`` entry point: one sub-command per module in ``vnetbench.cli.commands``.

Exit codes: 0 success, 1 the answer is "no" (problems found, a test failed), 2 bad input or usage,
3 a backend or environment failure. Errors go to stderr as one plain sentence, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..model.text import one_line

#: Sub-command modules, each with ``register(subparsers)`` that sets ``func(args) -> int``.
COMMANDS = ["validate", "show", "predict", "matrix", "diff", "lab", "measure", "runs", "export", "demo", "gui",
            "deploy", "teardown", "import"]

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_BACKEND = 0, 1, 2, 3


class CliError(Exception):
    """A failure to report in one line on stderr, with an exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vnetbench",
        description="Design virtual networks, predict how traffic between VMs travels, deploy, measure, export.")
    parser.add_argument("--version", action="version", version=f"vnetbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f".commands.{name}", __package__)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.endswith(f"commands.{name}"):
                continue  # that command is not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"vnetbench {args.command}: {one_line(str(exc))}", file=sys.stderr)   # names may hold ESC, NUL...
        return exc.code
    except KeyboardInterrupt:
        print(f"vnetbench {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
