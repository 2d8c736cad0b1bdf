"""Where the designer keeps its own files: settings and recent files in the config folder, autosaves in the
state folder (``vnetbench.dirs``; ``VNETBENCH_DATA_DIR`` moves both, so tests never touch a person's files).
Settings and autosaves an older version left in Qt's data folder are taken over.
An autosave is a design file plus a small JSON note of which file it belongs to; a clean exit deletes
both, so an autosave still there at start means the last session ended without saving: we offer it back.

Each window has a slot of its own (named by its session, not by the file it edits, so two windows on one
file never overwrite each other's autosave) and holds the slot's lock file for as long as it lives. A slot
whose lock nobody holds belongs to a window that is gone: the kernel drops an ``flock`` when its process
dies, so a recycled PID can never make a crashed session look alive (what checking a PID got wrong).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from .. import dirs
from ..backends.locking import LockFile, is_held
from ..model.fileformat import atomic_write

RECENT_LIMIT = 10


def data_dir() -> Path:
    """The autosave folder's parent: the state folder."""
    base = dirs.state_dir()
    base.mkdir(parents=True, exist_ok=True)
    return base


def settings() -> QSettings:
    folder = dirs.config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.ini"
    if not path.exists():
        _take_over_old_settings(path)
    return QSettings(str(path), QSettings.Format.IniFormat)


def _old_folder() -> Path | None:
    """Where an older version kept settings and autosaves: Qt's data folder (``~/.local/share/vnetbench/vnetbench``)."""
    if os.environ.get("VNETBENCH_DATA_DIR"):
        return None      # the same folder then as now
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base) if base else None


def _take_over_old_settings(path: Path) -> None:
    old = _old_folder()
    if old is not None and (old / "settings.ini").is_file():
        try:
            atomic_write(path, (old / "settings.ini").read_bytes())
        except OSError:
            pass


def _take_over_old_autosaves(folder: Path) -> None:
    """Move autosaves an older version left (of windows that are gone: their lock is free) to ``folder``, so
    the work of a session that crashed before the upgrade is still offered back."""
    old = _old_folder()
    if old is None or not (old / "autosave").is_dir():
        return
    for meta in (old / "autosave").glob("*.meta.json"):
        stem = meta.name.removesuffix(".meta.json")
        lock = meta.with_name(f"{stem}.lock")
        if is_held(lock):
            continue
        try:
            for name in (f"{stem}.vnet.json", f"{stem}.meta.json"):
                if (meta.parent / name).exists():
                    shutil.move(meta.parent / name, folder / name)
            lock.unlink(missing_ok=True)
        except OSError:
            continue


def recent_files() -> list[str]:
    value = settings().value("recent", [])
    items = [value] if isinstance(value, str) else list(value or [])
    return [p for p in items if p]


def add_recent(path: str) -> list[str]:
    path = str(Path(path).resolve())
    items = [path] + [p for p in recent_files() if p != path]
    store = settings()
    store.setValue("recent", items[:RECENT_LIMIT])
    store.sync()
    return items[:RECENT_LIMIT]


def clear_recent() -> None:
    store = settings()
    store.setValue("recent", [])
    store.sync()


@dataclass(frozen=True)
class Autosaved:
    """An autosave left by a session that did not end cleanly."""

    path: Path
    meta: Path
    original: str | None
    saved_at: float

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at))
        return f"{Path(self.original).name if self.original else 'an unsaved design'} (autosaved {when})"


class Autosave:
    """The autosave slot of one window: written after edits and on a timer, deleted on a clean close.

    The window holds the slot's lock from creation until it is closed or its process ends."""

    def __init__(self) -> None:
        self.folder = data_dir() / "autosave"
        self.folder.mkdir(parents=True, exist_ok=True)
        _take_over_old_autosaves(self.folder)
        self.session = uuid.uuid4().hex[:12]
        self.original: str | None = None
        #: Bumped whenever the slot is dropped or moves: a write prepared before that is stale and skipped.
        self.generation = 0
        self.lock = LockFile(self.lock_path)
        weakref.finalize(self, self.lock.release)

    @property
    def path(self) -> Path:
        """JSON, not YAML: the same design, but written and read far faster, which matters every few seconds."""
        return self.folder / f"{self.session}.vnet.json"

    @property
    def meta_path(self) -> Path:
        return self.folder / f"{self.session}.meta.json"

    @property
    def lock_path(self) -> Path:
        return self.folder / f"{self.session}.lock"

    def follow(self, original: str | None) -> None:
        """The window now edits ``original`` (after open or save as): drop the old slot, use the new one."""
        self.discard()
        self.original = str(Path(original).resolve()) if original else None

    def write(self, text: str, generation: int | None = None) -> Path | None:
        """Write the slot (from any thread); ``None`` when the slot changed since ``generation`` was read."""
        if generation is not None and generation != self.generation:
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, text)
        meta = {"original": self.original, "saved_at": time.time(), "pid": os.getpid(), "session": self.session}
        atomic_write(self.meta_path, json.dumps(meta))
        return self.path

    def discard(self) -> None:
        self.generation += 1
        for p in (self.path, self.meta_path):
            p.unlink(missing_ok=True)

    def left_behind(self) -> list[Autosaved]:
        """Autosaves of windows that are gone (their lock is free), newer than the file they belong to."""
        for lock in self.folder.glob("*.lock"):       # windows that closed cleanly left only their lock file
            if not lock.with_name(lock.name.removesuffix(".lock") + ".meta.json").exists() and not is_held(lock):
                lock.unlink(missing_ok=True)
        found: list[Autosaved] = []
        for meta_path in sorted(self.folder.glob("*.meta.json")):
            stem = meta_path.name.removesuffix(".meta.json")
            design = meta_path.with_name(f"{stem}.vnet.json")
            if stem == self.session or not design.exists() or is_held(self.folder / f"{stem}.lock"):
                continue
            try:
                meta = json.loads(meta_path.read_text())
            except (OSError, ValueError):
                continue
            original = meta.get("original")
            saved_at = float(meta.get("saved_at", design.stat().st_mtime))
            if original and Path(original).exists() and Path(original).stat().st_mtime >= saved_at:
                continue
            found.append(Autosaved(design, meta_path, original, saved_at))
        return found

    @staticmethod
    def forget(saved: Autosaved) -> None:
        saved.path.unlink(missing_ok=True)
        saved.meta.unlink(missing_ok=True)
        lock = saved.meta.with_name(saved.meta.name.removesuffix(".meta.json") + ".lock")
        if not is_held(lock):
            lock.unlink(missing_ok=True)
