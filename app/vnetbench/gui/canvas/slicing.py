"""Work on the GUI thread in slices of a few tens of milliseconds, so the window paints and answers meanwhile.

A long job written as a generator asks ``due()`` as it goes and yields when its slice is used up; whoever drives
it (``Following.sync_gradually``) resumes it on the next turn of the event loop. Slicing by time rather than by
a count of items keeps every turn short whatever the items cost and however loaded the machine is.
"""

from __future__ import annotations

import time


class Slices:
    """A time budget per slice; a budget of 0 never runs out (the whole job in one go)."""

    def __init__(self, budget: float = 0.0) -> None:
        self.budget = budget
        self.started = time.perf_counter()

    def due(self) -> bool:
        """True when this slice's time is used up: yield, then call ``restart`` when resumed."""
        return self.budget > 0 and time.perf_counter() - self.started >= self.budget

    def restart(self) -> None:
        self.started = time.perf_counter()
