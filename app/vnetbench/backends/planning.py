"""What every backend's plan shares: the desired-state record, design tags, and the dependency rebuild.

A backend turns a design into ``Want`` records (one per object it builds, with the keys of the objects it
needs), compares them with what it holds, and then calls ``rebuild_dependents``: whatever needs an object that
is rebuilt is rebuilt with it, and whatever needs a blocked object is blocked too, until nothing grows. A fix
here reaches the local lab, KVM and any third backend alike.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from .contract import Op


def digest(*parts: object) -> str:
    """A stable hex hash of ``parts`` (names and marks must not change between runs or machines)."""
    return hashlib.sha1("\x1f".join(str(p) for p in parts).encode()).hexdigest()


def design_tag(design_id: str) -> str:
    """Six hex digits of the design id's hash: the part of every object's name that says whose it is."""
    return digest(design_id)[:6]


@dataclass(frozen=True)
class Want:
    """One object the design needs. ``spec`` is everything needed to build it, so comparing specs (or their
    ``mark``) says whether what a backend holds is still right; ``deps`` are the keys of the objects it needs;
    ``host`` is the design host it lives on, where a backend spans several."""

    kind: str
    key: str
    spec: dict[str, Any]
    description: str
    object_id: str | None = None
    deps: tuple[str, ...] = ()
    host: str = ""

    @property
    def mark(self) -> str:
        """A short digest of ``spec``: what a backend writes on the object to recognise it unchanged later."""
        return digest(json.dumps(self.spec, sort_keys=True))[:12]


def short(key: str) -> str:
    """The last part of a key (``bridge/ns/br0`` -> ``br0``), for reasons a person reads."""
    return key.split("/")[-1]


def rebuild_dependents(wanted: Mapping[str, Want], ops: dict[str, tuple[Op, str]],
                       blocked: dict[str, str] | None = None,
                       rebuild_on: Collection[Op] = (Op.CREATE, Op.UPDATE)) -> None:
    """Grow ``ops`` and ``blocked`` in place until nothing changes: an object that needs a blocked one is
    blocked, and one that needs an object whose op is in ``rebuild_on`` is rebuilt (``Op.UPDATE``)."""
    blocked = {} if blocked is None else blocked
    grew = True
    while grew:
        grew = False
        for key, want in wanted.items():
            if key in blocked:
                continue
            hit = next((d for d in want.deps if d in blocked), None)
            if hit:
                blocked[key] = f"it needs {short(hit)}, which is blocked"
                grew = True
            elif key not in ops:
                hit = next((d for d in want.deps if d in ops and ops[d][0] in rebuild_on), None)
                if hit:
                    ops[key] = (Op.UPDATE, f"rebuilt with {short(hit)}")
                    grew = True
