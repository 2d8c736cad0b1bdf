"""Starting the designer: ``vnetbench gui [FILE]`` and the ``vnetbench-gui`` launcher both land in ``main``."""

from __future__ import annotations

import argparse
import sys

from PySide6.QtWidgets import QApplication

from .. import __version__, logs
from .collector import GuiThreadCollector
from .mainwindow import MainWindow

#: Seconds a thread computing in Python keeps the interpreter lock (GIL) while another waits for it (Python's
#: default: 5 ms). Every slot, event filter and paint the event loop calls into Python takes the lock anew, so
#: while a worker computes (unpickling a design just read, a dock's first results) each waited up to the whole
#: interval: a turn of the event loop with twenty of them stopped the window for 100-170 ms with the GUI thread
#: nearly idle (``tests/bench/bench_open.py``, 10,000 VMs). At 1 ms they wait a fifth as long.
SWITCH_INTERVAL = 0.001


def share_the_interpreter() -> None:
    """Hand the interpreter lock between threads every ``SWITCH_INTERVAL`` (for the designer's whole process)."""
    sys.setswitchinterval(SWITCH_INTERVAL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vnetbench-gui", description="The vnetbench designer.")
    parser.add_argument("file", nargs="?", help="a design to open (.vnet.yaml)")
    args, qt_args = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    logs.setup()
    logs.install_crash_handlers()
    share_the_interpreter()
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
