"""``vnetbench runs``: list stored measurements; show, export, import them; turn them into a calibration profile.

    vnetbench runs [list] [--json]                newest first
    vnetbench runs show ID [--json]               one run with its samples and the comparison
    vnetbench runs export ID --csv FILE | --json FILE
    vnetbench runs import FILE                    a CSV or JSON export, stored as a new run
    vnetbench runs calibrate ID [ID ...] --name NAME   a calibration profile from measured runs
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ...measure import RunStore, StoreError, compare, save_calibration
from ...measure.compare import CalibrationWriteError
from ...measure.result import Run, summary_lines
from ...model.text import one_line
from ..common import print_json, say
from ..main import EXIT_OK, EXIT_USAGE, CliError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("runs",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--limit", type=int, default=0, help="list at most this many runs")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    listing = sub.add_parser("list", help="the stored runs, newest first (what `vnetbench runs` alone prints)")
    listing.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    listing.add_argument("--limit", type=int, default=argparse.SUPPRESS)
    show = sub.add_parser("show", help="one run, its figures and the comparison with its prediction")
    show.add_argument("id", type=int)
    show.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    export = sub.add_parser("export", help="write a run to a CSV or JSON file")
    export.add_argument("id", type=int)
    fmt = export.add_mutually_exclusive_group(required=True)
    fmt.add_argument("--csv", metavar="FILE")
    fmt.add_argument("--json", metavar="FILE", dest="json_file")
    imp = sub.add_parser("import", help="store a run exported before (CSV or JSON)")
    imp.add_argument("file")
    imp.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    cal = sub.add_parser("calibrate", help="write a calibration profile from measured throughput runs")
    cal.add_argument("ids", type=int, nargs="+")
    cal.add_argument("--name", required=True, help="profile name (a file <data dir>/calibration/NAME.yaml)")
    cal.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _row(r: Run) -> dict[str, Any]:
    value, unit = r.headline()
    return {"id": r.id, "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r.started)),
            "from": r.src_name, "to": r.dst_name, "test": r.spec.label(), "status": r.status,
            "result": value, "unit": unit, "verdict": str(r.prediction.verdict) if r.prediction else None,
            "design": r.design_name, "label": r.label}


def run(args: argparse.Namespace) -> int:
    store = RunStore()
    try:
        if args.action == "show":
            return _show(store, args)
        if args.action == "export":
            out = store.export(args.id, args.csv or args.json_file, "csv" if args.csv else "json")
            say(f"run #{args.id} written to {out}")
            return EXIT_OK
        if args.action == "import":
            new_id = store.import_file(args.file)
            if args.json:
                print_json({"file": args.file, "id": new_id, "store": str(store.path)})
            else:
                say(f"imported {args.file} as run #{new_id}")
            return EXIT_OK
        if args.action == "calibrate":
            path = save_calibration([store.get(i) for i in args.ids], args.name)
            if args.json:
                print_json({"profile": str(path), "name": args.name, "runs": args.ids})
            else:
                say(f"calibration profile written to {path}; set `calibration: {path}` in a design to use it")
            return EXIT_OK
        listing = store.scan(args.limit or None)
    except (StoreError, CalibrationWriteError) as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    rows = [_row(r) for r in listing.runs]
    shown = [{k: one_line(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]  # one line each
    damaged = [{"id": run_id, "damaged": why} for run_id, why in listing.damaged]
    if listing.damage:  # the file itself: one line, then whatever could still be read
        say(f"vnetbench runs: the run store {store.path} is damaged ({listing.damage}); new runs go to a "
            "fallback file: move it aside and vnetbench starts a new one", file=sys.stderr)
    if args.json:
        print_json(rows + damaged)  # a damaged row: {"id": N, "damaged": why}
        return EXIT_OK
    if not rows and not damaged:
        say(f"no runs stored yet in {store.path} (`vnetbench measure` adds them)")
        return EXIT_OK
    for r in shown:
        result = f"{r['result']:.6g} {r['unit']}" if r["result"] is not None else r["status"]
        say(f"#{r['id']:<5} {r['started']}  {r['from']} -> {r['to']}  {r['test']}  {result}"
            f"  [predicted {r['verdict'] or '-'}]{'  ' + r['label'] if r['label'] else ''}")
    for d in damaged:
        say(f"#{d['id']:<5} DAMAGED: this run's row cannot be read ({d['damaged']})")
    if damaged:
        ids = ", ".join(f"#{d['id']}" for d in damaged)
        say(f"vnetbench runs: {len(damaged)} damaged run(s) ({ids}) listed as such; the others are intact "
            "(`vnetbench runs export ID` saves each)", file=sys.stderr)
    return EXIT_OK


def _show(store: RunStore, args: argparse.Namespace) -> int:
    r = store.get(args.id)
    comparison = compare(r)
    if args.json:
        print_json({"run": r.to_dict(), "comparison": comparison.to_dict()})
        return EXIT_OK
    say(one_line(r.title))
    say(f"  design {one_line(r.design_name)} ({r.design_digest}), backend {r.backend or '-'}, "
        f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(r.started))}, {r.ended - r.started:.1f} s")
    for cmd in r.commands:
        say(f"  $ {cmd}")
    say("  environment: " + ", ".join(f"{k}={v}" for k, v in r.env.items() if v))
    if r.status == "ok":
        for line in summary_lines(r.spec, r.summary):
            say(f"  {line}")
    else:
        say(f"  {r.status}: {r.error}")
    for line in comparison.lines():
        say(f"  {line}")
    say(f"  {len(r.samples)} samples")
    return EXIT_OK
