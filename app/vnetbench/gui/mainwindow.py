"""The designer's main window: the canvas in the middle, palette and inspector beside it, the docks around.

It owns the file life cycle (new, open, save, save as, recent, examples, autosave and crash restore) and
the actions with their standard shortcuts. Questions to the person (save changes? restore?) go through the
``ask_*`` methods so tests can answer them without a modal dialog.
"""

from __future__ import annotations

import importlib
import json
import uuid
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QUndoView,
    QWidget,
)

from .. import resources_dir
from ..model import Topology, TopologyFileError, load, save
from ..model.fileformat import dumps
from .backend_import import BackendImporter
from .canvas.layout import auto_layout, fill_layout
from .canvas.minimap import Minimap
from .canvas.scene import DesignScene
from .canvas.view import DesignView
from .editing import Editor
from .files import Autosave, Autosaved, add_recent, clear_recent, recent_files
from .find import FindBar
from .inspector import Inspector
from .opening import Opener
from .palette import Palette
from .pathing import PathController
from .signals import connect_weakly
from .worker import Task
from .workbench import Workbench

CLIPBOARD_MIME = "application/x-vnetbench-objects"
UNDO_LIMIT = 1000  # steps of history kept: a long session stays bounded in memory
AUTOSAVE_INTERVAL_MS = 30_000
AUTOSAVE_AFTER_EDIT_MS = 2_000
OPEN_FILTER = "vnetbench designs (*.vnet.yaml *.yaml *.yml *.vnet.json *.json);;All files (*)"
#: Saving as JSON keeps the same content; it opens much faster for very large designs.
SAVE_FILTER = "vnetbench design (*.vnet.yaml);;vnetbench design as JSON, for large designs (*.vnet.json);;All files (*)"
#: Docks built by other parts of the GUI: (module, class, area, shown at start). A module not there yet is
#: skipped. The measure dock is tall, so it waits in the View menu until wanted.
DOCKS = [
    ("vnetbench.gui.panels.problems", "ProblemsDock", Qt.DockWidgetArea.BottomDockWidgetArea, True),
    ("vnetbench.gui.panels.path", "PathDock", Qt.DockWidgetArea.RightDockWidgetArea, True),
    ("vnetbench.gui.panels.matrix", "MatrixDock", Qt.DockWidgetArea.BottomDockWidgetArea, True),
    ("vnetbench.gui.panels.whatif", "WhatIfDock", Qt.DockWidgetArea.BottomDockWidgetArea, True),
    ("vnetbench.gui.panels.deploy", "DeployDock", Qt.DockWidgetArea.BottomDockWidgetArea, True),
    ("vnetbench.gui.measure", "MeasureDock", Qt.DockWidgetArea.BottomDockWidgetArea, False),
]


def new_topology() -> Topology:
    return Topology(id=f"design-{uuid.uuid4().hex[:8]}", name="untitled")


def endpoint_of(workbench: Workbench, oid: str) -> str | None:
    """The VM or physical host an id stands for (a vNIC or host NIC counts as its owner)."""
    index = workbench.document.index
    kind = index.kind(oid)
    if kind in ("vm", "physical_host"):
        return oid
    if kind in ("vnic", "host_nic"):
        return index.parent(oid).id
    return None


