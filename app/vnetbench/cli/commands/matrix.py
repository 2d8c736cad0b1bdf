"""``vnetbench matrix FILE``: the verdict for every ordered pair of VMs and physical hosts.

The matrix is held on equivalence classes; what is printed is not. ``--csv`` and ``--jsonl`` stream the
pairs a block at a time in bounded memory at any size; ``--summary`` counts pairs per verdict on the
classes. The grid on the terminal and ``--json`` (one document) build every cell, so past a size they refuse
in one line naming the output to use.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...model.text import one_line
from ...predict import Verdict, family
from ...predict.calibration import CalibrationError
from ...predict.uplinkmarks import MARK
from ..common import load_design, print_json, say
from ..main import EXIT_OK, CliError

SHORT = {Verdict.IN_HOST: "H", Verdict.IN_HOST_ROUTED: "HR", Verdict.VIA_PHYSICAL: "P",
         Verdict.ROUTED_VIA_PHYSICAL: "PR", Verdict.BLOCKED: "X", Verdict.UNREACHABLE: "-"}
#: Most endpoints the grid on the terminal (rows of 4 characters per endpoint) and one JSON document show.
MAX_GRID = 200
MAX_JSON = 2_000


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("matrix",
                              description="Predict every ordered pair on equivalence classes.")
    p.add_argument("file", metavar="FILE", help="design file (.vnet.yaml)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help=f"print {{endpoints, verdicts: [[...]]}} as one JSON document (up to {MAX_JSON:,} endpoints)")
    out.add_argument("--jsonl", action="store_true",
                     help="stream JSON lines: {endpoints, names}, then {src, verdicts: [...]} per source")
    out.add_argument("--csv", action="store_true", help="stream src,dst,verdict rows as CSV")
    out.add_argument("--summary", action="store_true",
                     help="the number of ordered pairs per verdict, and of endpoint classes")
    p.add_argument("--family", type=int, choices=[4, 6],
                   help="IPv4 or IPv6 (default: IPv4 when the design uses it; on a dual-stack design the grid "
                        "marks with ! the pairs whose IPv6 verdict differs)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        design = load_design(args.file)
        engines = family.engines(design)
        if args.family is not None and args.family not in engines:
            raise CliError(f"--family {args.family}: the design has no IPv{args.family} address; it uses "
                           + " and ".join(f"IPv{f}" for f in engines))

        engine = engines[args.family or next(iter(engines))]
    except CalibrationError as exc:
        raise CliError(f"calibration: {exc}") from None
    n = len(engine.topology.vms) + len(engine.topology.physical_hosts)
    if args.json and n > MAX_JSON:
        raise CliError(f"{n:,} endpoints are too many for one JSON document (at most {MAX_JSON:,}); use --jsonl "
                       "(one line per source, streamed), --csv (streamed) or --summary")
    if not (args.json or args.jsonl or args.csv or args.summary) and n > MAX_GRID:
        raise CliError(f"{n:,} endpoints are too many for a grid on the terminal (at most {MAX_GRID}); use --csv "
                       "or --jsonl (streamed) or --summary")
    from ...export.matrix import verdict_table, write_pairs_csv, write_rows_jsonl
    from ...predict.relabel import RelabelError

    try:
        table = verdict_table(engine.topology, engine)
    except RelabelError as exc:
        raise CliError(f"--family 6: {exc} -> fix: ask pair by pair with vnetbench predict --family 6") from None
    matrix = table.matrix
    if args.csv or args.jsonl:
        sys.stdout.flush()
        (write_pairs_csv if args.csv else write_rows_jsonl)(table, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return EXIT_OK
    if args.summary:
        counts = matrix.counts()
        say(f"{n:,} endpoints in {int((matrix.sizes() > 0).sum()):,} classes, {n * (n - 1):,} ordered pairs")
        for verdict, number in counts.items():
            if number:
                say(f"  {str(verdict):<20} {number:>15,}")
        return EXIT_OK
    names = list(table.names)
    try:
        other = next((e.matrix() for e in engines.values() if e is not engine), None)
    except RelabelError as exc:   # the IPv4 grid stands; it just cannot be compared
        other = None
        print(f"vnetbench matrix: IPv6 not compared: {exc}", file=sys.stderr)
    grid = [[str(matrix.verdict(a, b)) if a != b else None for b in matrix.endpoints] for a in matrix.endpoints]
    differ = family.Differing(matrix, other) if other is not None else None
    if args.json:
        extra: dict[str, Any] = {"family": engine.family}
        if differ is not None:
            extra["families_differ"] = sorted([a, b] for a, b in differ.pairs())
        print_json({"endpoints": list(matrix.endpoints), "names": names, "verdicts": grid, **extra})
        return EXIT_OK
    names = [one_line(name) for name in names]
    width = max((len(name) for name in names), default=4)
    marks = table.uplinks
    mark = MARK if marks else ""
    say(" " * width + "  " + " ".join(f"{i + 1:>3}" + " " * len(mark) for i in range(len(names))))
    for i, (name, row) in enumerate(zip(names, grid)):
        cells = " ".join(f"{('!' if differ is not None and (matrix.endpoints[i], dst) in differ else '') + (SHORT[Verdict(v)] if v else '.'):>3}"
                         + (mark if marks.depends(matrix.endpoints[i], dst) else " " * len(mark))
                         for v, dst in zip(row, matrix.endpoints))
        say(f"{name:<{width}}  {cells}   {i + 1}")
    say("\n" + "  ".join(f"{s}={v}" for v, s in SHORT.items()) + "  .=itself")
    if marks or not marks.complete:
        say(marks.legend)
    if differ is not None:
        say(f"IPv{engine.family} shown; !=IPv4 and IPv6 differ ({len(differ)} pairs; --family to see the other)")
    return EXIT_OK
