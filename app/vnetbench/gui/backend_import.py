"""File > Import from Backend…: read what a backend holds (a vCenter inventory) into a new, unsaved design.

Any installed backend whose capabilities say ``import_inventory`` qualifies; the GUI knows none by name.
Connecting goes through ``ConnectDialog`` (settings, secrets, certificates), and reading the inventory runs
off the GUI thread with a progress dialog whose Cancel stops at the backend's next progress report. The
result opens in the window like an example does: untitled, unsaved, laid out as the importer placed it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QInputDialog, QProgressDialog, QWidget

from ..backends import Backend, CancelToken, PluginInfo, ProgressFn, discover
from ..model import Topology
from .connect import ConnectDialog, describe_error
from .worker import Task


class Window(Protocol):
    """What the importer needs of the main window."""

    def maybe_save(self) -> bool: ...
    def open_imported(self, topology: Topology, source: str) -> None: ...
    def tell_error(self, title: str, message: str) -> None: ...


def importers(plugins: list[PluginInfo]) -> list[PluginInfo]:
    """The loaded backends that can read an inventory."""
    return [p for p in plugins if p.backend is not None and p.backend.capabilities.import_inventory]


def read_design(backend: Backend, progress: ProgressFn, cancel: CancelToken) -> Topology:
    """On the worker thread: the backend's inventory as a design; the connection is closed afterwards."""
    def report(done: int, total: int, message: str) -> None:
        cancel.check()
        progress(done, total, message)

    try:
        report(0, 1, f"Reading {backend.title}…")
        topology = backend.import_design(report)
        cancel.check()
        return topology
    finally:
        backend.close()


class BackendImporter(QObject):
    """Runs one import at a time for a window: choose, connect, read, open."""

    #: The imported design, once it is open in the window.
    imported = Signal(object)

    def __init__(self, window: Window, parent: QWidget,
                 plugins: Callable[[], list[PluginInfo]] = discover) -> None:
        super().__init__(parent)
        self.window, self.parent_widget, self.plugins = window, parent, plugins
        self.dialog: ConnectDialog | None = None
        self.task: Task | None = None
        self.progress: QProgressDialog | None = None

    def start(self) -> None:
        if self.task is not None:
            return
        found = importers(self.plugins())
        if not found:
            self.window.tell_error("Import from Backend", "No installed backend can import an inventory.\n"
                                   "What to do: install one (the vSphere plugin comes with vnetbench's "
                                   "'vsphere' extra).")
            return
        info = found[0] if len(found) == 1 else self.ask_backend(found)
        if info is None or info.backend is None or not self.window.maybe_save():
            return
        if not info.backend.settings_fields:  # nothing to ask: connect on the worker with the read
            self.read(info.backend({}), connect=True)
            return
        dialog = ConnectDialog(info.backend, self.parent_widget)
        dialog.setWindowTitle(f"Import from {info.backend.title}")
        dialog.connected.connect(self.read)
        dialog.finished.connect(lambda _result: self._dialog_closed(dialog))
        self.dialog = dialog
        dialog.open()

    def _dialog_closed(self, dialog: ConnectDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    def ask_backend(self, found: list[PluginInfo]) -> PluginInfo | None:
        titles = [p.backend.title for p in found if p.backend is not None]
        title, ok = QInputDialog.getItem(self.parent_widget, "Import from Backend", "Backend", titles, 0, False)
        return found[titles.index(title)] if ok else None

    def read(self, backend: Backend, connect: bool = False) -> Task:
        progress = QProgressDialog(f"Importing from {backend.title}…", "Cancel", 0, 0, self.parent_widget)
        progress.setObjectName("ImportProgress")
        progress.setWindowTitle("Import from Backend")
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(0)
        progress.setAutoClose(False)
        progress.setAutoReset(False)

        def work(report: ProgressFn, cancel: CancelToken) -> Topology:
            if connect:
                backend.connect()
            return read_design(backend, report, cancel)

        task = Task(work)
        progress.canceled.connect(task.cancel)
        task.progress.connect(self._progress)
        task.succeeded.connect(lambda topology: self._done(topology, backend.title))
        task.failed.connect(self._failed)
        task.finished.connect(self._finished)
        self.task, self.progress = task, progress
        progress.show()
        task.start()
        return task

    def _progress(self, done: int, total: int, message: str) -> None:
        progress = self.progress
        if progress is not None:
            progress.setLabelText(message)
            progress.setMaximum(max(total, 0))
            progress.setValue(done)  # last: a modal dialog's setValue processes events, maybe our _finished

    def _done(self, topology: Topology, source: str) -> None:
        if self.task is not None and self.task.token.cancelled:
            return
        self.window.open_imported(topology, source)
        self.imported.emit(topology)

    def _failed(self, error: BaseException) -> None:
        if self.task is not None and self.task.token.cancelled:
            return
        self.window.tell_error("Import failed", describe_error(error))

    def _finished(self) -> None:
        if self.progress is not None:
            self.progress.close()
            self.progress.deleteLater()
        self.task = self.progress = None
