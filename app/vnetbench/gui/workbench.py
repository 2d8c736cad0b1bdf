"""The shared state of one designer window, the one object every GUI part talks through.

The canvas, the inspector and every dock (problems, path, matrix, what-if, deploy, measure) get the same
``Workbench``: the document being edited, its undo stack, the current selection and the highlighted path.
Parts never reach into each other; they call and listen here, so each can be built and tested alone.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from ..model import Change, Document, Index, Note, Place, Topology
from ..model.families import Family, families_in
from ..predict import Engine
from .offload import loads


#: A captured state of the design; calling it gives a fresh, independent copy (see ``Workbench.snapshot``).
Snapshot = Callable[[], Topology]


def affects_traffic(change: Change) -> bool:
    """False for edits of a drawn position or a note (moving a node, typing in a note): prediction and
    validation ignore those, so the docks need not recompute while the user arranges the canvas."""
    return not isinstance(change.obj, (Place, Note))


class Workbench(QObject):
    #: A model ``Change`` after every edit (set, insert, remove, reset), already applied.
    designChanged = Signal(object)
    #: Object ids selected on the canvas (or in a panel), in selection order.
    selectionChanged = Signal(list)
    #: The prediction to draw on the canvas (a ``vnetbench.predict`` answer), or None to clear it.
    pathHighlighted = Signal(object)
    #: Deploy state per object id (``vnetbench.backends.ObjectState``), for the canvas badges.
    deployStateChanged = Signal(dict)
    #: A pair of endpoint ids (VM or physical host) whose path someone asked to see (the matrix, the
    #: what-if list); the path dock shows it.
    pairRequested = Signal(str, str)
    #: A one-line message for the status bar.
    status = Signal(str)
    #: The deploy dock's backend connection changed (a connected ``Backend``, or None once closed); the measure
    #: and verify docks follow it. May be emitted from a worker thread: connect bound methods (queued).
    backendConnected = Signal(object)

    def __init__(self, topology: Topology, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = Document(topology)
        self.undo_stack = QUndoStack(self)
        self._selection: list[str] = []
        self.path: Any = None
        self._engine: Engine | None = None
        self._pending: list[Change] = []
        self._families: dict[int, tuple[int, Engine]] = {}   # family -> (revision, its predictor)
        self._families_used: tuple[int, list[Family]] | None = None   # (revision, the families the design uses)
        self._snapshot: tuple[int, bytes] | None = None
        self._captured: tuple[Topology, bytes, Index, list[Family] | None] | None = None
        #: The backend the deploy dock is connected to (through its connect dialog), for the measure dock to
        #: probe the guests it deployed without asking for the connection again.
        self.connected_backend: Any = None
        self.document.subscribe(self._changed)

    def set_connected_backend(self, backend: Any) -> None:
        """Share the deploy dock's connection (``connected_backend``) and tell the docks that follow it."""
        if backend is not self.connected_backend:
            self.connected_backend = backend
            self.backendConnected.emit(backend)

    @property
    def topology(self) -> Topology:
        return self.document.topology

    @property
    def engine(self) -> Engine:
        """The incremental predictor over this design, for the GUI thread.

        It is told of the edits since it was last used when it is next used, so a slot on ``designChanged``
        already predicts over the edited design, and edits cost nothing while nobody predicts. Worker threads
        never use it: they build their own from ``snapshot()``.
        """
        if self._engine is None:
            self._engine = Engine(self.topology)
        elif self._pending:
            pending, self._pending = self._pending, []
            try:
                for change in pending:
                    self._engine.changed(change)
            except Exception:  # noqa: BLE001 - an update the engine trips over: start afresh from the design
                self._engine = Engine(self.topology)
        return self._engine

    def families(self) -> list[Family]:
        """The address families the design uses (``families_in``: a walk of every interface, 16 ms at 10,000
        VMs), once per revision however many docks ask."""
        if self._families_used is None or self._families_used[0] != self.document.revision:
            self._families_used = (self.document.revision, families_in(self.topology))
        return self._families_used[1]

    def family_engine(self, family: int) -> Engine:
        """The predictor for one address family (a dual-stack design's other one), compiled anew after edits."""
        found = self._families.get(family)
        if found is None or found[0] != self.document.revision:
            found = self._families[family] = (self.document.revision, Engine(self.topology, 6 if family == 6 else 4))
        return found[1]

    def snapshot(self) -> Snapshot:
        """Capture the design now (cheap, on the GUI thread); calling the result, in a worker thread, gives an
        independent copy that later edits cannot change under the worker."""
        data = self.snapshot_bytes()
        return lambda: loads(data)   # (a frame at a time: the GUI thread is not held up for the whole copy)

    def snapshot_bytes(self) -> bytes:
        """The design now, pickled (``snapshot``), for work in another process."""
        revision = self.document.revision
        if self._snapshot is None or self._snapshot[0] != revision:  # the docks share one capture per state
            self._snapshot = (revision, pickle.dumps(self.topology, pickle.HIGHEST_PROTOCOL))
        return self._snapshot[1]

    def _changed(self, change: Change) -> None:
        if change.op == "reset":
            self._engine, self._pending = None, []
            if self._captured is not None and self._captured[0] is self.topology:
                self._snapshot = (self.document.revision, self._captured[1])
                self.document.adopt_index(self._captured[2])
                if self._captured[3] is not None:
                    self._families_used = (self.document.revision, self._captured[3])
            self._captured = None
        elif self._engine is not None and affects_traffic(change):
            self._pending.append(change)
        self.designChanged.emit(change)

    @property
    def selection(self) -> list[str]:
        return list(self._selection)

    def select(self, ids: list[str]) -> None:
        """Select objects by id (the canvas follows and scrolls to them)."""
        if ids != self._selection:
            self._selection = list(ids)
            self.selectionChanged.emit(list(ids))

    def captured(self, topology: Topology, data: bytes, index: Index, families: list[Family] | None = None) -> None:
        """A capture of ``topology`` (its pickle), its id index and the families it uses, made off the GUI thread
        by the worker that read it: when it becomes this window's design, the docks' first snapshot, the document
        and the family switches use them, rather than pickling, indexing and walking a design of 10,000 VMs on
        the GUI thread (about half a second)."""
        self._captured = (topology, data, index, families)

    def highlight_path(self, prediction: Any) -> None:
        self.path = prediction
        self.pathHighlighted.emit(prediction)

    def request_pair(self, src_id: str, dst_id: str) -> None:
        """Ask the path dock to show the path from ``src_id`` to ``dst_id``."""
        self.pairRequested.emit(src_id, dst_id)

    def replace_design(self, topology: Topology) -> None:
        """A new design in this window (open, revert): clears undo history and selection."""
        self.undo_stack.clear()
        self._selection = []
        self.highlight_path(None)
        self.document.reset(topology)
        self.undo_stack.setClean()
