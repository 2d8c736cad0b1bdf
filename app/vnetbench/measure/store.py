"""The run store: every measurement in one SQLite file in the user's data folder, exportable and re-importable.

The folder is ``$VNETBENCH_DATA_DIR`` when set (tests, portable installs), otherwise the platform's data
folder (``~/.local/share/vnetbench`` on Linux). A run's context (spec, pair, prediction, commands,
environment, summary) is one JSON column so the schema does not change with every new fact; samples are
rows, so a long run stays cheap to append and to plot.

Exports are self-describing: JSON is the whole run; CSV is one ``# vnetbench-run <json>`` header line with
the context, then ``t,series,value`` rows, readable by a spreadsheet and re-importable as is.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from .result import Run
from .spec import SpecError

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started REAL NOT NULL,
    kind TEXT NOT NULL,
    src_name TEXT NOT NULL,
    dst_name TEXT NOT NULL,
    design_digest TEXT NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    series TEXT NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (run_id, seq)
);
"""
CSV_HEADER = "# vnetbench-run "
EXPORT_FORMAT = 1


class StoreError(Exception):
    """A file that is not a vnetbench run export, or a run id that does not exist."""


def data_dir() -> Path:
    """Where vnetbench keeps user data (runs, measured calibration profiles)."""
    env = os.environ.get("VNETBENCH_DATA_DIR")
    if env:
        return Path(env)
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming")) / "vnetbench"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "vnetbench"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "vnetbench"


class RunStore:
    """Open with ``RunStore()`` (the default file) or ``RunStore(path)``; safe to open from several threads."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path) if path else data_dir() / "runs.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10)
        db.execute("PRAGMA foreign_keys = ON")
        return db

    def add(self, run: Run) -> int:
        """Store ``run`` (its ``id`` is set) and return the new id."""
        context = run.to_dict()
        context.pop("samples")
        context.pop("id")
        with self._connect() as db:
            cur = db.execute(
                "INSERT INTO runs (started, kind, src_name, dst_name, design_digest, status, data)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run.started, run.spec.kind.value, run.src_name, run.dst_name, run.design_digest, run.status,
                 json.dumps(context)))
            run_id = int(cur.lastrowid)
            db.executemany("INSERT INTO samples (run_id, seq, t, series, value) VALUES (?, ?, ?, ?, ?)",
                           [(run_id, i, s.t, s.series, s.value) for i, s in enumerate(run.samples)])
        run.id = run_id
        return run_id

    def get(self, run_id: int) -> Run:
        with self._connect() as db:
            row = db.execute("SELECT data FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise StoreError(f"no run #{run_id} in {self.path} (`vnetbench runs` lists them)")
            samples = db.execute("SELECT t, value, series FROM samples WHERE run_id = ? ORDER BY seq",
                                 (run_id,)).fetchall()
        data = json.loads(row[0])
        data["samples"] = samples
        data["id"] = run_id
        return Run.from_dict(data)

    def list(self, limit: int | None = None) -> list[Run]:
        """Runs newest first, without their samples (cheap for history lists)."""
        sql = "SELECT id, data FROM runs ORDER BY started DESC, id DESC"
        with self._connect() as db:
            rows = db.execute(sql + (f" LIMIT {int(limit)}" if limit else "")).fetchall()
        runs = []
        for run_id, data in rows:
            run = Run.from_dict({**json.loads(data), "samples": [], "id": run_id})
            runs.append(run)
        return runs

    def delete(self, run_id: int) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    # --- export / import ---------------------------------------------------------------------------------

    def export(self, run_id: int, path: str | os.PathLike, fmt: str | None = None) -> Path:
        """Write run ``run_id`` as JSON or CSV (by ``fmt`` or the file's suffix)."""
        run = self.get(run_id)
        out = Path(path)
        fmt = fmt or out.suffix.lstrip(".").lower()
        if fmt not in ("json", "csv"):
            raise StoreError(f"export format {fmt!r} is unknown: use json or csv")
        out.write_text(to_json(run) if fmt == "json" else to_csv(run), encoding="utf-8")
        return out

    def import_file(self, path: str | os.PathLike) -> int:
        """Read a JSON or CSV export and store it as a new run; returns its id."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise StoreError(f"cannot read {p}: {exc.strerror or exc}") from None
        run = from_csv(text, p) if text.startswith(CSV_HEADER) else from_json(text, p)
        run.id = None
        return self.add(run)


def to_json(run: Run) -> str:
    return json.dumps({"vnetbench_run": EXPORT_FORMAT, **run.to_dict()}, indent=2)


def to_csv(run: Run) -> str:
    context = run.to_dict()
    context.pop("samples")
    buf = io.StringIO()
    buf.write(CSV_HEADER + json.dumps({"vnetbench_run": EXPORT_FORMAT, **context}) + "\n")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["t", "series", "value"])
    for s in run.samples:
        writer.writerow([f"{s.t:.6g}", s.series, f"{s.value:.10g}"])
    return buf.getvalue()


def _run_from(data: Any, where: Path) -> Run:
    if not isinstance(data, dict) or "vnetbench_run" not in data:
        raise StoreError(f"{where} is not a vnetbench run export (no `vnetbench_run` marker)")
    data = dict(data)
    data.pop("vnetbench_run")
    try:
        return Run.from_dict(data)
    except SpecError as exc:
        raise StoreError(f"{where}: spec: {exc}") from None
    except (TypeError, KeyError, ValueError) as exc:
        raise StoreError(f"{where}: a run field is missing or malformed ({exc})") from None


def from_json(text: str, where: Path) -> Run:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(f"{where} is neither a vnetbench CSV nor JSON export (line {exc.lineno}: {exc.msg})") \
            from None
    return _run_from(data, where)


def from_csv(text: str, where: Path) -> Run:
    header, _, body = text.partition("\n")
    try:
        context = json.loads(header[len(CSV_HEADER):])
    except json.JSONDecodeError as exc:
        raise StoreError(f"{where}: the `# vnetbench-run` header line is not valid JSON ({exc.msg})") from None
    samples = []
    reader = csv.DictReader(io.StringIO(body))
    if reader.fieldnames != ["t", "series", "value"]:
        raise StoreError(f"{where}: expected the columns t,series,value after the header line")
    for n, row in enumerate(reader, start=3):
        try:
            samples.append([float(row["t"]), float(row["value"]), row["series"] or ""])
        except (TypeError, ValueError):
            raise StoreError(f"{where} line {n}: t and value must be numbers") from None
    if isinstance(context, dict):
        context["samples"] = samples
    return _run_from(context, where)
