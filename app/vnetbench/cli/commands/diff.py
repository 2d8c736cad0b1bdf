"""``vnetbench diff OLD NEW``: which pairs' verdict, path or estimate changed between two designs, and why."""

from __future__ import annotations

import argparse

from ...model.text import one_line
from ...predict import diff
from ...predict.calibration import CalibrationError
from ..common import load_design, print_json, say
from ..main import EXIT_NO, EXIT_OK, CliError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("diff",
                              description="Compare two designs pair by pair. Exit 1 when something changed.")
    p.add_argument("old", metavar="OLD", help="the design before (.vnet.yaml)")
    p.add_argument("new", metavar="NEW", help="the design after (.vnet.yaml)")
    p.add_argument("--json", action="store_true", help="print the changes as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    old, new = load_design(args.old), load_design(args.new)
    try:
        changes = diff(old, new)
    except CalibrationError as exc:
        raise CliError(f"calibration: {exc}") from None
    if args.json:
        print_json([c.to_dict() for c in changes])
    else:
        names = {o.id: one_line(o.name) for t in (old, new) for o in (*t.vms, *t.physical_hosts)}
        if not changes:
            say("no pair changed")
        for c in changes:
            say(f"{names.get(c.src, c.src)} -> {names.get(c.dst, c.dst)}: {c.before or 'absent'} -> "
                f"{c.after or 'absent'}")
            for what in c.what:
                say(f"    {what}")
    return EXIT_NO if changes else EXIT_OK
