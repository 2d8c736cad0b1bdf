"""A topology being edited: every edit goes through here and is announced to listeners.

The GUI's undo commands call these three primitives (set a field, insert into a list, remove from a list)
and nothing else, so the canvas, the problems panel and the incremental predictor all hear of every change
the same way, without the model knowing about Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .index import Index
from .objects import Topology


@dataclass(frozen=True)
class Change:
    """What changed: ``op`` is ``set``, ``insert``, ``remove`` or ``reset`` (a whole new topology)."""

    op: str
    obj: Any = None
    field: str | None = None
    owner: Any = None
    old: Any = None
    new: Any = None


Listener = Callable[[Change], None]


class Document:
    """The open design and its change notices: every edit goes through it, so views hear of each one."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.revision = 0
        self._listeners: list[Listener] = []
        self._index: Index | None = None

    @property
    def index(self) -> Index:
        """The design's id index, rebuilt lazily after a change."""
        if self._index is None:
            self._index = Index(self.topology)
        return self._index

    def adopt_index(self, index: Index) -> None:
        """Use ``index``, built off the GUI thread for the current design (by the worker that read it), rather
        than building it again when it is first asked for."""
        if index.topology is self.topology:
            self._index = index

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` with each ``Change`` from now on (how views follow the model)."""
        self._listeners.append(listener)

    def _announce(self, change: Change) -> None:
        self.revision += 1
        for listener in list(self._listeners):
            listener(change)

    def set(self, obj: Any, field: str, value: Any) -> Any:
        """Set ``obj.field`` and return the old value (for undo)."""
        old = getattr(obj, field)
        if old == value and type(old) is type(value):
            return old
        setattr(obj, field, value)
        if field == "id":
            self._index = None
        self._announce(Change("set", obj, field, old=old, new=value))
        return old

    def insert(self, owner: Any, field: str, obj: Any, position: int | None = None) -> int:
        """Insert ``obj`` into the list ``owner.field`` (at the end by default); return where it went."""
        items: list = getattr(owner, field)
        position = len(items) if position is None else position
        items.insert(position, obj)
        self._index = None
        self._announce(Change("insert", obj, field, owner=owner))
        return position

    def remove(self, owner: Any, field: str, obj: Any) -> int:
        """Remove ``obj`` from ``owner.field``; return its position (for undo)."""
        items: list = getattr(owner, field)
        position = next(i for i, item in enumerate(items) if item is obj)
        del items[position]
        self._index = None
        self._announce(Change("remove", obj, field, owner=owner))
        return position

    def reset(self, topology: Topology) -> None:
        """Replace the whole design (open, revert, import)."""
        self.topology = topology
        self._index = None
        self._announce(Change("reset", topology))
