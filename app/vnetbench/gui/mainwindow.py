"""The designer's main window: the canvas in the middle, palette and inspector beside it, the docks around.

It owns the file life cycle (new, open, close, save, save as, recent, examples, autosave and crash restore),
the actions with their standard shortcuts and menus; ``docking.Docking`` arranges the docks and keeps the
window on screen (View > Reset Layout goes back to its default). Questions to the person (save changes? restore?) go through the ``ask_*``
methods so tests can answer them without a modal dialog.
"""

from __future__ import annotations

import html
import json
import platform
import time
import uuid
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QMimeData, QPointF, QRect, Qt, QTimer, qVersion
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QIcon, QKeySequence
from shiboken6 import isValid
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QToolButton,
    QToolTip,
    QUndoView,
)

from .. import __version__, dirs, resources_dir
from ..backends import discover
from ..model import Topology, TopologyFileError, load, save
from ..model.fileformat import dumps
from .backend_import import BackendImporter
from .canvas.hint import CanvasHint
from .canvas.layout import auto_layout, fill_layout, remember_as_saved
from .canvas.minimap import Minimap
from .canvas.scene import DesignScene
from .canvas.view import DesignView
from .docking import Docking
from .dialogs import open_path, remember, save_path
from .editing import Editor
from .endpoints import selected_endpoints
from .files import Autosave, Autosaved, add_recent, clear_recent, recent_files
from .find import FindBar
from .icons import action_icon
from .inspector import Inspector
from .measure import MeasureDock
from .opening import Opener
from .palette import Palette
from .panels import DeployDock, MatrixDock, PathDock, ProblemsDock, WhatIfDock
from .panels.problems import summary_text
from .signals import connect_weakly
from .wheel import guard_wheel
from .worker import Task
from .workbench import Workbench

CLIPBOARD_MIME = "application/x-vnetbench-objects"
UNDO_LIMIT = 1000  # steps of history kept: a long session stays bounded in memory
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


def plugin_versions() -> list[str]:
    """One line per backend plugin: its name, its distribution and version, or why it failed to load."""
    lines = []
    for info in discover():
        dist = " ".join(filter(None, (info.distribution, info.version))) or "built in"
        lines.append(f"{info.name} ({dist})" + ("" if info.ok else f": failed to load, {info.error}"))
    return lines


