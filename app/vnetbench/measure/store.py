"""The run store: every measurement in one SQLite file in the user's data folder, exportable and re-importable.

The folder is ``$VNETBENCH_DATA_DIR`` when set (tests, portable installs), otherwise the platform's data
folder (``~/.local/share/vnetbench`` on Linux). A run's context (spec, pair, prediction, commands,
environment, summary) is one JSON column so the schema does not change with every new fact; samples are
rows, so a long run stays cheap to append and to plot.

Exports are self-describing: JSON is the whole run; CSV is one ``# vnetbench-run <json>`` header line with
the context, then ``t,series,value`` rows, readable by a spreadsheet and re-importable as is.

A store that cannot take a run (locked by another program for more than ``LOCK_TIMEOUT_S``, damaged, on a
full disk, in a read-only folder) raises a one-line ``StoreError``; a finished run is then not lost:
``add`` writes it as a JSON export to a fallback file first and names it (``vnetbench runs import FILE``
stores it later). A run is stored in one transaction, so a crash never leaves half of one.

Damage is found early and kept small: the first use checks the file's integrity (``PRAGMA quick_check``),
and a store that fails it takes no new run (it goes to the fallback file) but still lists what it can;
one run whose row cannot be read is listed as damaged, with its id, and hides none of the others.
"""

from __future__ import annotations

import builtins

import csv
import io
import json
import os
import secrets
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import dirs
from ..model.fileformat import atomic_write
from ..model.text import csv_cell, one_line
from .result import Run
from .spec import SpecError
from .verify import Verification

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
CREATE TABLE IF NOT EXISTS verifications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started REAL NOT NULL,
    backend TEXT NOT NULL,
    design_digest TEXT NOT NULL,
    contradictions INTEGER NOT NULL,
    data TEXT NOT NULL
);
"""
CSV_HEADER = "# vnetbench-run "
EXPORT_FORMAT = 1
#: How long a write waits for another program (another measure, an SQLite browser) to release the store.
LOCK_TIMEOUT_S = 10.0


class StoreError(Exception):
    """The store cannot do it (locked, damaged, full, read-only), a file is not a run export, or a run id
    does not exist. The message is one line that says which and what to do."""


def data_dir() -> Path:
    """Where vnetbench keeps user data (runs, measured calibration profiles): ``vnetbench.dirs``."""
    return dirs.data_dir()


@dataclass
class Listing:
    """What ``RunStore.scan`` could read: runs newest first (without samples), and the rows it could not
    read as ``(id, why)``; ``damage`` is the integrity check's complaint about the whole file, if any."""

    runs: list[Run] = field(default_factory=list)
    damaged: list[tuple[int, str]] = field(default_factory=list)
    damage: str = ""


