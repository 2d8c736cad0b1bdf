"""``vnetbench export FILE --format F -o OUT``: diagrams, graph formats, matrices, results and reports."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from ...export import FORMATS, ExportError, Options, export
from ..common import load_design, print_json, say
from ..main import EXIT_BACKEND, EXIT_OK, CliError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "export",
        description="Export a design for documentation. Pictures are drawn headless (no window needed).")
    p.add_argument("file", metavar="FILE", help="design file (.vnet.yaml; - reads standard input)")
    p.add_argument("--format", "-f", required=True, choices=list(FORMATS), metavar="FORMAT",
                   help="one of: " + ", ".join(FORMATS))
    p.add_argument("-o", "--output", metavar="OUT",
                   help="file to write (default: the design's name with the format's suffix, here; "
                        "- writes to standard output)")
    p.add_argument("--path", nargs=2, metavar=("A", "B"),
                   help="highlight the predicted path between two VMs or physical hosts (id or name)")
    p.add_argument("--select", nargs="+", metavar="ID", help="draw only these objects (and what they contain)")
    p.add_argument("--scale", type=float, default=1.0, help="PNG: pixels per diagram unit (default 1)")
    p.add_argument("--dpi", type=float, help="PNG: resolution instead of --scale (96 dpi = scale 1)")
    p.add_argument("--pair", nargs=2, action="append", default=[], metavar=("A", "B"),
                   help="report: show the path between A and B (repeat for more pairs)")
    p.add_argument("--store", metavar="DB",
                   help="results and report: the run store to read this design's runs from "
                        "(default: the store `vnetbench measure` writes to, when it exists)")
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.set_defaults(func=run)


def _runs(store: str | None, topology, fmt: str) -> list:
    if not fmt.startswith(("results-", "report-")):
        return []
    if not store:
        from ...measure.store import data_dir

        default = data_dir() / "runs.sqlite"
        if not default.is_file():
            return []
        store = str(default)
    if not Path(store).is_file():
        raise CliError(f"--store: no measurement store at {store} (run `vnetbench measure` first, or fix the path)")
    from ...export.results import load_runs

    from ...measure.store import StoreError

    try:
        return load_runs(store, topology)
    except (OSError, ValueError, StoreError) as exc:
        raise CliError(f"--store: cannot read {store}: {exc}", EXIT_BACKEND) from None


def _verifications(store: str | None, topology, fmt: str) -> list:
    """The report's stored ``vnetbench verify`` results for this design (as it is now: its digest)."""
    from ...measure.context import design_digest
    from ...measure.store import RunStore, StoreError, data_dir

    path = Path(store) if store else data_dir() / "runs.sqlite"
    if not fmt.startswith("report-") or not path.is_file():
        return []
    try:
        return RunStore(path).verifications(design_digest(topology), limit=3)
    except StoreError as exc:
        raise CliError(f"--store: cannot read {path}: {exc}", EXIT_BACKEND) from None


def _to_stdout(topology, fmt: str, options: Options) -> int:
    """``-o -``: the export is made in a private folder (some writers need a file), then copied to stdout."""
    with tempfile.TemporaryDirectory(prefix="vnetbench-export-") as folder:
        try:
            done = export(topology, fmt, Path(folder) / ("design" + FORMATS[fmt][1]), options)
        except ExportError as exc:
            raise CliError(str(exc)) from None
        sys.stdout.flush()
        sys.stdout.buffer.write(done.path.read_bytes())
        sys.stdout.buffer.flush()
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    topology = load_design(args.file)
    stem = "design" if args.file == "-" else Path(args.file).name.split(".")[0]
    out = args.output or (stem + FORMATS[args.format][1])
    options = Options(select=args.select, path=tuple(args.path) if args.path else None, scale=args.scale,
                      dpi=args.dpi, pairs=[tuple(p) for p in args.pair], runs=_runs(args.store, topology, args.format),
                      verifications=_verifications(args.store, topology, args.format))
    if out == "-":
        return _to_stdout(topology, args.format, options)
    try:
        done = export(topology, args.format, out, options)
    except ExportError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"-o {out}: {exc}") from None
    regular = done.path.is_file()   # else a device, FIFO or /dev/stdout: the report must not go into it
    if args.json:
        print_json({"path": str(done.path), "format": done.format, "pages": done.pages, "scale": done.scale,
                    "bytes": done.path.stat().st_size if regular else None})
    else:
        extra = f", scale {done.scale:.3g}" if done.format == "png" else ""
        extra += f", {done.pages} pages" if done.pages > 1 else ""
        say(f"wrote {done.path} ({done.format}{extra})", file=sys.stdout if regular else sys.stderr)
    return EXIT_OK
