"""Selection: the canvas's selected items and the workbench's selection kept the same, in the order made."""

from __future__ import annotations

from .items import HandleItem, NodeItem


class Selecting:
    """The selecting part of ``DesignScene`` (see ``scene``)."""

    def selected_ids(self) -> list[str]:
        """The selected objects; a handle inside a selected node goes with its node (rubber band)."""
        selected = self.selectedItems()
        ids = [getattr(item, "ref", item.oid) for item in selected if hasattr(item, "oid") and not (
            isinstance(item, HandleItem) and item.parentItem().isSelected())]
        return list(dict.fromkeys(ids))

    def _selection_to_workbench(self) -> None:
        """The selection in the order it was made (Qt's own order is arbitrary): click A, Ctrl+click B is A, B,
        so a path or a measurement picked that way goes from A to B."""
        if not self._selecting:
            self._selecting = True
            try:
                now = self.selected_ids()
                kept = [oid for oid in self.workbench.selection if oid in now]
                self.workbench.select(kept + [oid for oid in now if oid not in kept])
            finally:
                self._selecting = False

    def _select_ids(self, ids: list[str]) -> None:
        if self._selecting:
            return
        self._selecting = True
        try:
            wanted = set(ids)
            for item in self.selectedItems():
                if getattr(item, "ref", getattr(item, "oid", None)) not in wanted:
                    item.setSelected(False)
            for oid in ids:
                for item in [self.nodes.get(oid) or self.handles.get(oid) or self.links.get(oid),
                             *self.instances_of(oid)]:
                    if item is not None and not item.isSelected():
                        item.setSelected(True)
        finally:
            self._selecting = False
        shown = [i for i in ids if i in self.nodes or i in self.handles]
        shown += [item.oid for i in ids for item in self.instances_of(i)]
        if shown and not self._syncing:
            self.focusRequested.emit(self.node_rect(self.node_of(shown[0])))

    def instances_of(self, oid: str) -> list[NodeItem]:
        """The items drawn for an object that has one per member host (a vDS proxy, its portgroups, a DLR)."""
        if oid in self.nodes:
            return []
        return [item for item in self.nodes.values() if getattr(item, "ref", None) == oid and item.oid != oid]
