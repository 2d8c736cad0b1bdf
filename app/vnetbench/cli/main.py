"""``vnetbench`` entry point: one sub-command per module in ``vnetbench.cli.commands``.

Start-up is lazy: the parser lists every command from ``commands.SUMMARIES`` but imports only the module of
the command being run, so ``vnetbench --version`` loads no numpy, networkx, Qt or measurement code, and each
command pays only for what it uses.

``--quiet``, ``--verbose`` and ``--debug`` (before the command) set how much is logged to stderr; the log
file in the state folder keeps progress messages (everything with ``--debug``): ``vnetbench.logs``.

Exit codes: 0 success, 1 the answer is "no" (problems found, a test failed), 2 bad input or usage,
3 a backend or environment failure. Errors go to stderr as one plain sentence, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..extras import install_hint
from ..model.text import one_line
from .commands import SUMMARIES

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_BACKEND = 0, 1, 2, 3


class CliError(Exception):
    """A failure to report in one line on stderr, with an exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def build_parser(command: str | None = None, full: bool = False) -> argparse.ArgumentParser:
    """The parser with ``command``'s module registered in full and every other command as a listed name;
    ``full`` registers every command (for the shell completions and the man page, which describe them all)."""
    parser = argparse.ArgumentParser(
        prog="vnetbench",
        description="Design virtual networks, predict how traffic between VMs travels, deploy, measure, export.")
    parser.add_argument("--version", action="version", version=f"vnetbench {__version__}")
    noise = parser.add_mutually_exclusive_group()
    noise.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    noise.add_argument("-v", "--verbose", action="store_true", help="print progress messages too")
    noise.add_argument("--debug", action="store_true",
                       help="print everything, and keep everything in the log file (see --help's epilog)")
    parser.epilog = ("The log file is vnetbench.log in the state folder (~/.local/state/vnetbench on Linux; "
                     "$VNETBENCH_DATA_DIR when set).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in SUMMARIES.items():
        if full or name == command:
            importlib.import_module(f".commands.{name}", __package__).register(sub)
        else:
            sub.add_parser(name, help=summary, add_help=False)
    # A command's own register() gives no summary, so argparse would leave it out of the listing (and out of
    # the completions and the man page): list every command with its summary, in SUMMARIES order.
    sub._choices_actions[:] = [sub._ChoicesPseudoAction(name, (), summary) for name, summary in SUMMARIES.items()]
    return parser


def _command(argv: list[str]) -> str | None:
    """The sub-command named on the command line: the first word that is not an option."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def _logging(args: argparse.Namespace) -> None:
    import logging

    from .. import logs

    console = (logging.ERROR if args.quiet else logging.INFO if args.verbose else
               logging.DEBUG if args.debug else logging.WARNING)
    logs.setup(console, logging.DEBUG if args.debug else logging.INFO)
    logging.getLogger("vnetbench.cli").debug("vnetbench %s %s", __version__, args.command)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    _logging(args)
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"vnetbench {args.command}: {one_line(str(exc))}", file=sys.stderr)   # names may hold ESC, NUL...
        return exc.code
    except ModuleNotFoundError as exc:
        hint = install_hint(exc.name, args.command)
        if hint is None:
            raise
        print(f"vnetbench {args.command}: {hint}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"vnetbench {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


def gui_main() -> int:
    """The ``vnetbench-gui`` launcher: ``vnetbench gui [FILE]``, so a missing Qt or display is one line too."""
    return main(["gui", *sys.argv[1:]])
