"""Driving the designer like a person does (the ``window`` fixture is in conftest.py): mouse drags and clicks on the canvas, typing
into the inspector. Every helper goes through Qt events on the real widgets, not through the editor."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QLineEdit

from vnetbench.gui.mainwindow import MainWindow


def artifacts() -> Path:
    """Where screenshots go for people to look at: $VNETBENCH_ARTIFACTS (CI keeps it), else test-artifacts/."""
    folder = Path(os.environ.get("VNETBENCH_ARTIFACTS", "test-artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def settle(win, qtbot, timeout: int = 15_000) -> None:
    """Wait until the docks' background work (validation, matrix, what-if) has caught up with the edits."""
    from vnetbench.gui.worker import Latest

    qtbot.waitUntil(lambda: not any(r.busy for r in win.findChildren(Latest)), timeout=timeout)


def shoot(win, qtbot, name: str):
    """Save a screenshot of ``win`` as ``name`` in the artifacts folder, once what it shows is current."""
    settle(win, qtbot)
    qtbot.wait(150)
    image = win.grab().toImage()
    path = artifacts() / name
    assert image.save(str(path)), path
    return image


REAL_DISPLAY = bool(os.environ.get("DISPLAY")) and os.environ.get("QT_QPA_PLATFORM", "xcb") not in (
    "offscreen", "minimal")
needs_display = pytest.mark.skipif(not REAL_DISPLAY, reason="a real QDrag needs an X server (run under xvfb-run)")


def viewport_point(win: MainWindow, scene_pos: QPointF) -> QPoint:
    """Where a scene point is on the canvas viewport, scrolling it into view first."""
    view = win.view
    point = view.mapFromScene(scene_pos)
    if not view.viewport().rect().adjusted(10, 10, -10, -10).contains(point):
        view.centerOn(scene_pos)
        point = view.mapFromScene(scene_pos)
    return point


def mouse_drag(win: MainWindow, start: QPointF, end: QPointF,
               modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier, steps: int = 6) -> None:
    """Press at ``start``, move in steps, release at ``end`` (scene points), on the canvas viewport."""
    viewport = win.view.viewport()
    a = viewport_point(win, start)
    b = win.view.mapFromScene(end)
    if not viewport.rect().contains(b):  # both ends must be visible: fit the design first
        win.view.fit()
        a, b = win.view.mapFromScene(start), win.view.mapFromScene(end)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifiers, a)
    for i in range(1, steps + 1):
        p = a + (b - a) * (i / steps)
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifiers, b)


def click(win: MainWindow, pos: QPointF, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mouseClick(win.view.viewport(), Qt.MouseButton.LeftButton, modifiers, viewport_point(win, pos))


def centre(win: MainWindow, oid: str) -> QPointF:
    return win.scene.node_rect(oid).center()


def handle(win: MainWindow, oid: str) -> QPointF:
    return win.scene.handles[oid].scenePos()


def type_into(win: MainWindow, field: str, text: str) -> QLineEdit:
    """Select-all, type ``text`` and press Enter in the inspector's field (as a person edits it)."""
    widget = win.inspector.fields[field]
    assert isinstance(widget, QLineEdit), field
    widget.setFocus()
    widget.selectAll()
    QTest.keyClick(widget, Qt.Key.Key_Backspace)
    QTest.keyClicks(widget, text)
    QTest.keyClick(widget, Qt.Key.Key_Return)
    return widget


def choose(win: MainWindow, field: str, label: str) -> None:
    """Pick an entry of an inspector combo box by its text (through the popup's keyboard path)."""
    combo = win.inspector.fields[field]
    assert isinstance(combo, QComboBox), field
    row = combo.findText(label)
    assert row >= 0, f"{label!r} not offered in {field}: {[combo.itemText(i) for i in range(combo.count())]}"
    combo.setCurrentIndex(row)
    combo.activated.emit(row)


def palette_drag(win, qtbot, key: str, scene_target: QPointF) -> None:
    """Press on a palette entry and move: the list view starts a QDrag (``drag.exec`` runs its own loop);
    timers then move the pointer over the canvas and release it there, which Qt turns into a drop."""
    palette = win.palette
    item = palette.item_for(key)
    palette.scrollToItem(item)
    start = palette.visualItemRect(item).center()
    view = win.view
    target_local = view.mapFromScene(scene_target)
    target_global = view.viewport().mapToGlobal(target_local)
    top = win.windowHandle()
    target_in_window = top.mapFromGlobal(target_global)
    log: list[str] = []

    def move(fraction: float) -> None:
        begin = palette.viewport().mapToGlobal(start)
        point = begin + (target_global - begin) * fraction
        QCursor.setPos(point)
        QTest.mouseMove(top, top.mapFromGlobal(point))
        log.append(f"move {fraction}")

    def release() -> None:
        QCursor.setPos(target_global)
        QTest.mouseMove(top, target_in_window)
        QTest.mouseRelease(top, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target_in_window)
        log.append("release")

    # Timers tied to the window (the context object): they die with it and never fire into a later test.
    for i, fraction in enumerate((0.3, 0.6, 0.9, 1.0)):
        QTimer.singleShot(150 + 120 * i, win, lambda f=fraction: move(f))
    QTimer.singleShot(800, win, release)
    QTimer.singleShot(3000, win, lambda: "release" in log or QTest.keyClick(top, Qt.Key.Key_Escape))
    QCursor.setPos(palette.viewport().mapToGlobal(start))
    QTest.mousePress(palette.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(palette.viewport(), start + QPoint(30, 0))  # starts the drag: exec() returns after the drop
    QTest.mouseMove(palette.viewport(), start + QPoint(60, 5))
    qtbot.waitUntil(lambda: "release" in log, timeout=5000)
    QTest.qWait(100)
