"""The shared state of one designer window, the one object every GUI part talks through.

The canvas, the inspector and every dock (problems, path, matrix, what-if, deploy, measure) get the same
``Workbench``: the document being edited, its undo stack, the current selection and the highlighted path.
Parts never reach into each other; they call and listen here, so each can be built and tested alone.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from ..model import Change, Document, Topology


class Workbench(QObject):
    #: A model ``Change`` after every edit (set, insert, remove, reset), already applied.
    designChanged = Signal(object)
    #: Object ids selected on the canvas (or in a panel), in selection order.
    selectionChanged = Signal(list)
    #: The prediction to draw on the canvas (a ``vnetbench.predict`` answer), or None to clear it.
    pathHighlighted = Signal(object)
    #: Deploy state per object id (``vnetbench.backends.ObjectState``), for the canvas badges.
    deployStateChanged = Signal(dict)
    #: A one-line message for the status bar.
    status = Signal(str)

    def __init__(self, topology: Topology, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = Document(topology)
        self.undo_stack = QUndoStack(self)
        self._selection: list[str] = []
        self.path: Any = None
        self.document.subscribe(self.designChanged.emit)

    @property
    def topology(self) -> Topology:
        return self.document.topology

    @property
    def selection(self) -> list[str]:
        return list(self._selection)

    def select(self, ids: list[str]) -> None:
        """Select objects by id (the canvas follows and scrolls to them)."""
        if ids != self._selection:
            self._selection = list(ids)
            self.selectionChanged.emit(list(ids))

    def highlight_path(self, prediction: Any) -> None:
        self.path = prediction
        self.pathHighlighted.emit(prediction)

    def replace_design(self, topology: Topology) -> None:
        """A new design in this window (open, revert): clears undo history and selection."""
        self.undo_stack.clear()
        self._selection = []
        self.highlight_path(None)
        self.document.reset(topology)
        self.undo_stack.setClean()
