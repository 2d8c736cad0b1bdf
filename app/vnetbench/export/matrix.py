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
from typing import Any, BinaryIO

import numpy as np

from ..model import Index, Topology
from ..model.text import csv_cell

#: Rows turned into bytes at a time (bounds the temporary arrays to a few MB per 1,000 columns).
_CSV_ROWS = 256
#: Class-table cells looked at a time (``first_pairs``).
_COUNT_CELLS = 1 << 21
#: Pairs turned into bytes at a time by the streamed writers (a few tens of MB).
_STREAM_CELLS = 1 << 19


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
    def uplinks(self) -> Any:
        """The pairs whose answer depends on the uplink chosen at run time (``predict.uplinkmarks``), once."""
        found = self.__dict__.get("_uplinks")
        if found is None:
            from ..predict.uplinkmarks import uplink_marks

            found = uplink_marks(self.matrix)
            object.__setattr__(self, "_uplinks", found)
        return found

    def marked(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Which cells of the rows ``start:stop`` (as ``codes``) depend on the uplink chosen at run time."""
        return self.uplinks.block(self.ids, start, len(self.ids) if stop is None else stop)

    @property
    def grid(self) -> tuple[tuple[str, ...], ...]:
        """grid[src][dst] as words, "" on the diagonal: for the small tables a report draws cell by cell."""
        words = self.verdicts + ("",)
        return tuple(tuple(words[c] for c in row) for row in self.codes().tolist())

    def counts(self) -> dict[str, int]:
        """How many ordered pairs get each verdict (verdicts with none left out)."""
        return {str(v): n for v, n in self.matrix.counts().items() if n}

    def counts_by(self, groups: list) -> dict:
        """Per group of sources (``groups[i]``: endpoint i's), how many ordered pairs from its endpoints get
        each verdict: each class row counted once, weighted by the destination classes' sizes, then given
        to the class's members (less each member's pair with itself)."""
        classes, table = self.matrix.classes, self.matrix.table
        k = table.shape[0]
        sizes = np.bincount(classes, minlength=k).astype(np.float64)
        per_class = np.zeros((k, len(self.verdicts)), dtype=np.float64)
        step = max(1, _COUNT_CELLS // max(1, k))
        for lo in range(0, k, step):
            block = table[lo:lo + step]
            for code in range(len(self.verdicts)):
                per_class[lo:lo + step, code] = (block == code) @ sizes
        per_class[np.arange(k), np.diagonal(table)] -= 1       # not the member with itself
        names = list(dict.fromkeys(groups))
        at = {g: i for i, g in enumerate(names)}
        totals = np.zeros((len(names), len(self.verdicts)), dtype=np.float64)
        np.add.at(totals, np.array([at[g] for g in groups], dtype=np.int64), per_class[classes])
        return {g: {w: int(round(n)) for w, n in zip(self.verdicts, totals[at[g]]) if round(n)} for g in names}

    def first_pairs(self) -> list[tuple[str, str]]:
        """For each verdict present, its first pair in row order, in the order they first appear; found on
        the class table (a class's first member holds its class's earliest row), never the endpoint grid."""
        classes, table = self.matrix.classes, self.matrix.table
        n, k = len(classes), table.shape[0]
        if n < 2:
            return []
        order = np.argsort(classes, kind="stable")          # endpoints by class, each class's in row order
        starts = np.searchsorted(classes[order], np.arange(k + 1))
        sizes = np.diff(starts)
        first = np.where(sizes > 0, order[np.minimum(starts[:-1], n - 1)], n)    # n: an empty class
        second = np.where(sizes > 1, order[np.minimum(starts[:-1] + 1, n - 1)], n)
        found: dict[int, tuple[int, int]] = {}               # code -> (source, destination)
        step = max(1, _COUNT_CELLS // k)
        for lo in range(0, k, step):
            rows = np.arange(lo, min(k, lo + step))
            block = table[lo:lo + step]
            dest = np.broadcast_to(first, block.shape).copy()   # a destination class's earliest member...
            dest[np.arange(len(rows)), rows] = second[rows]      # ...but a class with itself: its second
            for code in range(len(self.verdicts)):
                best = np.where(block == code, dest, n).min(axis=1)
                where = np.flatnonzero((best < n) & (first[rows] < n))
                if len(where):
                    src = first[rows[where]]
                    at = int(np.argmin(src * n + best[where]))
                    pair = (int(src[at]), int(best[where][at]))
                    if code not in found or pair < found[code]:
                        found[code] = pair
        return [(self.ids[a], self.ids[b]) for a, b in sorted(found.values())]


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
    marks = table.uplinks
    if marks:   # a marked cell's word carries the mark: codes past the plain words
        from ..predict.uplinkmarks import MARK

        words += [w + f" {MARK}".encode() for w in words[:-1]]
    n = len(table.ids)
    for start in range(0, n, _CSV_ROWS):
        stop = min(n, start + _CSV_ROWS)
        codes = table.codes(start, stop)
        if marks:
            codes = codes + table.marked(start, stop) * (len(table.verdicts) + 1)
        body, ends = _rows(codes, words)
        begin = 0
        for r, end in enumerate(ends):
            parts += [_field(names[start + r]), b",", body[begin:end].tobytes()]
            begin = end
    if marks or not marks.complete:
        parts.append(_csv_line([marks.legend]).encode("utf-8"))
    return b"".join(parts)


def _padded(texts: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Byte strings as rows of a zero-padded uint8 array, and their lengths."""
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    padded = np.zeros((len(texts), max(1, int(lengths.max(initial=0)))), dtype=np.uint8)
    for i, text in enumerate(texts):
        padded[i, :len(text)] = np.frombuffer(text, dtype=np.uint8)
    return padded, lengths


def _joined(*fields: tuple[tuple[np.ndarray, np.ndarray], np.ndarray]) -> bytes:
    """Per cell, its fields one after the other: each field is a ``_padded`` table and every cell's row in
    it. The lengths say which bytes count, so a name may hold any byte, NUL included."""
    cells = np.concatenate([padded[at] for (padded, _), at in fields], axis=1)
    keep = np.concatenate([np.arange(padded.shape[1])[None, :] < lengths[at][:, None]
                           for (padded, lengths), at in fields], axis=1)
    return cells[keep].tobytes()


def write_pairs_csv(table: VerdictTable, out: BinaryIO) -> None:
    """``src,dst,verdict`` rows (names as text cells), every ordered pair but the self pairs, streamed: a
    block of about ``_STREAM_CELLS`` pairs at a time, so memory stays bounded at any size."""
    out.write(b"src,dst,verdict\n")
    n = len(table.ids)
    if n < 2:
        return
    names = [_field(csv_cell(name)) for name in table.names]
    words = [w.encode("ascii") + b"\n" for w in table.verdicts]
    sources = _padded([name + b"," for name in names])
    # a destination with its verdict: destination j, code c at row j * len(words) + c
    pairs = _padded([name + b"," + word for name in names for word in words])
    step = max(1, _STREAM_CELLS // n)
    for start in range(0, n, step):
        codes = table.codes(start, min(n, start + step))
        rows, cols = np.nonzero(codes < len(words))
        out.write(_joined((sources, rows + start), (pairs, cols * len(words) + codes[rows, cols])))


def write_rows_jsonl(table: VerdictTable, out: BinaryIO) -> None:
    """JSON lines, streamed: first ``{"endpoints": [ids], "names": [names]}``, then one line per source,
    ``{"src": id, "verdicts": [verdict or null per destination, in the endpoints' order]}``."""
    out.write(json.dumps({"endpoints": list(table.ids), "names": list(table.names)}).encode("ascii") + b"\n")
    n = len(table.ids)
    words = [json.dumps(w).encode("ascii") for w in table.verdicts] + [b"null"]
    step = max(1, _STREAM_CELLS // max(1, n))
    for start in range(0, n, step):
        body, ends = _rows(table.codes(start, min(n, start + step)), words)
        begin = 0
        for r, end in enumerate(ends):
            out.write(b'{"src": ' + json.dumps(table.ids[start + r]).encode("ascii") + b', "verdicts": [' +
                      body[begin:end - 1].tobytes() + b"]}\n")
            begin = end


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
    marks = table.uplinks
    if marks or not marks.complete:
        data["depends_on_uplink"] = [{"src": table.ids[r], "dst": table.ids[c]}
                                     for r, c in zip(*np.nonzero(table.marked()))]
        data["legend"] = marks.legend
    return json.dumps(data, indent=2) + "\n"
