"""What a dock needs from the other docks, declared instead of read: the main window hands each dock what it
declared whenever that becomes available (Spyder's ``on_plugin_available``), so no dock reaches into another
dock's state, and a dock built alone (in a test, say) is given what it needs the same way."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..backends import Backend
from .workbench import Workbench


class UsesConnection:
    """Declared by a dock that works on what the Deploy dock deployed (the measure dock): it is handed the deploy
    dock's connection each time one is made or closed."""

    connection: Backend | None = None

    def connection_available(self, backend: Backend | None) -> None:
        """The deploy dock connected to ``backend``, or closed its connection (None)."""
        self.connection = backend


def hand_over(workbench: Workbench, docks: Iterable[Any]) -> None:
    """Give each dock what it declared, now and whenever it changes."""
    for dock in docks:
        if isinstance(dock, UsesConnection):
            dock.connection_available(workbench.connected_backend)
            workbench.backendConnected.connect(dock.connection_available)  # queued: it may come from a worker
