"""Cyclic garbage collection on the GUI thread only.

Python runs its cycle collector in whichever thread happens to allocate at the moment a threshold is crossed.
When that is a worker (unpickling a design snapshot, say) and the garbage holds Qt objects, their destructors
run off the GUI thread: Qt forbids that, and shiboken deadlocks waiting for the GIL (seen in CI). So while
the designer runs, automatic collection is off and this timer does the same work on the GUI thread, by the
same thresholds. It also waits while a mouse button is down, so a drag never stalls on a full collection
(about 90 ms on a 5,000-object design).

A design of 10,000 VMs is millions of objects, and a full collection walks every one: 0.3 to 1.6 s with the
window frozen, every few tens of seconds, to find nothing (its objects hold no cycles). Once such a design is
drawn, ``settle`` moves what is alive into the permanent generation, so later collections walk only what is
made after it; what was settled is still freed as usual when nothing refers to it any more (a cycle in it
would not be, which is why only what a design's opening makes is settled).

The docks' first results for a new design (its copies, the prediction engine: about 200,000 objects at
10,000 VMs) are made by workers right after it is drawn. Collecting meanwhile walked them while they were
young, 50 to 200 ms at a time, only to keep them; so until every run the opening held back has reported
(``background_hold().caught_up``) nothing is collected, and then they are settled too. Building them leaves
a few hundred objects of cycles, which stay.

While a large design is read, the worker reading it makes some 200,000 objects every quarter of a second, and
the collections of the youngest generation meanwhile each walked them all: 55 to 65 ms at 10,000 VMs, in one
block. So while the hold is held the collector looks every ``HELD_INTERVAL_MS``: the same objects are walked
once each, a few thousand at a time.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication

from .worker import background_hold


#: How often (ms) the collector looks while ``background_hold()`` is held (a design being read and drawn).
HELD_INTERVAL_MS = 40

#: The collectors running now (their ids): ``settle`` freezes only while one runs the collections.
_running: set[int] = set()


class GuiThreadCollector(QObject):
    def __init__(self, parent: QObject | None = None, interval_ms: int = 250) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self.interval_ms = interval_ms
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_if_due)
        self._timer.start()
        self.destroyed.connect(gc.enable)
        _running.add(key := id(self))
        self.destroyed.connect(lambda *_: _running.discard(key))
        background_hold().caught_up.connect(self._caught_up)

    def _caught_up(self) -> None:
        settle()   # the docks' first results for the design just opened

    def collect_if_due(self) -> int | None:
        """Collect the oldest generation whose count passed its threshold; returns it (None: nothing due)."""
        held = background_hold().held
        interval = min(self.interval_ms, HELD_INTERVAL_MS) if held else self.interval_ms
        if self._timer.interval() != interval:
            self._timer.setInterval(interval)
        if QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton or background_hold().catching_up:
            return None   # (the docks' first results for a design just opened are settled once in)
        due = None
        for generation, (count, threshold) in enumerate(zip(gc.get_count(), self.thresholds)):
            if threshold and count > threshold:
                due = generation
            else:
                break
        if due and held:
            due = 0  # a large design is being read or drawn: its objects are settled (``settle``) before
            # the older generations are collected again, so those collections do not walk them
        if due is not None:
            gc.collect(due)
        return due


def settle() -> None:
    """Leave what is alive now (a large design just drawn) out of every later collection (``gc.freeze``), when
    this collector runs them (the designer does; a test's window without one keeps Python's own collection)."""
    if _running:
        gc.freeze()


def release_later(*objects: object) -> None:
    """Drop these references to ``objects`` in a later turn of the event loop: when they were the last ones, the
    objects are freed then, in a turn of their own, rather than within the call that replaced them."""
    QTimer.singleShot(0, lambda: objects)
