"""``vnetbench teardown FILE --backend B``: remove what vnetbench deployed for a design (and nothing else)."""

from __future__ import annotations

import argparse
from typing import Any

from ..backend_options import add_backend_options, guarded, open_backend, progress_printer, run_cancellable
from ..common import load_design, print_json
from ..main import EXIT_NO, EXIT_OK, CliError
from .deploy import change_data, print_results


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
    try:
        progress = progress_printer(not args.json)
        results = run_cancellable(lambda token: guarded(lambda: backend.teardown(design_id, progress, token)))
    finally:
        backend.close()
    if args.json:
        print_json({"design": design_id, "results": [{**change_data(r.change), "ok": r.ok, "error": r.error}
                                                     for r in results]})
    elif not results:
        print("nothing to remove")
    else:
        print_results(results)
    return EXIT_OK if all(r.ok for r in results) else EXIT_NO
