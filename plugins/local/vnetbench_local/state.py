"""What the lab holds for one design, as recorded after each apply (the other half of a plan's diff).

Before an apply starts, the keys it will touch are written as *in flight*; they are cleared only when
their change succeeded. A deploy killed halfway therefore leaves a record saying which resources are in
an unknown state, and the next plan deletes and rebuilds exactly those.

The record is also the *ledger* of namespaces this lab made, since a namespace has no place for an owner
mark that others could not copy: a name is written ``pending`` (with the proof that it did not exist yet)
before it is created, and ``made`` with the namespace's identity (its nsfs device and inode) once it is.
Teardown removes only namespaces the ledger names that still look as created (same identity, this lab's
``mark`` inside), so a name prefix alone never makes a namespace ours.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vnetbench.model.fileformat import atomic_write

PENDING, MADE = "pending", "made"


@dataclass
class LabState:
    path: Path
    design_id: str = ""
    name: str = ""
    resources: dict[str, dict[str, Any]] = field(default_factory=dict)   # key -> kind, spec, object_id
    inflight: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)
    namespaces: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {"state", "id": [dev, ino]}
    mark: str = field(default_factory=lambda: secrets.token_hex(8))      # written inside each namespace
    generation: int = 0                                                   # bumped by every save
    readable: bool = True                                                 # False: the record was damaged

    @classmethod
    def load(cls, path: Path) -> LabState:
        try:
            data = json.loads(path.read_text())
            return cls(path, str(data.get("design_id", "")), str(data.get("name", "")),
                       dict(data.get("resources", {})), set(data.get("inflight", [])), dict(data.get("failed", {})),
                       dict(data.get("namespaces", {})), str(data.get("mark") or secrets.token_hex(8)),
                       int(data.get("generation", 0)))
        except FileNotFoundError:
            return cls(path)
        except (OSError, ValueError, TypeError, AttributeError):
            # An unreadable record proves nothing: nothing is deleted on its word (see ``readable``).
            return cls(path, readable=False)

    @property
    def exists(self) -> bool:
        return self.path.exists()

    def made(self, ns: str, ns_id: tuple[int, int] | None) -> bool:
        """Whether the ledger says this lab made ``ns`` and it is still that namespace (same identity)."""
        entry = self.namespaces.get(ns)
        return bool(entry and entry.get("state") == MADE and ns_id is not None and tuple(entry["id"]) == ns_id)

    def save(self) -> None:
        """Write the record atomically through a temporary file of its own (two writers never share one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.generation += 1
        text = json.dumps({"design_id": self.design_id, "name": self.name, "resources": self.resources,
                           "inflight": sorted(self.inflight), "failed": self.failed, "namespaces": self.namespaces,
                           "mark": self.mark, "generation": self.generation})
        atomic_write(self.path, text)
        self.readable = True

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
