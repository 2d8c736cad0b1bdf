"""The main window's layout: where the docks go, how much room each gets, and keeping the window on screen.

On a small or scaled screen (``small``) the palette is a tab beside the inspector and the bottom strip is
lower, so the canvas keeps at least half the window's width and height.

The first window fills the screen's available area; a window never grows past it, whatever the docks ask
for (their minimum sizes fit a 800x500 logical screen, QT_SCALE_FACTOR=2 on 1600x1000), and its frame is
pulled back inside when a dock pushes it out. The canvas keeps most of the room: the bottom docks are tabbed
in one strip of a fixed share. No content change resizes a dock (problems appearing, a long message): a dock
keeps the size the person gave it, so nothing moves under the mouse. Only the Measure tab, brought to the front
by the person, grows to its least readable height if the strip is lower. The geometry, the arrangement and the
tab in front are remembered in the settings; ``reset`` restores the default.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QMainWindow

from .files import settings
from .panels import ProblemsDock

#: The docks along the bottom, tabbed together, in tab order (Problems first, in front).
BOTTOM_DOCKS = ("ProblemsDock", "MatrixDock", "WhatIfDock", "DeployDock", "MeasureDock")
#: The docks on the right, tabbed together (Inspector in front).
RIGHT_DOCKS = ("InspectorDock", "HistoryDock", "PathDock")
#: Where the window keeps its layout in the settings; a new version forgets layouts saved by older ones.
GEOMETRY_KEY, STATE_KEY, LAYOUT_VERSION = "window/geometry", "window/state", 1
#: The bottom docks' share of the window's height, and the least a tab gets when it comes to the front.
BOTTOM_SHARE, BOTTOM_LEAST = 0.24, 180
#: The measure dock's share when it comes to the front: its plot must be readable at once.
MEASURE_SHARE, MEASURE_LEAST = 0.4, 280
#: Below this logical screen size the palette joins the right-hand tabs, the side column is narrower, and the
#: bottom strip takes at most this share of the height: the canvas keeps at least half the window.
SMALL_SCREEN, SMALL_SIDE, SMALL_BOTTOM_SHARE = (1280, 800), 300, 0.3


class Docking(QObject):
    """Arranges ``docks`` (by object name) in ``window`` and keeps the window's size sensible."""

    def __init__(self, window: QMainWindow, docks: dict[str, QDockWidget], problems: ProblemsDock) -> None:
        super().__init__(window)
        self.window, self.docks, self.problems = window, docks, problems
        self.front: QDockWidget = problems  # the bottom tab in front
        for name in BOTTOM_DOCKS:
            dock = docks[name]
            dock.visibilityChanged.connect(lambda visible, d=dock: visible and self._came_to_front(d))
        self.arrange()

    def available(self) -> QRect:
        """The screen area a window may use (the screen without the desktop's own panels)."""
        screen = self.window.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry()

    def arrange(self) -> None:
        """The default arrangement: palette left; inspector, history and path right; the rest tabbed below."""
        window = self.window
        for dock in self.docks.values():
            dock.setFloating(False)
        small = self.small()
        right = (*RIGHT_DOCKS, "PaletteDock") if small else RIGHT_DOCKS  # one side column: the canvas keeps half
        if not small:
            window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.docks["PaletteDock"])
        for names, area in ((right, Qt.DockWidgetArea.RightDockWidgetArea),
                            (BOTTOM_DOCKS, Qt.DockWidgetArea.BottomDockWidgetArea)):
            group = [self.docks[n] for n in names]
            window.addDockWidget(area, group[0])
            for dock in group[1:]:
                window.tabifyDockWidget(group[0], dock)
            group[0].raise_()
        for dock in self.docks.values():
            dock.setVisible(True)  # Measure too: a tab behind Problems, found without the View menu
        self.problems.raise_()
        self.front = self.problems
        if not small:
            window.resizeDocks([self.docks["PaletteDock"]], [200], Qt.Orientation.Horizontal)
        window.resizeDocks([self.docks[RIGHT_DOCKS[0]]], [SMALL_SIDE if small else 340], Qt.Orientation.Horizontal)
        self.size_bottom(self.problems, force=True)

    def small(self) -> bool:
        """A small or scaled screen (1600x1000 at 150% is 1067x667): the docks tabify into fewer columns."""
        area = self.available()
        return area.width() < SMALL_SCREEN[0] or area.height() < SMALL_SCREEN[1]

    def restore(self) -> bool:
        """The geometry and docks as the person left them (True); the first time, the whole available screen."""
        store = settings()
        geometry, state = store.value(GEOMETRY_KEY), store.value(STATE_KEY)
        restored = bool(geometry) and self.window.restoreGeometry(geometry)
        if restored and state:
            self.window.restoreState(state, LAYOUT_VERSION)
            shown = [self.docks[n] for n in BOTTOM_DOCKS if self.docks[n].isVisible()
                     and not self.docks[n].visibleRegion().isEmpty()]
            self.front = shown[0] if shown else self.front
        if not restored:
            self.place_first()
        self.fit_to_screen()
        return restored

    def place_first(self) -> None:
        """The whole available area, the window's frame (its title bar) included: ``move`` places the frame,
        and ``fit_to_screen`` takes the frame's own size off once the window manager has framed it."""
        area = self.available()
        self.window.resize(area.size())
        self.window.move(area.topLeft())

    def save(self) -> None:
        store = settings()
        store.setValue(GEOMETRY_KEY, self.window.saveGeometry())
        store.setValue(STATE_KEY, self.window.saveState(LAYOUT_VERSION))
        store.sync()

    def reset(self) -> None:
        """The default docks, and the window filling the screen."""
        self.arrange()
        self.place_first()
        self.fit_to_screen()

    def fit_to_screen(self) -> None:
        """Keep the whole window, its frame included, inside the available screen area."""
        window, area = self.window, self.available()
        frame = window.frameGeometry()
        extra_w, extra_h = frame.width() - window.width(), frame.height() - window.height()
        width, height = min(window.width(), area.width() - extra_w), min(window.height(), area.height() - extra_h)
        if (width, height) != (window.width(), window.height()):
            window.resize(width, height)
            frame = window.frameGeometry()
        x = min(max(frame.x(), area.x()), area.right() + 1 - frame.width())
        y = min(max(frame.y(), area.y()), area.bottom() + 1 - frame.height())
        if (x, y) != (frame.x(), frame.y()):
            window.move(x, y)

    def resized(self) -> None:
        """The window's size changed: a dock may have asked for more room than the screen has."""
        frame, area = self.window.frameGeometry(), self.available()
        if frame.width() > area.width() or frame.height() > area.height():
            QTimer.singleShot(0, self.fit_to_screen)

    def _came_to_front(self, dock: QDockWidget) -> None:
        self.front = dock
        QTimer.singleShot(0, lambda: self.size_bottom(self.front))

    def size_bottom(self, front: QDockWidget, force: bool = False) -> None:
        """The bottom strip's height: its share of the window when ``force`` (the default layout), else only
        grown to the least the tab in front needs (the measure plot must be readable at once)."""
        window = self.window
        if window.dockWidgetArea(front) != Qt.DockWidgetArea.BottomDockWidgetArea or front.isFloating():
            return
        share, least = (MEASURE_SHARE, MEASURE_LEAST) if front.objectName() == "MeasureDock" else (
            BOTTOM_SHARE, BOTTOM_LEAST)
        wanted = max(least, int(window.height() * share))
        if self.small():  # the canvas keeps at least half the height; a dock's own minimum still wins
            wanted = min(wanted, int(window.height() * SMALL_BOTTOM_SHARE))
        if force or front.height() < min(wanted, least):
            window.resizeDocks([front], [wanted], Qt.Orientation.Vertical)
