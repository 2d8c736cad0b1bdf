"""Screenshots of what a user sees, written to $VNETBENCH_ARTIFACTS (default test-artifacts/): the main window
with a bundled example, the same with a highlighted path, and a design built on the canvas. Look at them."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect
from PySide6.QtGui import QColor, QImage

from canvas_helpers import shoot
from vnetbench import resources_dir
from vnetbench.gui.colors import verdict_color

pytestmark = pytest.mark.gui


def colours_near(image: QImage, colour: QColor, tolerance: int = 40) -> int:
    """How many sampled pixels are close to ``colour``: proof that something of that colour was drawn."""
    count = 0
    for y in range(0, image.height(), 3):
        for x in range(0, image.width(), 3):
            c = image.pixelColor(x, y)
            if abs(c.red() - colour.red()) + abs(c.green() - colour.green()) + abs(c.blue() - colour.blue()) < tolerance:
                count += 1
    return count


def test_screenshots_of_an_example_and_a_highlighted_path(window, qtbot):
    win = window
    win.open_example(str(resources_dir() / "examples" / "esx-four-cases.vnet.yaml"))
    qtbot.wait(100)
    win.view.fit()
    plain = shoot(win, qtbot, "gui-main-window.png")
    assert plain.width() >= 1200

    win.workbench.select(["vm-web01", "vm-db01"])
    qtbot.waitUntil(lambda: win.scene.overlay.prediction is not None, timeout=5000)
    verdict = str(win.scene.overlay.prediction.verdict)
    assert verdict == "routed-via-physical"
    win.view.fit()
    highlighted = shoot(win, qtbot, "gui-path-highlighted.png")
    colour = QColor(verdict_color(verdict))
    area = QRect(win.view.mapTo(win, QPoint(0, 0)), win.view.size())
    assert colours_near(highlighted.copy(area), colour) > colours_near(plain.copy(area), colour) + 50


def test_screenshot_of_a_design_built_on_an_empty_canvas(window, qtbot):
    win = window
    host = win.view.drop("host-kvm", QPointF(200, 100))
    win.editor.resize(host, 700, 300)
    bridge = win.view.drop("switch-ovs", QPointF(140, 230))
    pg = win.view.drop("portgroup", win.scene.node_rect(bridge).center())
    fw = win.view.drop("vm-firewall", QPointF(420, 90))
    vm = win.view.drop("vm", QPointF(160, 90))
    index = win.workbench.document.index
    win.editor.connect(index.get(vm).vnics[0].id, pg)
    win.editor.connect(index.get(fw).vnics[0].id, pg)
    win.view.drop("physical-switch", QPointF(300, 520))
    win.view.drop("note", QPointF(700, 480))
    win.view.fit()
    image = shoot(win, qtbot, "gui-built-design.png")
    assert not image.isNull()
