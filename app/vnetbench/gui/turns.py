"""Calls that each take a turn of the event loop of their own.

Qt runs every zero timer that is due in one go, with no input, paint or other timer between them: parts that
each put work off to "a later turn" (the endpoint pickers listing a new design, the docks' worker threads
starting) still ran back to back, and with the drawing's slice of the same turn they stopped the window for
100 ms. ``in_turn`` queues a call; the queue runs one call a turn, in order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QTimer

_queue: deque[Callable[[], object]] = deque()


def in_turn(call: Callable[[], object]) -> None:
    """Run ``call`` on a later turn of the event loop, after the calls queued before it, one a turn."""
    _queue.append(call)
    if len(_queue) == 1:
        QTimer.singleShot(0, _next)


def _next() -> None:
    try:
        _queue[0]()
    finally:
        _queue.popleft()
        if _queue:
            QTimer.singleShot(0, _next)
