"""``vnetbench demo [FILE]``: the headless tour of a design (what scripts/run-demo.sh runs without a display).

Validates and describes the design; when the prediction engine is installed it also prints the verdict
matrix, and, for a bundled example, compares the predictions with the example's expected verdicts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from ... import resources_dir
from ...model import Topology
from ...model.text import one_line
from ...model.validate import ERROR, validate
from ..common import design_path, load_design, say
from ..main import EXIT_NO, EXIT_OK, CliError
from .show import inventory, one_line_each, render
from .validate import format_problem

DEFAULT_EXAMPLE = "esx-four-cases.vnet.yaml"
#: Short codes for the matrix cells, in SEMANTICS.md order.
CODES = {"in-host": "H", "in-host-routed": "HR", "via-physical": "P", "routed-via-physical": "PR",
         "blocked": "B", "unreachable": "U"}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "demo",
        description=f"Validate and describe a design, then print its verdict matrix. Without FILE it uses the "
                    f"bundled example {DEFAULT_EXAMPLE}.")
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="design file, or a bundled example's name like esx-four-cases (default: that one)")
    p.set_defaults(func=run)


def _heading(text: str) -> None:
    say(f"\n== {text} " + "=" * max(0, 70 - len(text)))


def _engine(topology: Topology):
    """The prediction engine if ``vnetbench.predict`` provides it (see briefs/PREDICT_API.md), else None."""
    try:
        from ...predict import Engine
    except ImportError:
        return None
    return Engine(topology)


def _matrix(topology: Topology, engine) -> None:
    matrix = engine.matrix()
    names = {vm.id: vm.name for vm in topology.vms} | {h.id: h.name for h in topology.physical_hosts} | \
        {h.id: h.name for h in topology.hosts}   # a hosted hypervisor's host OS
    labels = [one_line(names.get(e, e)) for e in matrix.endpoints]
    width = max([len(label) for label in labels] + [4])
    say(" " * (width + 2) + " ".join(f"{label[:width]:>{width}}" for label in labels))
    from ...predict.uplinkmarks import MARK, uplink_marks

    marks = uplink_marks(matrix)
    for src, label in zip(matrix.endpoints, labels):
        cells = ["-" if src == dst else CODES.get(str(matrix.verdict(src, dst)), "?")
                 + (MARK if marks.depends(src, dst) else "") for dst in matrix.endpoints]
        say(f"{label:>{width}}  " + " ".join(f"{c:>{width}}" for c in cells))
    say("legend: " + ", ".join(f"{code} {verdict}" for verdict, code in CODES.items()))
    if marks or not marks.complete:
        say(marks.legend)


def _expected(path: Path, engine) -> int:
    """Compare with ``<name>.expect.yaml`` beside the design (an entry with ``family: 6`` in IPv6); return the
    number of disagreements."""
    expect = path.with_name(path.name.replace(".vnet.yaml", ".expect.yaml"))
    if not expect.is_file() or expect == path:
        return 0
    _heading(f"Predicted vs expected ({expect.name})")
    wrong = 0
    engines = {engine.family or 4: engine}
    for entry in yaml.safe_load(expect.read_text(encoding="utf-8")) or []:
        fam = entry.get("family", 4)
        if fam not in engines:
            engines[fam] = type(engine)(engine.topology, fam)
        proto, port = entry.get("proto"), entry.get("port")   # a flow of one protocol (and port), if named
        got = str(engines[fam].predict(entry["from"], entry["to"], proto, port).verdict)
        ok = got == entry["verdict"]
        wrong += not ok
        flow = f" ({proto}" + (f" port {port}" if port else "") + ")" if proto else ""
        say(f"  {'ok ' if ok else 'DIFF'} {entry['from']} -> {entry['to']}{flow}{' (IPv6)' if fam == 6 else ''}: "
            f"{got}"
            + ("" if ok else f" (expected {entry['verdict']}: {entry['why']})"))
    return wrong


def run(args: argparse.Namespace) -> int:
    path = Path(design_path(args.file)) if args.file else resources_dir() / "examples" / DEFAULT_EXAMPLE
    topology = load_design(str(path))
    say(f"vnetbench demo: {path}")
    if topology.description:
        say("\n" + topology.description.strip())
    _heading("Validation")
    problems = validate(topology)
    for problem in problems:
        say(format_problem(problem))
    errors = sum(p.severity == ERROR for p in problems)
    say(f"{errors} error(s), {len(problems) - errors} warning(s)" if problems else "no problems")
    _heading("Inventory")
    say("\n".join(render(one_line_each(inventory(topology)))))
    engine = _engine(topology)
    if engine is None:
        say("\n(prediction engine not installed: no verdict matrix)")
        return EXIT_NO if errors else EXIT_OK
    _heading("Verdict matrix (row -> column)")
    try:
        _matrix(topology, engine)
        wrong = _expected(path, engine)
    except (LookupError, ValueError) as exc:
        raise CliError(f"prediction failed: {exc}", EXIT_NO) from None
    return EXIT_NO if errors or wrong else EXIT_OK
