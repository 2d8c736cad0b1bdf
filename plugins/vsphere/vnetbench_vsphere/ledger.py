"""The ledger of standard switches and portgroups vnetbench created, per server and design.

Standard switches and portgroups are host configuration, not managed entities: vSphere gives them no
description, custom attribute or tag, so nothing on the server can say who made them, and a name prefix is no
proof (an admin may have named a portgroup ``vnb-1a2b3c-adminpg``). So each deploy writes down what it is
about to create, before the call, and teardown removes only what this ledger names and what still sits where
it was created. An entry whose object never appeared (a kill between the write and the call) is harmless: the
next plan creates the object again, or drops the entry.

One JSON file, ``vsphere-ledger.json`` in the state folder (``~/.local/state/vnetbench``) (setting ``ledger_file``), locked with
``flock`` while it is read and rewritten (atomically) so two deploys never lose each other's entries.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vnetbench import dirs
from vnetbench.backends.contract import BadSetting

from .localfile import read_json, write_json


@dataclass(frozen=True)
class Entry:
    """A standard switch (``vswitch`` empty) or portgroup (on ``vswitch``) on ``host``, by its vSphere name."""

    host: str
    name: str
    vswitch: str = ""

    @property
    def kind(self) -> str:
        return "portgroup" if self.vswitch else "vswitch"


def default_ledger_file() -> Path:
    return dirs.state_dir() / "vsphere-ledger.json"


class Ledger:
    """What vnetbench created on one server (``server``: vCenter's instance UUID, else ``host:port``)."""

    def __init__(self, server: str, path: str | os.PathLike | None = None) -> None:
        self.server = server
        self.path = Path(path) if path else default_ledger_file()

    def _load(self) -> dict[str, Any]:
        data = read_json(self.path, "vSphere ledger", "restore it from a backup; without it vnetbench leaves the "
                         "standard switches and portgroups it made alone")
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise BadSetting(f"the vSphere ledger {self.path} does not hold a JSON object", "restore it from a backup")
        return data

    def _entries(self, data: dict[str, Any]) -> dict[str, set[Entry]]:
        try:
            return {design: {Entry(**item) for item in items}
                    for design, items in (data.get(self.server) or {}).items()}
        except (TypeError, AttributeError):
            raise BadSetting(f"the vSphere ledger {self.path} holds entries vnetbench did not write",
                             "restore it from a backup") from None

    def designs(self) -> dict[str, set[Entry]]:
        """Every design's entries on this server."""
        return self._entries(self._load())

    def owner(self, entry: Entry) -> str | None:
        return next((d for d, items in self.designs().items() if entry in items), None)

    @contextmanager
    def _edit(self) -> Iterator[dict[str, set[Entry]]]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            data = self._load()
            designs = self._entries(data)
            yield designs
            server = {d: sorted((asdict(e) for e in items), key=lambda e: (e["host"], e["name"]))
                      for d, items in sorted(designs.items()) if items}
            if server:
                data[self.server] = server
            else:
                data.pop(self.server, None)
            write_json(self.path, data)

    def add(self, design_id: str, entry: Entry) -> None:
        with self._edit() as designs:
            designs.setdefault(design_id, set()).add(entry)

    def remove(self, entry: Entry) -> None:
        with self._edit() as designs:
            for items in designs.values():
                items.discard(entry)
