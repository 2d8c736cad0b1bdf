"""``vnetbench deploy FILE --backend B``: plan the changes that make the backend match the design, apply them."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...backends.contract import CONFIRM_CONNECTIVITY, CancelToken, ChangeResult, Plan
from ..backend_options import add_backend_options, guarded, open_backend, progress_printer, run_cancellable
from ..common import load_design, print_json, say
from ..main import EXIT_BACKEND, EXIT_NO, EXIT_OK, EXIT_USAGE, CliError

#: The exit status of an apply that Ctrl-C stopped (what a shell reports for SIGINT).
EXIT_INTERRUPTED = 130


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "deploy",
        description="Compare the design with what the backend holds, show the changes, and apply them. "
                    "Applying an unchanged design changes nothing. Ctrl-C stops sending changes: those already "
                    "sent end and are reported, the rest are reported as not sent.")
    parser.add_argument("file", help="design file (.vnet.yaml)")
    add_backend_options(parser)
    parser.add_argument("--plan-only", action="store_true", help="show the plan, change nothing")
    parser.add_argument("--confirm-connectivity", action="store_true",
                        help="apply the changes the plan marks [affects host connectivity] (VLANs, uplinks, MTU of "
                             "host switches) without asking; without it a terminal asks, and a script is refused")
    parser.add_argument("--json", action="store_true", help="print the plan and results as JSON")
    parser.set_defaults(func=run)


def change_data(change: Any) -> dict[str, Any]:
    return {"op": change.op.value, "kind": change.kind, "key": change.key, "description": change.description,
            "object_id": change.object_id, "connectivity": change.connectivity}


def connectivity_confirmed(plan: Plan, args: argparse.Namespace) -> bool:
    """Whether the plan's changes that may cut a host off may be sent: none there, ``--confirm-connectivity``, or
    a yes typed at the terminal. ``CliError`` (2) when no one can be asked; nothing has been sent then."""
    risky = [c for c in plan.changes if c.connectivity]
    if not risky or args.confirm_connectivity:
        return True
    what = f"{len(risky)} change{'s' if len(risky) > 1 else ''} affect{'' if len(risky) > 1 else 's'} host connectivity"
    if args.json or not sys.stdin.isatty():
        raise CliError(f"{what} ({risky[0].connectivity}{', ...' if len(risky) > 1 else ''}): pass "
                       "--confirm-connectivity to apply them (nothing was changed)", EXIT_USAGE)
    try:
        return input(f"{what} (marked above): apply them? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def print_plan(plan: Plan) -> None:
    if plan.empty:
        say(f"nothing to change: {plan.backend} already matches the design")
        return
    say(f"{len(plan.changes)} changes on {plan.backend}:")
    for change in plan.changes:
        say(f"  {change}")


def print_results(results: list[ChangeResult]) -> None:
    """What was applied, what failed, what a cancel kept from being sent and what a teardown left alone on
    purpose, each change with its reason (once: a conflict the plan already named is not repeated)."""
    failed = [r for r in results if r.failed]
    left = [r for r in results if r.left_alone]
    unsent = sum(r.cancelled for r in failed)
    tried = len(results) - len(left)
    parts = [f"{len(failed) - unsent} failed" if len(failed) > unsent else "",
             f"{unsent} not sent (cancelled)" if unsent else ""]
    say(f"applied {tried - len(failed)} of {tried} changes" + "".join(f"; {p}" for p in parts if p)
        + (":" if failed else ""))
    for r in left + failed:
        said = r.error and r.error in r.change.description  # a conflict the plan already named
        say(f"  {r.change}" if said else f"  {r.change}: {r.error}")


def results_json(results: list[ChangeResult]) -> list[dict[str, Any]]:
    return [{**change_data(r.change), "ok": r.ok, "error": r.error, "lost": r.lost, "left_alone": r.left_alone,
             "cancelled": r.cancelled}
            for r in results]


def exit_code(results: list[ChangeResult], token: CancelToken) -> int:
    """130 when Ctrl-C stopped it, 3 when the backend was lost on the way, 1 when a change failed, else 0."""
    if token.cancelled:
        return EXIT_INTERRUPTED
    if any(r.lost for r in results):
        return EXIT_BACKEND
    return EXIT_NO if any(r.failed for r in results) else EXIT_OK


def run(args: argparse.Namespace) -> int:
    design = load_design(args.file)
    backend = open_backend(args)
    try:
        plan = guarded(lambda: backend.plan(design))
        if args.plan_only or plan.empty:
            if args.json:
                print_json({"backend": plan.backend, "design": plan.design_id,
                            "changes": [change_data(c) for c in plan.changes]})
            else:
                print_plan(plan)
            return EXIT_OK
        if not args.json:
            print_plan(plan)
        if not connectivity_confirmed(plan, args):
            say("nothing changed")
            return EXIT_NO
        if any(c.connectivity for c in plan.changes):
            backend.settings[CONFIRM_CONNECTIVITY] = True  # the user confirmed them, on their own
        progress = progress_printer(not args.json)
        token = CancelToken()
        results = run_cancellable(lambda token: guarded(lambda: backend.apply(plan, progress, token)), token)
    finally:
        backend.close()
    if args.json:
        print_json({"backend": plan.backend, "design": plan.design_id, "results": results_json(results)})
    else:
        print_results(results)
    return exit_code(results, token)