class MainWindow(QMainWindow):
    def __init__(self, path: str | None = None) -> None:
        super().__init__()
        self.path: str | None = None
        self.restored = False  # showing an autosave: modified until saved even with a clean undo stack
        self.workbench = Workbench(new_topology(), self)
        self.workbench.undo_stack.setUndoLimit(UNDO_LIMIT)
        self.editor = Editor(self.workbench)
        self.scene = DesignScene(self.workbench, self.editor)
        self.view = DesignView(self.scene, self)
        self.setCentralWidget(self.view)
        self.view.editRequested.connect(self.edit_selection)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(
            lambda pos: self.context_menu(self.view.mapToScene(pos)).exec(self.view.viewport().mapToGlobal(pos)))
        self.autosave = Autosave()
        self.docks: dict[str, QDockWidget] = {}
        self._paste_count = 0
        self._fit_when_shown = False
        self._autosaving: Task | None = None
        self.setWindowIcon(QIcon(str(resources_dir() / "icons" / "switch-vds.svg")))
        self.resize(1440, 900)
        self._build_docks()
        self.opener = Opener(self)
        self.find_bar = FindBar(self)
        self.minimap = Minimap(self.view)
        self._build_actions()
        self._build_menus()
        self.zoom_label = QLabel()
        self.zoom_label.setMinimumWidth(56)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.statusBar().addPermanentWidget(self.zoom_label)
        connect_weakly(self.workbench.status, self, "_show_status")
        connect_weakly(self.workbench.undo_stack.cleanChanged, self, "_update_title")
        connect_weakly(self.workbench.undo_stack.indexChanged, self, "_edited")
        connect_weakly(self.workbench.selectionChanged, self, "_selection_changed")
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_INTERVAL_MS)
        self.autosave_timer.timeout.connect(self.autosave_now)
        self.autosave_timer.start()
        self.edit_timer = QTimer(self)
        self.edit_timer.setSingleShot(True)
        self.edit_timer.setInterval(AUTOSAVE_AFTER_EDIT_MS)
        self.edit_timer.timeout.connect(self.autosave_now)
        self.zoom_timer = QTimer(self)
        self.zoom_timer.setInterval(250)
        self.zoom_timer.timeout.connect(lambda: self.zoom_label.setText(f"{self.view.zoom() * 100:.0f}%"))
        self.zoom_timer.start()
        self._update_title()
        if path:
            self.open_file(path)

    # --- building ---------------------------------------------------------------------------------------

    def _dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        return dock

    def _build_docks(self) -> None:
        self.palette = Palette(self.drop_in_view)
        self._dock("PaletteDock", "Palette", self.palette, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.inspector = Inspector(self.workbench, self.editor)
        inspector = self._dock("InspectorDock", "Inspector", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea)
        self.history = QUndoView(self.workbench.undo_stack)
        self.history.setEmptyLabel("(the design as opened)")
        history = self._dock("HistoryDock", "History", self.history, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(inspector, history)
        inspector.raise_()
        bottom: list[QDockWidget] = []
        for module_name, class_name, area, shown in DOCKS:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue  # that part is not installed or not built
            cls = getattr(module, class_name, None)
            if cls is None:
                continue
            dock = cls(self.workbench, self)
            dock.setObjectName(dock.objectName() or class_name)
            self.addDockWidget(area, dock)
            self.docks[dock.objectName()] = dock
            if area == Qt.DockWidgetArea.RightDockWidgetArea:
                self.tabifyDockWidget(history, dock)
            elif shown:
                bottom.append(dock)
            if not shown:
                dock.hide()
        for first, other in zip(bottom, bottom[1:]):
            self.tabifyDockWidget(bottom[0], other)
        if bottom:
            bottom[0].raise_()
        inspector.raise_()
        if "PathDock" not in self.docks:
            self.path_controller = PathController(self.workbench, self)
        self.resizeDocks([self.docks["PaletteDock"]], [210], Qt.Orientation.Horizontal)
        self.resizeDocks([inspector], [340], Qt.Orientation.Horizontal)
        self._bottom_docks = bottom

    def _action(self, text: str, slot, shortcut=None, checkable: bool = False, checked: bool = False) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            keys = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([k if isinstance(k, QKeySequence) else QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if checkable:
            action.setCheckable(True)
            action.setChecked(checked)
            action.toggled.connect(slot)
        else:
            action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        K = QKeySequence.StandardKey
        stack = self.workbench.undo_stack
        self.a_new = self._action("&New", self.new_design, K.New)
        self.a_open = self._action("&Open…", self.open_dialog, K.Open)
        self.a_save = self._action("&Save", self.save, K.Save)
        self.a_save_as = self._action("Save &As…", self.save_as, K.SaveAs)
        self.backend_importer = BackendImporter(self, self)
        self.a_import_backend = self._action("Import from &Backend…", self.backend_importer.start)
        self.a_quit = self._action("&Quit", self.close, QKeySequence.keyBindings(K.Quit) or ["Ctrl+Q"])
        self.a_undo = stack.createUndoAction(self, "&Undo")
        self.a_undo.setShortcuts(QKeySequence.keyBindings(K.Undo))
        self.a_redo = stack.createRedoAction(self, "&Redo")
        redo_keys = QKeySequence.keyBindings(K.Redo)
        if QKeySequence("Ctrl+Y") not in redo_keys:  # what Windows users type, wherever they are
            redo_keys.append(QKeySequence("Ctrl+Y"))
        self.a_redo.setShortcuts(redo_keys)
        self.addActions([self.a_undo, self.a_redo])
        self.a_cut = self._action("Cu&t", self.cut, K.Cut)
        self.a_copy = self._action("&Copy", self.copy, K.Copy)
        self.a_paste = self._action("&Paste", self.paste, K.Paste)
        self.a_duplicate = self._action("&Duplicate", self.duplicate, "Ctrl+D")
        self.a_delete = self._action("&Delete", self.delete_selection,
                                     [QKeySequence(K.Delete), QKeySequence(Qt.Key.Key_Backspace)])
        self.a_select_all = self._action("Select &All", self.select_all, K.SelectAll)
        self.a_find = self._action("&Find\u2026", self.find_bar.open, K.Find)
        self.a_auto_layout = self._action("Auto &Layout", lambda: auto_layout(self.workbench), "Ctrl+Shift+L")
        self.a_minimap = self._action("Over&view Map", self.minimap.set_enabled, "Ctrl+Shift+M", checkable=True,
                                      checked=True)
        self.a_note = self._action("Add &Note", self.add_note, "Ctrl+Shift+N")
        self.a_clear_path = self._action("Clear &Path", lambda: self.workbench.highlight_path(None), "Esc")
        self.a_zoom_in = self._action("Zoom &In", self.view.zoom_in, [QKeySequence(K.ZoomIn), "Ctrl+="])
        self.a_zoom_out = self._action("Zoom &Out", self.view.zoom_out, K.ZoomOut)
        self.a_fit = self._action("&Fit Design", self.view.fit, "Ctrl+0")
        self.a_actual = self._action("Actual &Size", self.view.zoom_actual, "Ctrl+1")
        self.a_grid = self._action("Show &Grid", self.view.set_grid, "Ctrl+'", checkable=True, checked=True)
        self.a_snap = self._action("S&nap to Grid", self._set_snap, "Ctrl+Shift+'", checkable=True, checked=True)
        self.a_align = {
            how: self._action(f"Align {label}", lambda _=False, h=how: self.align(h), keys)
            for how, label, keys in (("left", "&Left", "Ctrl+Alt+Left"), ("right", "&Right", "Ctrl+Alt+Right"),
                                     ("top", "&Top", "Ctrl+Alt+Up"), ("bottom", "&Bottom", "Ctrl+Alt+Down"),
                                     ("centre", "&Centres", "Ctrl+Alt+H"), ("middle", "&Middles", "Ctrl+Alt+V"))
        }

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.a_new, self.a_open])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.examples_menu = file_menu.addMenu("Open &Example")
        for example in self.examples():
            action = self.examples_menu.addAction(example.name.removesuffix(".vnet.yaml"))
            action.triggered.connect(lambda _=False, p=str(example): self.open_example(p))
        file_menu.addAction(self.a_import_backend)
        file_menu.addSeparator()
        file_menu.addActions([self.a_save, self.a_save_as])
        self.exporter = self._build_exporter()
        if self.exporter is not None:
            file_menu.addMenu(self.exporter.menu())
        file_menu.addSeparator()
        file_menu.addAction(self.a_quit)
        edit = bar.addMenu("&Edit")
        edit.addActions([self.a_undo, self.a_redo])
        edit.addSeparator()
        edit.addActions([self.a_cut, self.a_copy, self.a_paste, self.a_duplicate, self.a_delete])
        edit.addSeparator()
        edit.addActions([self.a_select_all, self.a_find, self.a_note, self.a_clear_path])
        view = bar.addMenu("&View")
        view.addActions([self.a_zoom_in, self.a_zoom_out, self.a_fit, self.a_actual])
        view.addSeparator()
        view.addActions([self.a_grid, self.a_snap, self.a_minimap])
        view.addSeparator()
        for dock in self.docks.values():
            view.addAction(dock.toggleViewAction())
        arrange = bar.addMenu("&Arrange")
        arrange.addAction(self.a_auto_layout)
        arrange.addSeparator()
        arrange.addActions(list(self.a_align.values()))

        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("MainToolbar")
        toolbar.setMovable(False)
        for action in (self.a_new, self.a_open, self.a_save, None, self.a_undo, self.a_redo, None, self.a_delete,
                       self.a_duplicate, self.a_note, None, self.a_zoom_in, self.a_zoom_out, self.a_fit):
            if action is None:
                toolbar.addSeparator()
            else:
                toolbar.addAction(action)

    def _build_exporter(self):
        """File > Export, from the export part of the GUI when it is installed."""
        try:
            from .exporting import Exporter
        except ImportError:
            return None
        exporter = Exporter(self.workbench, self, lambda: Path(self.path).name.split(".")[0] if self.path
                            else self.workbench.topology.name)
        exporter.finished.connect(lambda done: self.workbench.status.emit(f"Exported {getattr(done, 'path', done)}"))
        exporter.failed.connect(self.workbench.status.emit)
        return exporter

    @staticmethod
    def examples() -> list[Path]:
        try:
            return sorted((resources_dir() / "examples").glob("*.vnet.yaml"))
        except FileNotFoundError:
            return []

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in recent_files():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.maybe_save() and self.open_file(p))
        self.recent_menu.addSeparator()
        self.recent_menu.addAction("Clear List", clear_recent)

    def _show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    # --- title, modified state -------------------------------------------------------------------------

    @property
    def modified(self) -> bool:
        return self.restored or not self.workbench.undo_stack.isClean()

    def _update_title(self, *_: object) -> None:
        name = Path(self.path).name if self.path else "untitled"
        self.setWindowTitle(f"{name}[*] — vnetbench")
        self.setWindowModified(self.modified)

    def _edited(self, *_: object) -> None:
        self._update_title()
        if self.modified:
            self.edit_timer.start()

    # --- questions (tests replace these) -------------------------------------------------------------------

    def ask_unsaved(self) -> QMessageBox.StandardButton:
        B = QMessageBox.StandardButton
        return QMessageBox.question(self, "Unsaved changes",
                                    f"Save the changes to {Path(self.path).name if self.path else 'this design'}?",
                                    B.Save | B.Discard | B.Cancel, B.Save)

    def ask_restore(self, saved: Autosaved) -> bool:
        B = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self, "Restore unsaved work?",
            f"vnetbench did not close normally last time. Restore {saved.describe()}?", B.Yes | B.No, B.Yes)
        return answer == B.Yes

    def ask_save_path(self) -> str | None:
        start = self.path or str(Path.home() / f"{self.workbench.topology.name or 'design'}.vnet.yaml")
        path, _ = QFileDialog.getSaveFileName(self, "Save design", start, SAVE_FILTER)
        return path or None

    def ask_open_path(self) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self, "Open design", str(Path(self.path or Path.home()).parent),
                                              OPEN_FILTER)
        return path or None

    def tell_error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(message, 15000)
        QMessageBox.warning(self, title, message)

    # --- files -------------------------------------------------------------------------------------------

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

    def _fit(self) -> None:
        self._fit_when_shown = False
        self.view.fit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._bottom_docks:
            QTimer.singleShot(0, self._size_docks)
        if self._fit_when_shown:
            QTimer.singleShot(0, self._fit)

    def _size_docks(self) -> None:
        """Once laid out: the canvas gets the room, the bottom docks a strip."""
        if self._bottom_docks:
            self.resizeDocks(self._bottom_docks, [max(170, self.height() // 5)] * len(self._bottom_docks),
                             Qt.Orientation.Vertical)
            self._bottom_docks = []

    def new_design(self) -> None:
        if self.maybe_save():
            self.set_design(new_topology(), None)

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
        """A design read by the opener becomes this window's."""
        if example:
            self.set_design(topology, None)
            self.workbench.status.emit(f"Example {Path(path).name}: save it to keep your changes")
            return
        self.set_design(topology, path)
        add_recent(path)
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
        try:
            save(self.workbench.topology, path)
        except OSError as exc:
            self.tell_error("Cannot save the design", f"{path}: {exc.strerror or exc}")
            return False
        if str(Path(path).resolve()) != self.path:
            self.autosave.follow(path)
        self.path = str(Path(path).resolve())
        self.restored = False
        self.workbench.undo_stack.setClean()
        self.autosave.discard()
        add_recent(path)
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

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.maybe_save():
            self.autosave.discard()
            self.autosave_timer.stop()
            event.accept()
        else:
            event.ignore()

    # --- edit actions ------------------------------------------------------------------------------------

    def drop_in_view(self, key: str) -> str | None:
        """Add a palette entry in the middle of the visible canvas (double-click or Enter in the palette)."""
        centre = self.view.mapToScene(self.view.viewport().rect().center())
        return self.view.drop(key, centre)

    def add_note(self) -> str | None:
        return self.drop_in_view("note")

    def context_menu(self, scene_pos) -> QMenu:
        """The right-click menu: the edit actions, and adding the parts an object has (a vNIC, a pNIC...)."""
        item = self.scene._item_at(scene_pos)
        oid = getattr(item, "oid", None)
        if oid is not None and oid not in self.workbench.selection:
            self.workbench.select([oid])
        menu = QMenu(self)
        obj = self.workbench.document.index.get(oid) if oid else None
        for field, label in (("vnics", "Add vNIC"), ("pnics", "Add pNIC"), ("ports", "Add Port"),
                             ("interfaces", "Add Interface"), ("nics", "Add NIC")):
            if obj is not None and isinstance(getattr(obj, field, None), list) and oid in self.scene.nodes:
                menu.addAction(label, lambda o=obj, f=field: self.editor.add_element(o, f))
        if menu.actions():
            menu.addSeparator()
        menu.addActions([self.a_cut, self.a_copy, self.a_paste, self.a_duplicate, self.a_delete])
        menu.addSeparator()
        menu.addActions([self.a_note, self.a_fit])
        if len(self.workbench.selection) > 1:
            align = menu.addMenu("Align")
            align.addActions(list(self.a_align.values()))
        return menu

    def edit_selection(self) -> None:
        """Show the inspector with the focus on the selected object's name (or a note's text)."""
        dock = self.docks["InspectorDock"]
        dock.show()
        dock.raise_()
        field = self.inspector.fields.get("name") or self.inspector.fields.get("text")
        if field is not None:
            field.setFocus()
            field.selectAll()

    def select_all(self) -> None:
        self.workbench.select(list(self.scene.nodes))

    def delete_selection(self) -> None:
        ids = self.workbench.selection
        if not ids:
            return
        model_ids = [i for i in ids if i in self.workbench.document.index]
        drawn = [i for i in ids if i not in self.workbench.document.index]
        stack = self.workbench.undo_stack
        stack.beginMacro(f"Delete {len(ids)} item{'s' if len(ids) != 1 else ''}")
        try:
            if model_ids:
                self.editor.delete(model_ids)
            for key in drawn:
                if key.split(":", 1)[1:] and key.split(":", 1)[1].split(":")[0] in self.workbench.document.index:
                    self.editor.disconnect(key)
        finally:
            stack.endMacro()
        self.workbench.select([])

    def copy(self) -> bool:
        data = self.editor.copy_data(self.workbench.selection)
        if not data["objects"]:
            return False
        mime = QMimeData()
        mime.setData(CLIPBOARD_MIME, json.dumps(data).encode())
        QGuiApplication.clipboard().setMimeData(mime)
        self._paste_count = 0
        self.workbench.status.emit(f"Copied {len(data['objects'])} object(s)")
        return True

    def cut(self) -> None:
        if self.copy():
            self.delete_selection()

    def paste(self) -> list[str]:
        mime = QGuiApplication.clipboard().mimeData()
        if mime is None or not mime.hasFormat(CLIPBOARD_MIME):
            return []
        data = json.loads(bytes(mime.data(CLIPBOARD_MIME).data()).decode())
        self._paste_count += 1
        offset = 40.0 * self._paste_count
        ids = self.editor.paste(data, offset, offset)
        self.workbench.select(ids)
        return ids

    def duplicate(self) -> list[str]:
        ids = self.editor.duplicate(self.workbench.selection)
        self.workbench.select(ids)
        return ids

    def align(self, how: str) -> None:
        """Line up the selected objects (and what they hold) on the first one's edge or centre."""
        ids = [i for i in self.workbench.selection if i in self.scene.nodes]
        rects = {i: self.scene.node_rect(i) or self.scene.nodes[i].sceneBoundingRect() for i in ids}
        if len(ids) < 2:
            self.workbench.status.emit("select two or more objects to align")
            return
        lead = rects[ids[0]]
        target = {"left": lead.left(), "right": lead.right(), "top": lead.top(), "bottom": lead.bottom(),
                  "centre": lead.center().x(), "middle": lead.center().y()}[how]
        positions: dict[str, tuple[float, float]] = {}
        for oid in ids:
            r = rects[oid]
            dx = {"left": target - r.left(), "right": target - r.right(), "centre": target - r.center().x()}.get(how, 0)
            dy = {"top": target - r.top(), "bottom": target - r.bottom(), "middle": target - r.center().y()}.get(how, 0)
            if not dx and not dy:
                continue
            for moved in [oid, *self.scene.descendants(oid)]:
                item = self.scene.nodes.get(moved)
                if item is not None and moved not in positions:
                    positions[moved] = (item.pos().x() + dx, item.pos().y() + dy)
        if positions:
            self.editor.move(positions, text=f"Align {how}")

    def _set_snap(self, on: bool) -> None:
        self.scene.snap_to_grid = on

    def _selection_changed(self, ids: list[str]) -> None:
        """Two endpoints picked on the canvas: ask for the path between them."""
        endpoints: list[str] = []
        for oid in ids:
            endpoint = endpoint_of(self.workbench, oid)
            if endpoint and endpoint not in endpoints:
                endpoints.append(endpoint)
        if len(endpoints) == 2 and len(ids) == 2:
            self.workbench.request_pair(endpoints[0], endpoints[1])

