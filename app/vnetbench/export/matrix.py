"""The all-pairs verdict matrix as plain tables: CSV (a grid for people) and JSON (for scripts).

Rows are sources, columns destinations, in the engine's endpoint order; the diagonal is left empty. The grid
is never expanded into Python strings cell by cell for the CSV: a block of rows is turned into bytes by numpy
(each verdict's bytes scattered at its cells' offsets), so 2,000 endpoints (4 million cells) take a fraction
of a second and the file is byte for byte what ``csv.writer`` writes.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model import Index, Topology
from ..model.text import csv_cell

#: Rows turned into bytes at a time (bounds the temporary arrays to a few MB per 1,000 columns).
_CSV_ROWS = 256


@dataclass(frozen=True)
class VerdictTable:
    """Every ordered pair's verdict: ``matrix`` is the engine's ``Matrix`` (classes and class table)."""

    ids: tuple[str, ...]
    names: tuple[str, ...]
    matrix: Any

    @property
    def verdicts(self) -> tuple[str, ...]:
        """The verdict words in code order (``codes`` indexes them; ``len(verdicts)`` marks the diagonal)."""
        from ..predict.result import VERDICTS

        return tuple(str(v) for v in VERDICTS)

    def codes(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Verdict codes of the source rows ``start:stop`` against every destination; the diagonal holds
        ``len(verdicts)`` (no verdict)."""
        classes, table = self.matrix.classes, self.matrix.table
        stop = len(self.ids) if stop is None else stop
        block = table[classes[start:stop]][:, classes]
        rows = np.arange(stop - start)
        block[rows, rows + start] = len(self.verdicts)
        return block

    @property
    def grid(self) -> tuple[tuple[str, ...], ...]:
        """grid[src][dst] as words, "" on the diagonal: for the small tables a report draws cell by cell."""
        words = self.verdicts + ("",)
        return tuple(tuple(words[c] for c in row) for row in self.codes().tolist())

    def counts(self) -> dict[str, int]:
        """How many ordered pairs get each verdict (verdicts with none left out)."""
        return {str(v): n for v, n in self.matrix.counts().items() if n}

    def first_pairs(self) -> list[tuple[str, str]]:
        """For each verdict present, its first pair in row order, in the order they first appear."""
        first: dict[str, int] = {}
        n = len(self.ids)
        for start in range(0, n, _CSV_ROWS):
            block = self.codes(start, min(n, start + _CSV_ROWS))
            for code, word in enumerate(self.verdicts):
                hits = np.flatnonzero(block == code)
                if word not in first and len(hits):
                    first[word] = start * n + int(hits[0])
            if len(first) == len(self.verdicts):
                break
        return [(self.ids[at // n], self.ids[at % n]) for at in sorted(first.values())]


def verdict_table(topology: Topology, engine: Any = None) -> VerdictTable:
    """Every pair's verdict from ``predict.Engine(topology).matrix()`` (or the GUI's own engine)."""
    if engine is None:
        from ..predict import Engine

        engine = Engine(topology)
    matrix = engine.matrix()
    ids = tuple(matrix.endpoints)
    index = Index(topology)
    names = tuple(getattr(index.get(oid), "name", oid) for oid in ids)
    return VerdictTable(ids, names, matrix)


def _csv_line(fields: list[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(fields)
    return buffer.getvalue()


def _field(text: str) -> bytes:
    """One field as ``csv.writer`` writes it inside a row (quoted only when it must be)."""
    return _csv_line([text, ""])[:-2].encode("utf-8")


def _rows(codes: np.ndarray, words: list[bytes]) -> tuple[np.ndarray, list[int]]:
    """The bytes of ``word,word,...word\\n`` for each row of ``codes``, concatenated (as uint8), and where
    each row ends: every cell becomes its word and a comma padded with zero bytes to one width, then the
    padding is squeezed out."""
    width = max(len(w) for w in words) + 1
    padded = np.zeros((len(words), width), dtype=np.uint8)
    for code, word in enumerate(words):
        padded[code, :len(word) + 1] = np.frombuffer(word + b",", dtype=np.uint8)
    cells = padded[codes]
    out = cells[cells != 0]
    sizes = np.array([len(w) + 1 for w in words], dtype=np.int64)
    row_ends = np.cumsum(sizes[codes].sum(axis=1))
    out[row_ends - 1] = ord("\n")
    return out, row_ends.tolist()


def matrix_csv(table: VerdictTable) -> bytes:
    """The grid as CSV (UTF-8): a header row of destinations, then one row per source. Names are text
    cells (``csv_cell``): a VM named ``=HYPERLINK(...)`` is shown, never run."""
    names = [csv_cell(name) for name in table.names]
    parts = [_csv_line(["source \\ destination", *names]).encode("utf-8")]
    words = [w.encode("ascii") for w in table.verdicts] + [b""]
    n = len(table.ids)
    for start in range(0, n, _CSV_ROWS):
        body, ends = _rows(table.codes(start, min(n, start + _CSV_ROWS)), words)
        begin = 0
        for r, end in enumerate(ends):
            parts += [_field(names[start + r]), b",", body[begin:end].tobytes()]
            begin = end
    return b"".join(parts)


def matrix_json(table: VerdictTable, design: str) -> str:
    grid = table.grid
    data = {
        "design": design,
        "endpoints": [{"id": i, "name": n} for i, n in zip(table.ids, table.names)],
        "verdicts": [[v or None for v in row] for row in grid],
        "pairs": [{"src": table.ids[r], "dst": table.ids[c], "verdict": v}
                  for r, row in enumerate(grid) for c, v in enumerate(row) if v],
        "counts": table.counts(),
    }
    return json.dumps(data, indent=2) + "\n"
