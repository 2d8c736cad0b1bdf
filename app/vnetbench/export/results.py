"""Measured runs as CSV and JSON, read from the run store, each beside what was predicted for it.

CSV is long format (one row per sample, the run's context repeated) because that is what spreadsheets
and plotting tools pivot best; a run without samples still gets one row with its summary. Its text cells go
through ``csv_cell`` (a VM may be named like a formula), its numbers do not. JSON is the whole run (``Run.to_dict``) plus the
predicted-versus-measured comparison.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from datetime import datetime, timezone

from ..measure.compare import compare
from ..measure.context import design_digest
from ..measure.result import Run
from ..measure.store import RunStore
from ..model import Topology
from ..model.text import csv_cell

CSV_COLUMNS = ["run", "started", "design", "src", "dst", "test", "tool", "status", "predicted_verdict",
               "estimate", "measured", "unit", "series", "t", "value"]


def load_runs(store: str | os.PathLike, topology: Topology | None = None) -> list[Run]:
    """Every run in the store (oldest first), with samples; only this design's when ``topology`` is given
    (same name or same digest, so a renamed design still finds its runs)."""
    runs = RunStore(store)
    out = []
    digest = design_digest(topology) if topology is not None else None
    for head in reversed(runs.list()):
        if topology is None or head.design_name == topology.name or head.design_digest == digest:
            out.append(runs.get(head.id))
    return out


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="seconds")


def results_csv(runs: Sequence[Run]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for run in runs:
        c = compare(run)
        head = [run.id if run.id is not None else "", iso(run.started), csv_cell(run.design_name),
                csv_cell(run.src_name), csv_cell(run.dst_name), csv_cell(run.spec.label()), csv_cell(run.tool),
                csv_cell(run.status), c.verdict or "",
                "" if c.estimate is None else f"{c.estimate:g}", "" if c.measured is None else f"{c.measured:g}",
                c.unit]
        if not run.samples:
            writer.writerow(head + ["", "", ""])
        for s in run.samples:
            writer.writerow(head + [csv_cell(s.series), f"{s.t:g}", f"{s.value:g}"])
    return buffer.getvalue()


def results_json(runs: Sequence[Run], design: str = "") -> str:
    data = {"design": design, "runs": [run.to_dict() | {"comparison": compare(run).to_dict(),
                                                         "title": run.title} for run in runs]}
    return json.dumps(data, indent=2, default=str) + "\n"
