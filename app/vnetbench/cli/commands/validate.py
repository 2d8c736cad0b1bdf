"""``vnetbench validate FILE``: list a design's problems; exit 1 when any is an error."""

from __future__ import annotations

import argparse

from ...model.validate import ERROR, Problem
from ...predict.lint import check
from ..common import load_design, print_json, say
from ..main import EXIT_NO, EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "validate",
        description="Check a design: VLANs per switch kind, names, references, cabling, vNIC types per guest OS, "
                    "addresses and gateways, duplicates per segment, firewall security policy; and lint: gateways "
                    "nobody owns, VLANs an uplink drops, overlay transport MTU, address collisions and odd subnets "
                    "in a layer-2 domain, unreachable next hops, asymmetric routes.")
    p.add_argument("file", metavar="FILE", help="design file (.vnet.yaml)")
    p.add_argument("--json", action="store_true", help="print the problems as JSON")
    p.set_defaults(func=run)


def format_problem(problem: Problem) -> str:
    return f"{problem.severity:<7}  {problem.path or '-'}  {problem.message}  -> fix: {problem.hint}"


def run(args: argparse.Namespace) -> int:
    topology = load_design(args.file)
    problems = check(topology)
    errors = sum(p.severity == ERROR for p in problems)
    warnings = len(problems) - errors
    if args.json:
        print_json({"file": args.file, "valid": errors == 0, "errors": errors, "warnings": warnings,
                    "problems": [p.to_dict() for p in problems]})
    else:
        for problem in problems:
            say(format_problem(problem))
        if problems:
            say(f"{args.file}: {errors} error(s), {warnings} warning(s)")
        else:
            say(f"{args.file}: no problems")
    return EXIT_NO if errors else EXIT_OK
