"""The all-pairs matrix of a design being edited, kept current for a worker thread.

The designer edits its document on the GUI thread; the matrix and what-if docks need the matrix after every
burst of edits, without the GUI thread ever waiting on it. ``LiveMatrix`` holds one ``Engine`` over the
document's design. Edits are noted as they happen (the document calls ``edited`` on the editing thread, after
applying them); ``run`` on a worker thread feeds them to the engine in order, so the matrix is updated
incrementally (only the rows and columns an edit can change), and then runs the caller's work on the engine
and matrix while nothing else touches them.

A dual-stack design's docks also mark the pairs the other address family answers differently. ``matrix_of``
gives that family's matrix from a second engine, which follows the same edits, so an edit costs each family an
incremental update rather than the other family a whole matrix (seconds at 10,000 VMs).

The engines read the design while the user may go on editing it. So ``run`` compares the document's
revision before and after: if an edit landed meanwhile, the engines may have read part of it, so they are
rebuilt next time and this result is reported as stale (None), to be asked for again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..model.families import Family
from ..model.document import Change, Document
from .engine import Engine
from .matrix import Matrix

T = TypeVar("T")


class LiveMatrix:
    """A matrix that follows a document: edits are collected and applied to the engine when the matrix is asked for."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.family: Family | None = None     # the address family it predicts (None: the design's first)
        self._engine: Engine | None = None
        self._other: Engine | None = None     # another family's, while ``run``'s work asks for it
        self._asked = False
        self._edits: list[Change] = []
        self._lock = threading.Lock()
        document.subscribe(self.edited)

    def set_family(self, family: Family | None) -> None:
        """Predict another address family from the next ``run`` on (the other family's engine, if it is that
        one, takes over)."""
        with self._lock:
            if family != self.family:
                self.family = family
                other = self._other if self._other is not None and self._other.family == family else None
                self._engine, self._other = other, None

    def edited(self, change: Change) -> None:
        """An edit was applied (called on the editing thread)."""
        self._edits.append(change)

    def run(self, work: Callable[[Engine, Matrix], T], check: Callable[[], Any] | None = None) -> T | None:
        """Bring the matrix up to date and return ``work(engine, matrix)``, or None when the design changed
        meanwhile. ``check`` is called now and then and may raise to stop (then the engines start afresh)."""
        with self._lock:
            revision = self.document.revision
            edits, self._edits = self._edits, []
            try:
                if self._engine is None or any(c.op == "reset" for c in edits):
                    self._engine = Engine(self.document.topology, self.family)
                    self._other = None
                else:
                    for engine in filter(None, (self._engine, self._other)):
                        for change in edits:
                            engine.changed(change)
                matrix = self._engine.matrix(check)
                self._asked = False
                result = work(self._engine, matrix)
            except BaseException:
                self._engine = self._other = None
                raise
            if not self._asked:
                self._other = None     # the design has one family now: its second engine is let go
            if self.document.revision != revision:
                self._engine = self._other = None
                return None
            return result

    def matrix_of(self, family: Family, check: Callable[[], Any] | None = None) -> Matrix:
        """Within ``run``'s work: the matrix of ``family`` (another address family of the same design), from an
        engine of its own kept current by the same edits."""
        if self._other is None or self._other.family != family:
            self._other = Engine(self.document.topology, family)
        self._asked = True
        return self._other.matrix(check)
