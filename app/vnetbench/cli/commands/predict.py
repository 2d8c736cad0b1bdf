"""``vnetbench predict FILE --from A --to B``: how traffic between two endpoints travels, like a traceroute."""

from __future__ import annotations

import argparse

from ...predict import family
from ...predict.calibration import CalibrationError
from ..common import load_design, print_json, say
from ..main import EXIT_OK, EXIT_USAGE, CliError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("predict",
                              description="Walk one flow in both directions and explain the verdict.")
    p.add_argument("file", metavar="FILE", help="design file (.vnet.yaml)")
    p.add_argument("--from", dest="src", required=True, metavar="A", help="source VM or physical host (name or id)")
    p.add_argument("--to", dest="dst", required=True, metavar="B", help="destination VM or physical host")
    p.add_argument("--proto", choices=["tcp", "udp", "icmp", "any"], help="protocol (default: any conversation)")
    p.add_argument("--port", type=int, help="destination port (with --proto tcp/udp)")
    p.add_argument("--family", type=int, choices=[4, 6],
                   help="IPv4 or IPv6 only (default: every family the design uses; a dual-stack pair whose "
                        "verdicts differ is flagged)")
    p.add_argument("--json", action="store_true", help="print the prediction as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.port is not None and not 0 < args.port < 65536:
        raise CliError(f"--port {args.port}: a port is 1-65535")
    try:
        engines = family.engines(load_design(args.file), args.family)
    except CalibrationError as exc:
        raise CliError(f"calibration: {exc}") from None
    first = next(iter(engines.values()))
    try:
        src, dst = first.resolve(args.src), first.resolve(args.dst)
    except LookupError as exc:
        raise CliError(str(exc).strip("'\""), EXIT_USAGE) from None
    answers = {f: e.predict(src, dst, args.proto, args.port) for f, e in engines.items()}
    if len(answers) == 1:
        (p,) = answers.values()
        if args.json:
            print_json(p.to_dict())
        else:
            say(p)  # the shared printer (vnetbench.predict.printer), as the path dock words it
        return EXIT_OK
    if args.json:
        print_json({"families": {f"ipv{f}": p.to_dict() for f, p in answers.items()},
                    "families_differ": family.differs(answers)})
        return EXIT_OK
    if family.differs(answers):
        say("!! IPv4 and IPv6 differ: " + ", ".join(f"IPv{f} {p.verdict}" for f, p in answers.items()))
    for f, p in answers.items():
        say(f"--- IPv{f} ---")
        say(p)
    return EXIT_OK
