"""The main window's edit commands over the selection: cut, copy, paste, duplicate, delete, select all, align,
add a note, the canvas's right-click menu, and the path asked for when two endpoints are picked.

A mixin of ``MainWindow`` (``mainwindow``); each command is one undo step through the ``Editor``.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu

from .endpoints import selected_endpoints
from .window_part import WindowPart

CLIPBOARD_MIME = "application/x-vnetbench-objects"


class WindowEdits(WindowPart):
    """The edit commands of ``MainWindow``."""

    def drop_in_view(self, key: str) -> str | None:
        """Add a palette entry in the middle of the visible canvas (double-click or Enter in the palette)."""
        centre = self.view.mapToScene(self.view.viewport().rect().center())
        return self.view.drop(key, centre)

    def add_note(self) -> str | None:
        return self.drop_in_view("note")

    def context_menu(self, scene_pos) -> QMenu:
        """The right-click menu: the edit actions, and adding the parts an object has (a vNIC, a pNIC...)."""
        item = self.scene._item_at(scene_pos)
        oid = getattr(item, "oid", None)
        if oid is not None and oid not in self.workbench.selection:
            self.workbench.select([oid])
        menu = QMenu(self)
        obj = self.workbench.document.index.get(oid) if oid else None
        for field, label in (("vnics", "Add vNIC"), ("pnics", "Add pNIC"), ("ports", "Add Port"),
                             ("interfaces", "Add Interface"), ("nics", "Add NIC")):
            if obj is not None and isinstance(getattr(obj, field, None), list) and oid in self.scene.nodes:
                menu.addAction(label, lambda o=obj, f=field: self.editor.add_element(o, f))
        if menu.actions():
            menu.addSeparator()
        menu.addActions([self.a_cut, self.a_copy, self.a_paste, self.a_duplicate, self.a_delete])
        menu.addSeparator()
        menu.addActions([self.a_note, self.a_fit])
        if len(self.workbench.selection) > 1:
            align = menu.addMenu("Align")
            align.addActions(list(self.a_align.values()))
        return menu

    def edit_selection(self) -> None:
        """Show the inspector with the focus on the selected object's name (or a note's text)."""
        dock = self.docks["InspectorDock"]
        dock.show()
        dock.raise_()
        field = self.inspector.fields.get("name") or self.inspector.fields.get("text")
        if field is not None:
            field.setFocus()
            field.selectAll()

    def select_all(self) -> None:
        self.workbench.select(list(self.scene.nodes))

    def delete_selection(self) -> None:
        ids = self.workbench.selection
        if not ids:
            return
        model_ids = [i for i in ids if i in self.workbench.document.index]
        drawn = [i for i in ids if i not in self.workbench.document.index]
        stack = self.workbench.undo_stack
        stack.beginMacro(f"Delete {len(ids)} item{'s' if len(ids) != 1 else ''}")
        try:
            if model_ids:
                self.editor.delete(model_ids)
            for key in drawn:
                if key.split(":", 1)[1:] and key.split(":", 1)[1].split(":")[0] in self.workbench.document.index:
                    self.editor.disconnect(key)
        finally:
            stack.endMacro()
        self.workbench.select([])

    def copy(self) -> bool:
        data = self.editor.copy_data(self.workbench.selection)
        if not data["objects"]:
            return False
        mime = QMimeData()
        mime.setData(CLIPBOARD_MIME, json.dumps(data).encode())
        QGuiApplication.clipboard().setMimeData(mime)
        self._paste_count = 0
        self.workbench.status.emit(f"Copied {len(data['objects'])} object(s)")
        return True

    def cut(self) -> None:
        if self.copy():
            self.delete_selection()

    def paste(self) -> list[str]:
        mime = QGuiApplication.clipboard().mimeData()
        if mime is None or not mime.hasFormat(CLIPBOARD_MIME):
            return []
        data = json.loads(bytes(mime.data(CLIPBOARD_MIME).data()).decode())
        self._paste_count += 1
        offset = 40.0 * self._paste_count
        ids = self.editor.paste(data, offset, offset)
        self.scene.place_pasted(ids)
        self.workbench.select(ids)
        return ids

    def duplicate(self) -> list[str]:
        ids = self.editor.duplicate(self.workbench.selection)
        self.scene.place_pasted(ids)
        self.workbench.select(ids)
        return ids

    def align(self, how: str) -> None:
        """Line up the selected objects (and what they hold) on the first one's edge or centre."""
        ids = [i for i in self.workbench.selection if i in self.scene.nodes]
        rects = {i: self.scene.node_rect(i) or self.scene.nodes[i].sceneBoundingRect() for i in ids}
        if len(ids) < 2:
            self.workbench.status.emit("select two or more objects to align")
            return
        lead = rects[ids[0]]
        target = {"left": lead.left(), "right": lead.right(), "top": lead.top(), "bottom": lead.bottom(),
                  "centre": lead.center().x(), "middle": lead.center().y()}[how]
        positions: dict[str, tuple[float, float]] = {}
        for oid in ids:
            r = rects[oid]
            dx = {"left": target - r.left(), "right": target - r.right(), "centre": target - r.center().x()}.get(how, 0)
            dy = {"top": target - r.top(), "bottom": target - r.bottom(), "middle": target - r.center().y()}.get(how, 0)
            if not dx and not dy:
                continue
            for moved in [oid, *self.scene.descendants(oid)]:
                item = self.scene.nodes.get(moved)
                if item is not None and moved not in positions:
                    positions[moved] = (item.pos().x() + dx, item.pos().y() + dy)
        if positions:
            self.editor.move(positions, text=f"Align {how}")

    def _set_snap(self, on: bool) -> None:
        self.scene.snap_to_grid = on

    def _selection_changed(self, ids: list[str]) -> None:
        """Two endpoints picked on the canvas: ask for the path between them."""
        endpoints = selected_endpoints(self.workbench.document.index, ids)
        if len(endpoints) == 2 and len(ids) == 2:
            self.workbench.request_pair(endpoints[0], endpoints[1])
