"""``vnetbench matrix FILE``: the verdict for every ordered pair of VMs and physical hosts."""

from __future__ import annotations

import argparse
import csv
import sys

from ...model.text import csv_cell, one_line
from ...predict import Engine, Verdict
from ...predict.calibration import CalibrationError
from ..common import load_design, print_json, say
from ..main import EXIT_OK, CliError

SHORT = {Verdict.IN_HOST: "H", Verdict.IN_HOST_ROUTED: "HR", Verdict.VIA_PHYSICAL: "P",
         Verdict.ROUTED_VIA_PHYSICAL: "PR", Verdict.BLOCKED: "X", Verdict.UNREACHABLE: "-"}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("matrix",
                              description="Predict every ordered pair on equivalence classes.")
    p.add_argument("file", metavar="FILE", help="design file (.vnet.yaml)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print {endpoints, verdicts: [[...]]} as JSON")
    out.add_argument("--csv", action="store_true", help="print src,dst,verdict rows as CSV")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        engine = Engine(load_design(args.file))
    except CalibrationError as exc:
        raise CliError(f"calibration: {exc}") from None
    matrix = engine.matrix()
    index = engine.network.index
    names = [index.get(e).name for e in matrix.endpoints]
    if args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["src", "dst", "verdict"])
        for src, dst, verdict in matrix.rows():
            if src != dst:
                writer.writerow([csv_cell(index.get(src).name), csv_cell(index.get(dst).name), str(verdict)])
        return EXIT_OK
    grid = [[str(matrix.verdict(a, b)) if a != b else None for b in matrix.endpoints] for a in matrix.endpoints]
    if args.json:
        print_json({"endpoints": list(matrix.endpoints), "names": names, "verdicts": grid})
        return EXIT_OK
    names = [one_line(n) for n in names]
    width = max((len(n) for n in names), default=4)
    say(" " * width + "  " + " ".join(f"{i + 1:>3}" for i in range(len(names))))
    for i, (name, row) in enumerate(zip(names, grid)):
        cells = " ".join(f"{SHORT[Verdict(v)] if v else '.':>3}" for v in row)
        say(f"{name:<{width}}  {cells}   {i + 1}")
    say("\n" + "  ".join(f"{s}={v}" for v, s in SHORT.items()) + "  .=itself")
    return EXIT_OK
