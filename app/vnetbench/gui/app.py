"""Starting the designer: ``vnetbench gui [FILE]`` and the ``vnetbench-gui`` launcher both land in ``main``."""

from __future__ import annotations

import argparse
import sys

from PySide6.QtWidgets import QApplication

from .. import __version__, logs
from .collector import GuiThreadCollector
from .mainwindow import MainWindow


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vnetbench-gui", description="The vnetbench designer.")
    parser.add_argument("file", nargs="?", help="a design to open (.vnet.yaml)")
    args, qt_args = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    logs.setup()
    logs.install_crash_handlers()
    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    app.setApplicationName("vnetbench")
    app.setOrganizationName("vnetbench")
    app.setApplicationVersion(__version__)
    GuiThreadCollector(app)  # Qt objects must never be destroyed by a collection in a worker thread
    window = MainWindow()
    window.show()
    restored = window.offer_restore()
    if args.file and not restored:
        window.open_file(args.file)
    return app.exec()
