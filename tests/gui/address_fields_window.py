"""Run as a script under a QT_SCALE_FACTOR: open the bundled example, select web01, and print as one JSON line whether
the inspector's address fields have room for the longest IPv4 address and a /32 prefix; save a screenshot of the
inspector.

    QT_SCALE_FACTOR=1.5 python tests/gui/address_fields_window.py OUT.png
"""

from __future__ import annotations

import json
import sys

from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QStyle, QStyleOptionFrame

from vnetbench import resources_dir
from vnetbench.gui.editors import WIDEST_IPV4
from vnetbench.gui.mainwindow import MainWindow


def shown(edit: QLineEdit, text: str) -> dict[str, int | bool]:
    """How wide ``text`` is, how wide the field's text area is (inside its frame and margins), and whether the
    field is drawn whole (not cut by the dock or its scroll area)."""
    option = QStyleOptionFrame()
    edit.initStyleOption(option)
    contents = edit.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, edit)
    margins = edit.textMargins()
    area = contents.width() - margins.left() - margins.right() - 4  # QLineEdit keeps 2 px each side
    return {"text": edit.fontMetrics().horizontalAdvance(text), "area": area,
            "unclipped": edit.visibleRegion().boundingRect().size() == edit.size()}


def main(out: str) -> None:
    app = QApplication(sys.argv[:1])
    window = MainWindow()
    window.show()
    QTest.qWaitForWindowExposed(window)
    window.open_example(str(resources_dir() / "examples" / "esx-four-cases.vnet.yaml"))
    QTest.qWait(400)
    web01 = next(vm for vm in window.workbench.topology.vms if vm.name == "web01")
    window.workbench.select([web01.id])
    window.edit_selection()
    QTest.qWait(400)
    fields = window.inspector.fields
    address, gateway, prefix = fields["vnics.0.ip"], fields["vnics.0.gateway"], fields["vnics.0.prefix"]
    window.inspector.scroll.ensureWidgetVisible(address)
    QTest.qWait(200)
    window.docks["InspectorDock"].grab().save(out)
    print(json.dumps({"ratio": app.primaryScreen().devicePixelRatio(),
                      "address": shown(address, WIDEST_IPV4), "gateway": shown(gateway, WIDEST_IPV4),
                      "prefix": shown(prefix.lineEdit(), "32"),
                      "sideways_scroll": window.inspector.scroll.horizontalScrollBar().isVisible()}))
    window.workbench.undo_stack.setClean()
    window.close()


if __name__ == "__main__":
    main(sys.argv[1])
