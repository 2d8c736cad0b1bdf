"""What the lab holds for one design, as recorded after each apply (the other half of a plan's diff).

Before an apply starts, the keys it will touch are written as *in flight*; they are cleared only when
their change succeeded. A deploy killed halfway therefore leaves a record saying which resources are in
an unknown state, and the next plan deletes and rebuilds exactly those (plus namespaces the kernel has
that the record does not know, which it deletes).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class LabState:
    path: Path
    design_id: str = ""
    name: str = ""
    resources: dict[str, dict[str, Any]] = field(default_factory=dict)   # key -> kind, spec, object_id
    inflight: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> LabState:
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return cls(path)
        except (OSError, ValueError):
            # An unreadable record: trust nothing, so the plan rebuilds everything the kernel shows.
            return cls(path)
        return cls(path, data.get("design_id", ""), data.get("name", ""), dict(data.get("resources", {})),
                   set(data.get("inflight", [])), dict(data.get("failed", {})))

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as f:
            json.dump({"design_id": self.design_id, "name": self.name, "resources": self.resources,
                       "inflight": sorted(self.inflight), "failed": self.failed}, f)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(self.path)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
