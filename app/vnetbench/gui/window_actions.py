"""The main window's actions with their standard shortcuts, the menus and toolbar that show them, the status bar's
permanent widgets, and the File menu's lists that fill when opened (Open Recent, Open Example).

A mixin of ``MainWindow`` (``mainwindow``): the slots it connects live in the window's other parts.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QToolButton
from shiboken6 import isValid

from .. import resources_dir
from ..model import TopologyFileError, load
from .backend_import import BackendImporter
from .canvas.layout import auto_layout
from .files import clear_recent, recent_files
from .icons import action_icon
from .window_part import WindowPart


class WindowActions(WindowPart):
    """The actions, menus, toolbar and status bar of ``MainWindow``."""

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


def show_shortcut(action: QAction) -> None:
    """A toolbar button's tooltip names its shortcut: "Save (Ctrl+S)"."""
    if not isValid(action):  # the undo stack renames its actions even while the window is being destroyed
        return
    text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").removesuffix("…")
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    tip = f"{text} ({keys})" if keys else text
    if action.toolTip() != tip:
        action.setToolTip(tip)
