"""The design's file life cycle in the main window: new, open (files, examples, backend imports), close, save,
save as, autosave and crash restore, and the title that names the file and shows unsaved changes.

A mixin of ``MainWindow`` (``mainwindow``); questions to the person go through its ``ask_*`` methods
(``window_questions``), so tests answer them without a modal dialog.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from PySide6.QtWidgets import QMessageBox

from ..model import Topology, TopologyFileError, load, save
from ..model.fileformat import dumps
from .canvas.layout import fill_layout, remember_as_saved
from .dialogs import remember
from .files import Autosave, add_recent
from .worker import Task
from .window_part import WindowPart

AUTOSAVE_INTERVAL_MS = 30_000
AUTOSAVE_AFTER_EDIT_MS = 2_000
OPEN_FILTER = "vnetbench designs (*.vnet.yaml *.yaml *.yml *.vnet.json *.json);;All files (*)"
#: Saving as JSON keeps the same content; it opens much faster for very large designs.
SAVE_FILTER = "vnetbench design (*.vnet.yaml);;vnetbench design as JSON, for large designs (*.vnet.json);;All files (*)"


def new_topology() -> Topology:
    return Topology(id=f"design-{uuid.uuid4().hex[:8]}", name="untitled")


def file_stem(path: str) -> str:
    """``lab.vnet.yaml`` -> ``lab``: a design file's name without its suffixes."""
    name = Path(path).name
    for suffix in (".vnet.yaml", ".vnet.json", ".yaml", ".yml", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return name


class WindowFiles(WindowPart):
    """The file life cycle and title of ``MainWindow``."""

    _autosaving: Task | None  # the autosave being written, if one is

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current design (saved, or the person said so)."""
        if not self.modified:
            return True
        answer = self.ask_unsaved()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def set_design(self, topology: Topology, path: str | None) -> None:
        fill_layout(topology)
        self.workbench.replace_design(topology)
        self.path = str(Path(path).resolve()) if path else None
        self.autosave.follow(self.path)
        self.restored = False
        self._paste_count = 0
        self._update_title()
        self._fit_when_shown = True
        if self.isVisible():
            QTimer.singleShot(0, self._fit)

    def new_design(self) -> None:
        if self.maybe_save():
            self.set_design(new_topology(), None)

    def close_design(self) -> None:
        """File > Close (Ctrl+W): put the design away (asking to save it), leaving an empty canvas."""
        if self.maybe_save():
            self.set_design(new_topology(), None)
            self.workbench.status.emit("Closed the design")

    def open_dialog(self) -> None:
        if self.maybe_save():
            path = self.ask_open_path()
            if path:
                self.open_file(path)

    def open_file(self, path: str) -> bool:
        """Open a design; a large one in the background (``Opener``). True when it opened or is opening."""
        return self.opener.open(path)

    def open_example(self, path: str) -> bool:
        """An example opens as a new, untitled copy, so saving never overwrites the bundled file."""
        if not self.maybe_save():
            return False
        return self.opener.open(path, example=True)

    def finish_open(self, topology: Topology, path: str, example: bool) -> None:
        """A design read by the opener becomes this window's: a file is remembered (Open Recent, the folder
        the next dialog starts in); an example opens untitled and keeps its title."""
        if example:
            self.set_design(topology, None)
            self.workbench.status.emit(f"Example \u201c{topology.name}\u201d: save it to keep your changes")
            return
        self.set_design(topology, path)
        add_recent(path)
        remember(path)
        self.workbench.status.emit(f"Opened {path}")

    def open_imported(self, topology: Topology, source: str) -> None:
        """A design read from a backend opens untitled and counts as unsaved until saved."""
        self.set_design(topology, None)
        self.restored = True
        self._update_title()
        self.workbench.status.emit(f"Imported {len(topology.vms)} VMs and {len(topology.switches)} switches "
                                   f"from {source}: save the design to keep it")

    def save(self) -> bool:
        if not self.path:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        path = self.ask_save_path()
        if not path:
            return False
        if not path.endswith((".vnet.yaml", ".yaml", ".yml", ".json")):
            path += ".vnet.yaml"
        return self.save_to(path)

    def save_to(self, path: str) -> bool:
        topology = self.workbench.topology
        if topology.name in ("", "untitled"):  # the diagram and report are titled by the name it is saved as
            self.editor.set(topology, "name", file_stem(path), where="the design")
        try:
            save(self.workbench.topology, path, keep_from=self.path)
        except OSError as exc:
            self.tell_error("Cannot save the design", f"{path}: {exc.strerror or exc}")
            return False
        if str(Path(path).resolve()) != self.path:
            self.autosave.follow(path)
        self.path = str(Path(path).resolve())
        self.restored = False
        self.saved_layout = remember_as_saved(self.workbench, self.scene.sync)  # a Task: tests wait for it
        self.workbench.undo_stack.setClean()
        self.autosave.discard()
        add_recent(path)
        remember(path)
        self._update_title()
        self.workbench.status.emit(f"Saved {path}")
        return True

    def autosave_now(self) -> Task | None:
        """Write the design to the autosave slot if it has unsaved changes.

        Only the snapshot is taken here; turning it into YAML and writing it happens in a worker, so a large
        design never stalls the window every 30 seconds.
        """
        if not self.modified or (self._autosaving is not None and self._autosaving.running):
            return None
        snapshot, generation, slot = self.workbench.snapshot(), self.autosave.generation, self.autosave
        task = Task(lambda progress, cancel: slot.write(dumps(snapshot(), "json"), generation))
        task.failed.connect(lambda exc: self.workbench.status.emit(f"Autosave failed: {exc}"))
        self._autosaving = task
        task.start()
        return task

    def _finish_autosave(self, limit_s: float = 5.0) -> None:
        """Let an autosave already being written finish, so discarding the slot afterwards leaves nothing."""
        end = time.monotonic() + limit_s
        while self._autosaving is not None and self._autosaving.running and time.monotonic() < end:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)

    def offer_restore(self) -> bool:
        """After a crash: offer the newest autosave left behind; True when one was restored."""
        for saved in sorted(self.autosave.left_behind(), key=lambda s: s.saved_at, reverse=True):
            if not self.ask_restore(saved):
                Autosave.forget(saved)
                continue
            try:
                topology = load(saved.path)
            except TopologyFileError as exc:
                self.tell_error("Cannot restore", str(exc))
                Autosave.forget(saved)
                continue
            self.set_design(topology, saved.original)
            self.restored = True
            Autosave.forget(saved)
            self.autosave_now()
            self._update_title()
            self.workbench.status.emit(f"Restored {saved.describe()}: save to keep it")
            return True
        return False


    @property
    def modified(self) -> bool:
        return self.restored or not self.workbench.undo_stack.isClean()

    def _update_title(self, *_: object) -> None:
        """The file's name, or for an unsaved design its title (an opened example keeps the example's)."""
        name = Path(self.path).name if self.path else (self.workbench.topology.name or "untitled")
        self.setWindowTitle(f"{name}[*] — vnetbench")
        self.setWindowModified(self.modified)

    def _design_renamed(self, change) -> None:
        if change.obj is self.workbench.topology and change.field == "name":
            self._update_title()

    def _edited(self, *_: object) -> None:
        self._update_title()
        if self.modified:
            self.edit_timer.start()
