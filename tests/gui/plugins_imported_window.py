"""Run as a script: open the main window with every dock, let it settle, and print as one JSON line which
backend plugins (and their SDKs) were imported: only the one in use should be.

    python tests/gui/plugins_imported_window.py
"""

from __future__ import annotations

import json
import sys

from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from vnetbench.gui.mainwindow import MainWindow

WATCHED = ("vnetbench_local", "vnetbench_vsphere", "vnetbench_kvm", "pyVmomi", "libvirt")


def main() -> None:
    app = QApplication(sys.argv[:1])
    window = MainWindow()
    window.show()
    QTest.qWaitForWindowExposed(window)
    for dock in window.docks.values():  # every dock shown once, as a person looking around would
        dock.show()
        dock.raise_()
        QTest.qWait(50)
    QTest.qWait(300)
    print(json.dumps(sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in WATCHED})))
    window.close()
    app.quit()


if __name__ == "__main__":
    main()