class MainWindow(QMainWindow):
    def __init__(self, path: str | None = None) -> None:
        super().__init__()
        guard_wheel(QApplication.instance())
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
        self.canvas_hint = CanvasHint(self.view, self.scene)
        self.scene.refused.connect(self.show_refusal)
        self.autosave = Autosave()
        self.docks: dict[str, QDockWidget] = {}
        self._paste_count = 0
        self._fit_when_shown = False
        self._autosaving: Task | None = None
        self.problem_counts: dict[str, int] | None = None  # None until the first validation
        self._examples: dict[str, str] = {}  # example path -> its design's title
        self.about_box: QMessageBox | None = None
        self._shown_once = False
        self.setWindowIcon(QIcon(str(resources_dir() / "icons" / "switch-vds.svg")))
        self._build_docks()
        self.opener = Opener(self)
        self.find_bar = FindBar(self)
        self.minimap = Minimap(self.view)
        self._build_actions()
        self._build_menus()
        self._build_status_bar()
        self._layout_restored = self.docking.restore()
        connect_weakly(self.workbench.status, self, "_show_status")
        connect_weakly(self.workbench.undo_stack.cleanChanged, self, "_update_title")
        connect_weakly(self.workbench.undo_stack.indexChanged, self, "_edited")
        connect_weakly(self.workbench.selectionChanged, self, "_selection_changed")
        connect_weakly(self.workbench.designChanged, self, "_design_renamed")
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

    def _build_docks(self) -> None:
        self.palette = Palette(self.drop_in_view)
        self.inspector = Inspector(self.workbench, self.editor)
        self.history = QUndoView(self.workbench.undo_stack)
        self.history.setEmptyLabel("(the design as opened)")
        for name, title, widget in (("PaletteDock", "Palette", self.palette),
                                    ("InspectorDock", "Inspector", self.inspector),
                                    ("HistoryDock", "History", self.history)):
            dock = QDockWidget(title, self)
            dock.setObjectName(name)
            dock.setWidget(widget)
            self.docks[name] = dock
        for dock in (PathDock(self.workbench, self), ProblemsDock(self.workbench, self),
                     MatrixDock(self.workbench, self), WhatIfDock(self.workbench, self),
                     DeployDock(self.workbench, self), MeasureDock(self.workbench, self)):
            self.docks[dock.objectName()] = dock
        self.problems_dock = self.docks["ProblemsDock"]
        self.problems_dock.counted.connect(self._problems_counted)
        self.problems_dock.checking.connect(self._problems_checking)
        self.docking = Docking(self, self.docks, self.problems_dock)

    def _action(self, text: str, slot, shortcut=None, checkable: bool = False, checked: bool = False,
                icon: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            keys = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([k if isinstance(k, QKeySequence) else QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if icon:
            self._icons[action] = icon
        if checkable:
            action.setCheckable(True)
            action.setChecked(checked)
            action.toggled.connect(slot)
        else:
            action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self._icons: dict[QAction, str] = {}  # action -> its icon's name, drawn in the theme's text colour
        K = QKeySequence.StandardKey
        stack = self.workbench.undo_stack
        self.a_new = self._action("&New", self.new_design, K.New, icon="new")
        self.a_open = self._action("&Open…", self.open_dialog, K.Open, icon="open")
        self.a_close = self._action("&Close", self.close_design, QKeySequence.keyBindings(K.Close) or ["Ctrl+W"])
        self.a_save = self._action("&Save", self.save, K.Save, icon="save")
        self.a_save_as = self._action("Save &As…", self.save_as, K.SaveAs)
        self.backend_importer = BackendImporter(self, self)
        self.a_import_backend = self._action("Import from &Backend…", self.backend_importer.start)
        self.a_quit = self._action("&Quit", self.close, QKeySequence.keyBindings(K.Quit) or ["Ctrl+Q"])
        self.a_undo = stack.createUndoAction(self, "&Undo")
        self.a_undo.setShortcuts(QKeySequence.keyBindings(K.Undo))
        self._icons[self.a_undo] = "undo"
        self.a_redo = stack.createRedoAction(self, "&Redo")
        redo_keys = QKeySequence.keyBindings(K.Redo)
        if QKeySequence("Ctrl+Y") not in redo_keys:  # what Windows users type, wherever they are
            redo_keys.append(QKeySequence("Ctrl+Y"))
        self.a_redo.setShortcuts(redo_keys)
        self._icons[self.a_redo] = "redo"
        self.addActions([self.a_undo, self.a_redo])
        self.a_cut = self._action("Cu&t", self.cut, K.Cut)
        self.a_copy = self._action("&Copy", self.copy, K.Copy)
        self.a_paste = self._action("&Paste", self.paste, K.Paste)
        self.a_duplicate = self._action("&Duplicate", self.duplicate, "Ctrl+D", icon="duplicate")
        self.a_delete = self._action("&Delete", self.delete_selection,
                                     [QKeySequence(K.Delete), QKeySequence(Qt.Key.Key_Backspace)], icon="delete")
        self.a_select_all = self._action("Select &All", self.select_all, K.SelectAll)
        self.a_find = self._action("&Find\u2026", self.find_bar.open, K.Find)
        self.a_auto_layout = self._action("Auto &Layout", lambda: auto_layout(self.workbench), "Ctrl+Shift+L")
        self.a_minimap = self._action("Over&view Map", self.minimap.set_enabled, "Ctrl+Shift+M", checkable=True,
                                      checked=True)
        self.a_note = self._action("Add &Note", self.add_note, "Ctrl+Shift+N", icon="note")
        self.a_clear_path = self._action("Clear &Path", lambda: self.workbench.highlight_path(None), "Esc")
        self.a_zoom_in = self._action("Zoom &In", self.view.zoom_in, [QKeySequence(K.ZoomIn), "Ctrl+="],
                                      icon="zoom-in")
        self.a_zoom_out = self._action("Zoom &Out", self.view.zoom_out, K.ZoomOut, icon="zoom-out")
        self.a_fit = self._action("&Fit Design", self.view.fit, "Ctrl+0", icon="fit")
        self.a_actual = self._action("Actual &Size", self.view.zoom_actual, "Ctrl+1")
        self.a_grid = self._action("Show &Grid", self.view.set_grid, "Ctrl+'", checkable=True, checked=True)
        self.a_snap = self._action("S&nap to Grid", self._set_snap, "Ctrl+Shift+'", checkable=True, checked=True)
        self.a_reset_layout = self._action("&Reset Layout", self.reset_layout)
        self.a_about = self._action("&About vnetbench", self.show_about)
        self.a_about.setMenuRole(QAction.MenuRole.AboutRole)
        self.a_align = {
            how: self._action(f"Align {label}", lambda _=False, h=how: self.align(h), keys)
            for how, label, keys in (("left", "&Left", "Ctrl+Alt+Left"), ("right", "&Right", "Ctrl+Alt+Right"),
                                     ("top", "&Top", "Ctrl+Alt+Up"), ("bottom", "&Bottom", "Ctrl+Alt+Down"),
                                     ("centre", "&Centres", "Ctrl+Alt+H"), ("middle", "&Middles", "Ctrl+Alt+V"))
        }
        self._draw_icons()

    def _draw_icons(self) -> None:
        """Toolbar icons in the text colour of the theme in use (again when the desktop goes dark)."""
        for action, name in self._icons.items():
            action.setIcon(action_icon(name))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and getattr(self, "_icons", None):
            self._draw_icons()  # the desktop's palette changed (went dark, say): icons and canvas follow it
            self.scene.follow_colour_scheme()

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.a_new, self.a_open])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.examples_menu = file_menu.addMenu("Open &Example")
        self.examples_menu.aboutToShow.connect(self._fill_examples)
        file_menu.addAction(self.a_import_backend)
        file_menu.addSeparator()
        file_menu.addActions([self.a_save, self.a_save_as])
        self.exporter = self._build_exporter()
        file_menu.addMenu(self.exporter.menu())
        file_menu.addSeparator()
        file_menu.addActions([self.a_close, self.a_quit])
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
            # shown from the menu: in front of its tabs, not hidden behind another
            dock.toggleViewAction().triggered.connect(lambda on, d=dock: on and d.raise_())
        view.addSeparator()
        view.addAction(self.a_reset_layout)
        arrange = bar.addMenu("&Arrange")
        arrange.addAction(self.a_auto_layout)
        arrange.addSeparator()
        arrange.addActions(list(self.a_align.values()))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.a_about)
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("MainToolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        for action in (self.a_new, self.a_open, self.a_save, None, self.a_undo, self.a_redo, None, self.a_delete,
                       self.a_duplicate, self.a_note, None, self.a_zoom_in, self.a_zoom_out, self.a_fit):
            if action is None:
                toolbar.addSeparator()
            else:
                toolbar.addAction(action)
                show_shortcut(action)
        self.toolbar = toolbar
        self.a_undo.changed.connect(lambda: show_shortcut(self.a_undo))  # its text names the step to undo
        self.a_redo.changed.connect(lambda: show_shortcut(self.a_redo))

    def _build_status_bar(self) -> None:
        self.problems_badge = QToolButton()
        self.problems_badge.setObjectName("problemsBadge")
        self.problems_badge.setAutoRaise(True)
        self.problems_badge.setText("Checking…")
        self.problems_badge.setToolTip("Show the Problems dock")
        self.problems_badge.clicked.connect(self.show_problems)
        self.statusBar().addPermanentWidget(self.problems_badge)
        self.zoom_label = QLabel()
        self.zoom_label.setMinimumWidth(56)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.statusBar().addPermanentWidget(self.zoom_label)

    def _build_exporter(self):
        """File > Export."""
        from .exporting import Exporter

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

    def example_title(self, path: Path) -> str:
        """The title of a bundled example (its design's name), read once."""
        key = str(path)
        if key not in self._examples:
            try:
                self._examples[key] = load(path).name or path.name
            except TopologyFileError:
                self._examples[key] = path.name.removesuffix(".vnet.yaml")
        return self._examples[key]

    def _fill_examples(self) -> None:
        self.examples_menu.clear()
        for example in self.examples():
            action = self.examples_menu.addAction(self.example_title(example).replace("&", "&&"))
            action.setToolTip(example.name)
            action.triggered.connect(lambda _=False, p=str(example): self.open_example(p))

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for n, path in enumerate(recent_files(), 1):
            name = Path(path).name.replace("&", "&&")
            action = self.recent_menu.addAction(f"&{n} {name}" if n < 10 else f"1&0 {name}" if n == 10 else name)
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _=False, p=path: self.maybe_save() and self.open_file(p))
        if not self.recent_menu.actions():
            self.recent_menu.addAction("(no recent designs)").setEnabled(False)
        self.recent_menu.addSeparator()
        self.recent_menu.addAction("Clear List", clear_recent)

    def _show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def show_refusal(self, message: str, scene_pos: QPointF) -> None:
        """A refused drop or link, said where the mouse is (the status bar has it too)."""
        viewport = self.view.viewport()
        QToolTip.showText(viewport.mapToGlobal(self.view.mapFromScene(scene_pos)), message, viewport,
                          QRect(), 6000)

    # --- the window's layout (gui/docking.py) -------------------------------------------------------------

    def reset_layout(self) -> None:
        """View > Reset Layout: the default docks, the window filling the screen, the design fitted."""
        self.docking.reset()
        QTimer.singleShot(0, self._fit)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.docking.resized()

    def _problems_counted(self, counts: dict[str, int]) -> None:
        self.problem_counts = counts
        self.problems_badge.setText(summary_text(counts) or "✔ No problems")
        self.scene.show_problems(self.problems_dock.problems)  # host tiles in their worst problem's colour

    def _problems_checking(self) -> None:
        self.problem_counts = None
        self.problems_badge.setText("Checking…")

    def show_problems(self) -> None:
        """The status-bar badge: bring the Problems dock to the front."""
        self.problems_dock.show()
        self.problems_dock.raise_()

    # --- title, modified state -------------------------------------------------------------------------

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
        """Save As: starts in the design's folder, or the last folder used."""
        name = self.path or f"{self.workbench.topology.name or 'design'}.vnet.yaml".replace("/", "-")
        return save_path(self, "Save design", name, SAVE_FILTER)

    def ask_open_path(self) -> str | None:
        return open_path(self, "Open design", OPEN_FILTER)

    def tell_error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(message, 15000)
        QMessageBox.warning(self, title, message)

    def about_text(self) -> str:
        plugins = "".join(f"<li>{line}</li>" for line in plugin_versions()) or "<li>none</li>"
        return (f"<h3>vnetbench {__version__}</h3>"
                "<p>A desktop workbench for virtual networks: design, predict, deploy, measure, export.</p>"
                f"<p>Qt {qVersion()} · PySide6 {pyside_version} · Python {platform.python_version()} "
                f"({platform.python_implementation()}) on {platform.system()} {platform.release()}</p>"
                f"<p>Backend plugins:</p><ul>{plugins}</ul>"
                f"<p>Log: {html.escape(str(dirs.log_file()))}<br>"
                f"Crash log: {html.escape(str(dirs.crash_file()))}</p>")

    def show_about(self) -> QMessageBox:
        """Help > About: versions of vnetbench, Qt, Python and every backend plugin (what a bug report needs)."""
        box = QMessageBox(self)
        box.setWindowTitle("About vnetbench")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(self.about_text())
        box.setIconPixmap(self.windowIcon().pixmap(64, 64))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()
        self.about_box = box
        return box

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
        if not self.opener.busy:  # a design being drawn is fitted when it is (``Opener``)
            self.view.fit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            QTimer.singleShot(0, self._first_layout)
        elif self._fit_when_shown:
            QTimer.singleShot(0, self._fit)

    def _first_layout(self) -> None:
        """Once shown: the window inside the screen, the bottom docks a strip (unless the person's own layout
        was restored), then, laid out, the design fitted into the canvas."""
        self.docking.fit_to_screen()
        if not self._layout_restored:
            self.docking.size_bottom(self.docking.front, force=True)
        if self._fit_when_shown:
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

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.maybe_save():
            self.autosave_timer.stop()
            self._finish_autosave()
            self.autosave.discard()
            self.docking.save()
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
        self.scene.place_pasted(ids)
        self.workbench.select(ids)
        return ids

    def duplicate(self) -> list[str]:
        ids = self.editor.duplicate(self.workbench.selection)
        self.scene.place_pasted(ids)
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
        endpoints = selected_endpoints(self.workbench.document.index, ids)
        if len(endpoints) == 2 and len(ids) == 2:
            self.workbench.request_pair(endpoints[0], endpoints[1])


def show_shortcut(action: QAction) -> None:
    """A toolbar button's tooltip names its shortcut: "Save (Ctrl+S)"."""
    if not isValid(action):  # the undo stack renames its actions even while the window is being destroyed
        return
    text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").removesuffix("…")
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    tip = f"{text} ({keys})" if keys else text
    if action.toolTip() != tip:
        action.setToolTip(tip)
