"""Run as a script under a QT_SCALE_FACTOR: open the bundled example with the Measure dock shown, save a
screenshot, and print what the test checks (screen, window frame, pixel ratios) as one JSON line.

    QT_SCALE_FACTOR=1.5 python tests/gui/scaled_window.py OUT.png
"""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QSize
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from vnetbench import resources_dir
from vnetbench.gui.icons import action_icon
from vnetbench.gui.mainwindow import MainWindow


def main(out: str) -> None:
    app = QApplication(sys.argv[:1])
    window = MainWindow()
    window.show()
    QTest.qWaitForWindowExposed(window)
    window.open_example(str(resources_dir() / "examples" / "esx-four-cases.vnet.yaml"))
    QTest.qWait(400)
    first = [window.view.width(), window.view.height()]  # the default layout: the Measure dock waits in View
    window.docks["MeasureDock"].show()
    window.docks["MeasureDock"].raise_()
    QTest.qWait(800)
    image = window.grab().toImage()
    image.save(out)
    ratio = app.primaryScreen().devicePixelRatio()
    icon = action_icon("save").pixmap(QSize(24, 24), ratio)
    frame, area = window.frameGeometry(), window.docking.available()
    print(json.dumps({
        "ratio": ratio, "available": [area.x(), area.y(), area.width(), area.height()],
        "frame": [frame.x(), frame.y(), frame.width(), frame.height()],
        "image": [image.width(), image.height(), image.devicePixelRatio()],
        "icon": [icon.width(), icon.height(), icon.devicePixelRatio()],
        "plot": [window.docks["MeasureDock"].plot.width(), window.docks["MeasureDock"].plot.height()],
        "window": [window.width(), window.height()],
        "canvas": [window.view.width(), window.view.height()],
        "canvas_first": first,
        "measure_dock": [window.docks["MeasureDock"].height(), window.docks["MeasureDock"].minimumSizeHint().height()],
        "form_scrolls": window.docks["MeasureDock"].controls_area.horizontalScrollBar().isVisible(),
        "measure_button": window.docks["MeasureDock"].measure_button.visibleRegion().boundingRect().size()
        == window.docks["MeasureDock"].measure_button.size(),
    }))
    window.workbench.undo_stack.setClean()
    window.close()


if __name__ == "__main__":
    main(sys.argv[1])
