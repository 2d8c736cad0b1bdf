"""The designer's main window: the canvas in the middle, palette and inspector beside it, the docks around.

The window is put together here: the canvas, the docks and how they are wired to the window, the timers, and the
window's own layout events. Each other job is a part of its own:
- ``window_actions``: the actions with their standard shortcuts, menus, toolbar and status bar;
- ``window_files``: the file life cycle (new, open, close, save, save as, autosave, crash restore) and the title;
- ``window_edits``: cut, copy, paste, duplicate, delete, align and the canvas's right-click menu;
- ``window_questions``: what the window asks the person (``ask_*``, which tests answer) and Help > About.
``docking.Docking`` arranges the docks and keeps the window on screen (View > Reset Layout goes back to its
default).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRect, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QIcon
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QMessageBox, QToolTip, QUndoView

from .. import resources_dir
from .canvas.hint import CanvasHint
from .canvas.minimap import Minimap
from .canvas.scene import DesignScene
from .canvas.view import DesignView
from .docking import Docking
from .editing import Editor
from .files import Autosave
from .find import FindBar
from .inspector import Inspector
from .measure import MeasureDock
from .needs import hand_over
from .opening import Opener
from .palette import Palette
from .panels import DeployDock, MatrixDock, PathDock, ProblemsDock, WhatIfDock
from .panels.problems import summary_text
from .signals import connect_weakly
from .wheel import guard_wheel
from .window_actions import WindowActions
from .window_edits import WindowEdits
from .window_files import AUTOSAVE_AFTER_EDIT_MS, AUTOSAVE_INTERVAL_MS, WindowFiles, new_topology
from .window_questions import WindowQuestions
from .worker import Task
from .workbench import Workbench

UNDO_LIMIT = 1000  # steps of history kept: a long session stays bounded in memory


class MainWindow(WindowActions, WindowFiles, WindowEdits, WindowQuestions, QMainWindow):
    """The designer's window; each job is its own part (see the module's docstring)."""

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

    # --- the docks, wired to the window --------------------------------------------------------------------

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
        hand_over(self.workbench, self.docks.values())  # each dock gets what it declared it needs

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

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing asks to save, lets a running autosave finish and remembers the docks' layout."""
        if self.maybe_save():
            self.autosave_timer.stop()
            self._finish_autosave()
            self.autosave.discard()
            self.docking.save()
            event.accept()
        else:
            event.ignore()

