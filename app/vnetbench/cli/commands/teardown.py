"""``vnetbench teardown FILE --backend B``: remove what vnetbench deployed for a design (and nothing else)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...backends.contract import CancelToken
from ..backend_options import add_backend_options, guarded, open_backend, progress_printer, run_cancellable
from ..common import load_design, print_json, say
from ..main import CliError
from .deploy import exit_code, print_results, results_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "teardown",
        description="Remove the objects vnetbench created for the design in FILE (or, with --all, for every "
                    "design). Objects vnetbench did not create are never touched.")
    parser.add_argument("file", nargs="?", help="design file whose deployment to remove")
    parser.add_argument("--all", action="store_true", help="remove every object vnetbench created there")
    add_backend_options(parser)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if bool(args.file) == bool(args.all):
        raise CliError("give a design FILE, or --all to remove everything vnetbench created")
    design_id = load_design(args.file).id if args.file else None
    backend = open_backend(args)
    token = CancelToken()
    try:
        progress = progress_printer(not args.json)
        if hasattr(backend, "teardown_plan"):  # a backend that can say first what it will remove
            plan = guarded(lambda: backend.teardown_plan(design_id))
            if plan.changes and not args.json:
                say(f"will remove {len(plan.changes)} objects vnetbench created"
                    + (" (every design's)" if design_id is None else "") + ":")
                for change in plan.changes:
                    say(f"  {change.description}")
                sys.stdout.flush()
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
