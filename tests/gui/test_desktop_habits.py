"""Desktop habits: Help > About with versions, File > Close (Ctrl+W), toolbar icons with shortcut tooltips,
numbered Open Recent, dialogs that start in the last folder used, and a canvas that follows a dark desktop."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, qVersion
from PySide6.QtGui import QColor, QKeySequence, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog

from canvas_helpers import shoot
from vnetbench import resources_dir
from vnetbench.gui.colors import DARK, LIGHT, canvas_theme
from vnetbench.gui.dialogs import last_folder
from vnetbench.gui.files import add_recent
from vnetbench import dirs
from vnetbench.model import load, save

pytestmark = pytest.mark.gui
EXAMPLE = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"


def test_help_about_names_the_versions_of_qt_python_and_the_plugins(window, qtbot):
    win = window
    help_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Help")
    assert win.a_about in help_menu.actions()
    win.a_about.trigger()
    qtbot.waitUntil(lambda: win.about_box is not None and win.about_box.isVisible(), timeout=2000)
    text = win.about_box.text()
    assert f"Qt {qVersion()}" in text and f"Python {platform.python_version()}" in text
    assert "local (" in text  # the local lab plugin, with its distribution and version
    assert f"Log: {dirs.log_file()}" in text and f"Crash log: {dirs.crash_file()}" in text   # where a crash went
    win.about_box.close()


def test_file_close_ctrl_w_puts_the_design_away_after_asking(window, qtbot):
    win = window
    win.open_example(str(EXAMPLE))
    win.editor.set(win.workbench.topology, "name", "edited")
    assert win.a_close.shortcut().toString() == "Ctrl+W"
    QTest.keyClick(win, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert win.questions[-1] == "unsaved"  # asked before dropping the edit
    assert not win.workbench.topology.vms and win.path is None
    assert win.windowTitle().startswith("untitled")


def test_toolbar_has_icons_and_tooltips_with_their_shortcuts(window):
    win = window
    actions = [a for a in win.toolbar.actions() if not a.isSeparator()]
    assert len(actions) >= 10
    for action in actions:
        assert not action.icon().isNull(), action.text()
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        assert keys and f"({keys})" in action.toolTip(), (action.text(), action.toolTip())
    assert win.a_save.toolTip() == "Save (Ctrl+S)"
    win.view.drop("host-esxi", win.view.mapToScene(QPoint(200, 200)))
    assert win.a_undo.toolTip().startswith("Undo Add esx01") and win.a_undo.toolTip().endswith("(Ctrl+Z)")


def test_open_recent_is_numbered(window, tmp_path):
    win = window
    paths = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.vnet.yaml"
        save(load(EXAMPLE), path)
        add_recent(str(path))
        paths.append(path)
    win.recent_menu.aboutToShow.emit()
    entries = [a for a in win.recent_menu.actions() if a.text().startswith("&")]
    assert [a.text() for a in entries] == ["&1 c.vnet.yaml", "&2 b.vnet.yaml", "&3 a.vnet.yaml"]
    assert entries[0].toolTip() == str(paths[2].resolve())  # the whole path in the tooltip
    entries[1].trigger()
    assert win.path == str(paths[1].resolve())


def test_open_and_save_dialogs_start_in_the_last_folder_used(window, tmp_path, monkeypatch):
    win = window
    folder = tmp_path / "designs" / "lab"
    folder.mkdir(parents=True)
    path = folder / "lab.vnet.yaml"
    save(load(EXAMPLE), path)
    assert win.open_file(str(path))
    assert last_folder() == folder
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda parent, title, start, filters: (asked.append(start) or
                                                                                                 ("", "")))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda parent, title, start, filters: (asked.append(start) or
                                                                                                 ("", "")))
    win.ask_open_path()
    win.new_design()
    win.ask_save_path()
    win.exporter.ask_and_export("svg")
    assert [Path(a) if i == 0 else Path(a).parent for i, a in enumerate(asked)] == [folder, folder, folder]


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2e33"), (QPalette.ColorRole.WindowText, "#e8ebf1"),
                         (QPalette.ColorRole.Base, "#1f2226"), (QPalette.ColorRole.Text, "#e8ebf1"),
                         (QPalette.ColorRole.Button, "#33373d"), (QPalette.ColorRole.ButtonText, "#e8ebf1"),
                         (QPalette.ColorRole.PlaceholderText, "#8a919c")):
        palette.setColor(role, QColor(colour))
    return palette


def test_the_canvas_follows_a_dark_desktop(window, qtbot):
    win = window
    win.open_example(str(EXAMPLE))
    light = QApplication.palette()
    try:
        QApplication.setPalette(dark_palette())  # what a dark desktop gives the application
        qtbot.waitUntil(lambda: canvas_theme() is DARK, timeout=2000)
        assert win.scene.backgroundBrush().color() == QColor(DARK.background)
        win.view.fit()
        image = shoot(win, qtbot, "gui-dark.png")
        corner = win.view.mapTo(win, QPoint(6, 6))
        assert image.pixelColor(corner).lightness() < 60  # the canvas background is dark
        icon = win.a_save.icon().pixmap(24, 24).toImage()
        assert max(icon.pixelColor(x, y).lightness() for x in range(24) for y in range(24)
                   if icon.pixelColor(x, y).alpha() > 200) > 180  # icons drawn in the light text colour
    finally:
        QApplication.setPalette(light)
    qtbot.waitUntil(lambda: canvas_theme() is LIGHT, timeout=2000)
    assert win.scene.backgroundBrush().color() == QColor(LIGHT.background)
