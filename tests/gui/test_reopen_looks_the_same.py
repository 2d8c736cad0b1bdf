"""A reopened design looks as it did when saved (issue 29): pNIC and port chips stay chips, cables keep their
routes. The canvas is rendered before the save and after the reopen and compared pixel by pixel."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from canvas_helpers import artifacts, needs_display, palette_drag
from vnetbench import resources_dir

pytestmark = [pytest.mark.gui, pytest.mark.xvfb, needs_display]
EXAMPLE = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"


def render(win) -> QImage:
    """The whole design drawn at 100%, nothing selected (a reopened design has no selection)."""
    win.workbench.select([])
    scene = win.scene
    rect = scene.design_rect().adjusted(-20, -20, 20, 20)
    image = QImage(int(rect.width()), int(rect.height()), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    scene.render(painter, QRectF(image.rect()), rect, Qt.AspectRatioMode.IgnoreAspectRatio)
    painter.end()
    return image


def differing(a: QImage, b: QImage) -> int:
    if a.size() != b.size():
        return a.width() * a.height()
    return sum(a.pixel(x, y) != b.pixel(x, y) for y in range(a.height()) for x in range(a.width()))


def test_a_reopened_design_renders_the_same_as_when_it_was_saved(window, qtbot, tmp_path):
    win = window
    win.open_example(str(EXAMPLE))
    qtbot.wait(200)
    host = win.workbench.topology.hosts[0].id
    win.view.fit()
    palette_drag(win, qtbot, "vm", win.scene.node_rect(host).center())  # edited since the automatic layout
    palette_drag(win, qtbot, "physical-switch", win.scene.design_rect().bottomRight())
    path = tmp_path / "edited.vnet.yaml"
    assert win.save_to(str(path))
    qtbot.waitUntil(lambda: not win.saved_layout.running, timeout=10_000)
    qtbot.wait(50)
    saved = render(win)
    chips = sum(h.chip is not None for h in win.scene.handles.values() if h.kind != "vnic")

    assert win.open_file(str(path))
    qtbot.waitUntil(lambda: win.path == str(path.resolve()), timeout=10_000)
    qtbot.wait(200)
    again = render(win)
    saved.save(str(artifacts() / "gui-reopen-saved.png"))
    again.save(str(artifacts() / "gui-reopen-reopened.png"))
    assert sum(h.chip is not None for h in win.scene.handles.values() if h.kind != "vnic") == chips > 0
    assert differing(saved, again) == 0
