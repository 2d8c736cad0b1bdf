"""The palette: every kind of object, grouped, dragged onto the canvas with a real drag and drop.

Each entry's tooltip says what it is and where it can be dropped. Double-click (or Enter) drops the entry in
the middle of the visible canvas, for keyboard users.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QMimeData, QSize, Qt
from PySide6.QtGui import QColor, QDrag, QFont, QIcon
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QWidget

from .. import resources_dir
from .canvas.items import icon_pixmap
from .canvas.view import PALETTE_MIME
from .catalog import PALETTE

KEY_ROLE = Qt.ItemDataRole.UserRole


def icon(name: str) -> QIcon:
    return QIcon(str(resources_dir() / "icons" / f"{name}.svg"))


class Palette(QListWidget):
    def __init__(self, activate: Callable[[str], None] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.activate = activate
        self.setObjectName("palette")
        self.setIconSize(QSize(26, 26))
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setSpacing(1)
        self.setUniformItemSizes(False)
        heading = QFont()
        heading.setBold(True)
        heading.setPixelSize(11)
        group = None
        for kind in PALETTE:
            if kind.group != group:
                group = kind.group
                head = QListWidgetItem(group.upper())
                head.setFlags(Qt.ItemFlag.NoItemFlags)
                head.setFont(heading)
                head.setForeground(QColor("#6b7280"))
                self.addItem(head)
            item = QListWidgetItem(icon(kind.icon), kind.label)
            item.setData(KEY_ROLE, kind.key)
            item.setToolTip(f"<b>{kind.label}</b>: {kind.what}<br>{kind.where} Double-click to add it in the middle "
                            "of the view.")
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled)
            self.addItem(item)
        self.itemActivated.connect(self._activated)

    def item_for(self, key: str) -> QListWidgetItem:
        return next(self.item(i) for i in range(self.count()) if self.item(i).data(KEY_ROLE) == key)

    def _activated(self, item: QListWidgetItem) -> None:
        key = item.data(KEY_ROLE)
        if key and self.activate:
            self.activate(key)

    def mime_for(self, key: str) -> QMimeData:
        mime = QMimeData()
        mime.setData(PALETTE_MIME, key.encode())
        mime.setText(key)
        return mime

    def startDrag(self, supported_actions) -> None:
        item = self.currentItem()
        key = item.data(KEY_ROLE) if item else None
        if not key:
            return
        kind_icon = next(k.icon for k in PALETTE if k.key == key)
        drag = QDrag(self)
        drag.setMimeData(self.mime_for(key))
        drag.setPixmap(icon_pixmap(kind_icon, 40))
        drag.setHotSpot(drag.pixmap().rect().center())
        drag.exec(Qt.DropAction.CopyAction)
