"""The all-pairs verdict matrix as plain tables: CSV (a grid for people) and JSON (for scripts).

Rows are sources, columns destinations, in the engine's endpoint order; the diagonal is left empty.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from ..model import Index, Topology


@dataclass(frozen=True)
class VerdictTable:
    ids: tuple[str, ...]
    names: tuple[str, ...]
    grid: tuple[tuple[str, ...], ...]  # grid[src][dst]; "" on the diagonal

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.grid:
            for verdict in row:
                if verdict:
                    out[verdict] = out.get(verdict, 0) + 1
        return out


def verdict_table(topology: Topology, engine: Any = None) -> VerdictTable:
    """Every pair's verdict from ``predict.Engine(topology).matrix()`` (or the GUI's own engine)."""
    if engine is None:
        from ..predict import Engine

        engine = Engine(topology)
    matrix = engine.matrix()
    ids = tuple(matrix.endpoints)
    position = {oid: i for i, oid in enumerate(ids)}
    grid = [[""] * len(ids) for _ in ids]
    for src, dst, verdict in matrix.rows():
        if src != dst:
            grid[position[src]][position[dst]] = str(verdict)
    index = Index(topology)
    names = tuple(getattr(index.get(oid), "name", oid) for oid in ids)
    return VerdictTable(ids, names, tuple(tuple(row) for row in grid))


def matrix_csv(table: VerdictTable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["source \\ destination", *table.names])
    for name, row in zip(table.names, table.grid):
        writer.writerow([name, *row])
    return buffer.getvalue()


def matrix_json(table: VerdictTable, design: str) -> str:
    data = {
        "design": design,
        "endpoints": [{"id": i, "name": n} for i, n in zip(table.ids, table.names)],
        "verdicts": [[v or None for v in row] for row in table.grid],
        "pairs": [{"src": table.ids[r], "dst": table.ids[c], "verdict": v}
                  for r, row in enumerate(table.grid) for c, v in enumerate(row) if v],
        "counts": table.counts(),
    }
    return json.dumps(data, indent=2) + "\n"
