"""What validation and lint report: a ``Problem`` names the place in the file, the object, a sentence and the fix."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .text import one_line

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a design: where in the file, which object, what and how to fix it."""

    severity: str  # "error" | "warning"
    path: str  # place in the file, e.g. "vms[2].vnics[0].ip"
    object_id: str | None
    message: str
    hint: str

    def to_dict(self) -> dict[str, Any]:
        """The problem as JSON-ready data (the CLI's --json)."""
        return {"severity": self.severity, "path": self.path, "object_id": self.object_id,
                "message": self.message, "hint": self.hint}


def run_alone(check: Callable[[], object], problems: list[Problem], what: str = "") -> None:
    """Run one check; if it fails, one more problem says which check (``what``, else its name) could not run,
    and the caller goes on: a bug in one check must not hide what every other check found."""
    try:
        check()
    except Exception as exc:  # noqa: BLE001 - any failure of one check, reported instead of raised
        what = what or "the check of " + check.__name__.removeprefix("check_").replace("_", " ")
        problems.append(Problem(ERROR, "", None, one_line(f"{what} could not run ({type(exc).__name__}: {exc})"),
                                "the other checks ran; please report this design as a bug in vnetbench"))
