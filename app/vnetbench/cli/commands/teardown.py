"""``vnetbench teardown FILE --backend B``: remove what vnetbench deployed for a design (and nothing else).

``--all`` removes what vnetbench created for every design, so it lists what will go and asks first (on a
terminal), or takes ``--yes``; without a terminal and without ``--yes`` it refuses (exit 2) and removes nothing.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...backends.contract import Backend, BackendError, CancelToken, Plan
from ..backend_options import add_backend_options, guarded, open_backend, progress_printer, run_cancellable
from ..common import load_design, print_json, say
from ..main import EXIT_NO, EXIT_USAGE, CliError
from .deploy import exit_code, print_results, results_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "teardown",
        description="Remove the objects vnetbench created for the design in FILE (or, with --all, for every "
                    "design: listed first, then removed once you confirm, or with --yes). Objects vnetbench did "
                    "not create are never touched.")
    parser.add_argument("file", nargs="?", help="design file whose deployment to remove")
    parser.add_argument("--all", action="store_true", help="remove every object vnetbench created there")
    parser.add_argument("--yes", "-y", action="store_true", help="with --all: remove without asking")
    add_backend_options(parser)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=run)


def what_goes(backend: Backend, design_id: str | None) -> tuple[Plan | None, list[str] | None]:
    """The plan to apply, when the backend makes one, and what will be removed, one line each (None when the
    backend cannot say)."""
    if hasattr(backend, "teardown_plan"):
        listing = guarded(lambda: backend.teardown_plan(design_id))
        changes = listing.changes if isinstance(listing, Plan) else listing
        lines = [c.description for c in changes if "left_alone" not in c.data]
        return (listing if isinstance(listing, Plan) else None), lines
    if design_id is None:
        try:
            return None, [f"design {d.design_id}: {d.objects} objects" for d in backend.deployments()]
        except BackendError:
            return None, None
    return None, None


def confirmed(backend: Backend, lines: list[str] | None, args: argparse.Namespace) -> bool:
    """Whether ``--all`` may go ahead: ``--yes``, or a yes typed at the terminal; ``CliError`` (2) when no one
    can be asked."""
    if args.yes or lines == []:
        return True
    what = f"these {len(lines)} objects" if lines is not None else f"everything vnetbench created on {backend.title}"
    if args.json or not sys.stdin.isatty():
        raise CliError(f"teardown --all removes {what}: pass --yes to confirm (nothing was removed)", EXIT_USAGE)
    try:
        return input(f"remove {what}? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def run(args: argparse.Namespace) -> int:
    if bool(args.file) == bool(args.all):
        raise CliError("give a design FILE, or --all to remove everything vnetbench created")
    design_id = load_design(args.file).id if args.file else None
    backend = open_backend(args)
    token = CancelToken()
    try:
        plan, lines = what_goes(backend, design_id)
        if lines and not args.json:
            say(f"will remove {len(lines)} objects vnetbench created"
                +  (" (every design's)" if design_id is None else "") + ":")
            for line in lines:
                say(f"  {line}")
            sys.stdout.flush()
        if args.all and not confirmed(backend, lines, args):
            say("nothing removed")
            return EXIT_NO
        progress = progress_printer(not args.json)
        if plan is not None:  # remove exactly what was listed
            results = run_cancellable(lambda t: guarded(lambda: backend.apply(plan, progress, t)), token)
        else:
            results = run_cancellable(lambda t: guarded(lambda: backend.teardown(design_id, progress, t)), token)
    finally:
        backend.close()
    if args.json:
        print_json({"design": design_id, "results": results_json(results)})
    elif not results:
        say("nothing to remove")
    else:
        print_results(results)
    return exit_code(results, token)