class RunStore:
    """Open with ``RunStore()`` (the default file) or ``RunStore(path)``; safe to open from several threads.

    Opening touches nothing: the file and its tables are made on first use, so a store that cannot be
    written fails the call that needs it, with a ``StoreError``, not whoever merely holds the object.
    """

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path) if path else data_dir() / "runs.sqlite"
        self._ready = False
        #: The integrity check's complaint (first use), "" when the file is sound.
        self.damage = ""

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """A connection in a transaction (committed, or rolled back on error); SQLite and file errors
        become a ``StoreError`` that says what is wrong with the store."""
        try:
            if not self._ready:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT_S)
            try:
                db.execute("PRAGMA foreign_keys = ON")
                if not self._ready:
                    self.damage = _integrity(db)
                    if not self.damage:
                        db.executescript(SCHEMA)
                    self._ready = True
                with db:
                    yield db
            finally:
                db.close()
        except sqlite3.Error as exc:
            raise StoreError(self._why(exc)) from None
        except OSError as exc:
            raise StoreError(f"cannot open the run store {self.path}: {exc.strerror or exc}"
                             " (set VNETBENCH_DATA_DIR to a writable folder)") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"a run in the store {self.path} is damaged ({exc}); "
                             "`vnetbench runs export` the others and start a new store") from None

    def _why(self, exc: sqlite3.Error) -> str:
        text = str(exc).lower()
        where = f"the run store {self.path}"
        if "locked" in text or "busy" in text:
            return f"{where} is locked by another program (waited {LOCK_TIMEOUT_S:g} s); close it and try again"
        if "full" in text:
            return f"the disk holding {where} is full; free some space"
        if "readonly" in text or "read-only" in text:
            return f"{where} is read-only; make its folder writable or set VNETBENCH_DATA_DIR"
        if "unable to open" in text:
            return f"cannot open {where}: its folder is missing or not writable (set VNETBENCH_DATA_DIR)"
        if "not a database" in text or "malformed" in text or "no such table" in text or "corrupt" in text:
            return f"{where} is damaged ({exc}); move it aside and vnetbench starts a new one"
        return f"{where} failed: {exc}"

    def add(self, run: Run) -> int:
        """Store ``run`` (its ``id`` is set) and return the new id. When the store cannot take it (a damaged
        file included), the run goes to a fallback file first, and the ``StoreError`` names that file."""
        context = run.to_dict()
        context.pop("samples")
        context.pop("id")
        try:
            with self._db() as db:
                if self.damage:
                    raise StoreError(self._damaged())
                cur = db.execute(
                    "INSERT INTO runs (started, kind, src_name, dst_name, design_digest, status, data)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (run.started, run.spec.kind.value, run.src_name, run.dst_name, run.design_digest, run.status,
                     json.dumps(context)))
                run_id = cur.lastrowid
                assert run_id is not None             # an INSERT always sets it
                db.executemany("INSERT INTO samples (run_id, seq, t, series, value) VALUES (?, ?, ?, ?, ?)",
                               [(run_id, i, s.t, s.series, s.value) for i, s in enumerate(run.samples)])
        except StoreError as exc:
            raise StoreError(f"{exc}; {keep_elsewhere(run, self.path.parent)}") from None
        run.id = run_id
        return run_id

    def get(self, run_id: int) -> Run:
        """The run with this id, with its samples; ``StoreError`` if there is none."""
        with self._db() as db:
            row = db.execute("SELECT data FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise StoreError(f"no run #{run_id} in {self.path} (`vnetbench runs` lists them)")
            samples = db.execute("SELECT t, value, series FROM samples WHERE run_id = ? ORDER BY seq",
                                 (run_id,)).fetchall()
            try:
                return _read_run(run_id, row[0], samples)
            except (ValueError, KeyError, TypeError, SpecError) as exc:
                raise StoreError(f"run #{run_id} in {self.path} is damaged ({one_line(str(exc), 120)}); "
                                 "the other runs are intact (`vnetbench runs` lists them)") from None

    def list(self, limit: int | None = None) -> list[Run]:
        """Runs newest first, without their samples (cheap for history lists); damaged rows left out."""
        return self.scan(limit).runs

    def scan(self, limit: int | None = None) -> Listing:
        """Every run that can be read, newest first and without samples, and which rows could not be."""
        sql = "SELECT id, data FROM runs ORDER BY started DESC, id DESC"
        listing = Listing()
        with self._db() as db:
            rows = db.execute(sql + (f" LIMIT {int(limit)}" if limit else "")).fetchall()
        for run_id, data in rows:
            try:
                listing.runs.append(_read_run(run_id, data, []))
            except (ValueError, KeyError, TypeError, SpecError) as exc:
                listing.damaged.append((run_id, one_line(f"{type(exc).__name__}: {exc}", 120)))
        listing.damage = self.damage
        return listing

    def _damaged(self) -> str:
        return (f"the run store {self.path} is damaged ({self.damage}); it takes no new run: move it aside "
                "and vnetbench starts a new one")

    def delete(self, run_id: int) -> None:
        """Remove a run and its samples."""
        with self._db() as db:
            db.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    # --- verifications (``vnetbench verify``): the observed matrix beside the prediction ----------------------

    def add_verification(self, verification: Verification) -> int:
        """Store a verification (its cells hold the prediction at the time); returns its id."""
        with self._db() as db:
            if self.damage:
                raise StoreError(self._damaged())
            cur = db.execute("INSERT INTO verifications (started, backend, design_digest, contradictions, data)"
                             " VALUES (?, ?, ?, ?, ?)",
                             (verification.started, verification.backend, verification.design_digest,
                              verification.contradictions, json.dumps(verification.to_dict())))
            return int(cur.lastrowid or 0)

    def verifications(self, design_digest: str | None = None,
                      limit: int | None = None) -> builtins.list[Verification]:
        """Stored verifications, newest first (of one design when its digest is given)."""
        sql = "SELECT data FROM verifications" + (" WHERE design_digest = ?" if design_digest else "")
        sql += " ORDER BY started DESC, id DESC" + (f" LIMIT {int(limit)}" if limit else "")
        with self._db() as db:
            rows = db.execute(sql, (design_digest,) if design_digest else ()).fetchall()
        return [Verification.from_dict(json.loads(row[0])) for row in rows]

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


def _integrity(db: sqlite3.Connection) -> str:
    """SQLite's quick integrity check of the open file, in one short line; "" when it is sound."""
    try:
        rows = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise  # not SQLite at all: every call says so (see _why)
        return one_line(str(exc), 120)
    found = [str(row[0]) for row in rows if row and row[0] != "ok"]
    return one_line("; ".join(found), 120) if found else ""


def _read_run(run_id: int, data: str, samples: list) -> Run:
    """One row as a ``Run``; raises what a damaged row raises (bad JSON, a missing or malformed field)."""
    fields = json.loads(data)
    if not isinstance(fields, dict):
        raise ValueError("the run's data is not a JSON object")
    return Run.from_dict({**fields, "samples": samples, "id": run_id})


def keep_elsewhere(run: Run, *folders: Path) -> str:
    """Write ``run`` as a JSON export to the first folder that takes it (then the temporary folder and the
    current one); returns a sentence saying where, or that it could not be kept."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(run.started))
    name = f"vnetbench-run-{stamp}-{secrets.token_hex(3)}.json"
    text = to_json(run)
    errors = []
    for folder in (*folders, Path(tempfile.gettempdir()), Path.cwd()):
        try:
            atomic_write(folder / name, text)
            return f"the run was kept in {folder / name} (`vnetbench runs import` it later)"
        except OSError as exc:
            errors.append(f"{folder}: {exc.strerror or exc}")
    return "the run could not be kept in a file either (" + "; ".join(errors) + ")"


def to_json(run: Run) -> str:
    """A run as a self-describing JSON export."""
    return json.dumps({"vnetbench_run": EXPORT_FORMAT, **run.to_dict()}, indent=2)


def to_csv(run: Run) -> str:
    """A run as CSV samples, its context in a JSON header line, so it can be imported back."""
    context = run.to_dict()
    context.pop("samples")
    buf = io.StringIO()
    buf.write(CSV_HEADER + json.dumps({"vnetbench_run": EXPORT_FORMAT, **context}) + "\n")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["t", "series", "value"])
    for s in run.samples:
        writer.writerow([f"{s.t:.6g}", csv_cell(s.series), f"{s.value:.10g}"])
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
    """A run from a JSON export; ``StoreError`` names the file and what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(f"{where} is neither a vnetbench CSV nor JSON export (line {exc.lineno}: {exc.msg})") \
            from None
    return _run_from(data, where)


def _series(cell: str) -> str:
    """A series name as stored, without the apostrophe ``csv_cell`` put before a formula-like one."""
    return cell[1:] if cell[:1] == "'" and cell[1:2] in ("=", "+", "-", "@", "\t", "\n") else cell


def from_csv(text: str, where: Path) -> Run:
    """A run from a CSV export; ``StoreError`` names the file and what is wrong."""
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
            samples.append([float(row["t"]), float(row["value"]), _series(row["series"] or "")])
        except (TypeError, ValueError):
            raise StoreError(f"{where} line {n}: t and value must be numbers") from None
    if isinstance(context, dict):
        context["samples"] = samples
    return _run_from(context, where)
