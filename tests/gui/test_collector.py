"""Cyclic garbage is collected on the GUI thread, never mid-drag, and never by a worker thread."""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QObject

from vnetbench.gui.collector import HELD_INTERVAL_MS, GuiThreadCollector
from vnetbench.gui.worker import Latest, background_hold


class Cycle:
    def __init__(self) -> None:
        self.me = self
        self.qt = QObject()  # a Qt object kept alive only by the cycle


def test_collection_runs_on_the_gui_thread_by_the_usual_thresholds(qtbot):
    # an earlier test's docks may still be computing a design's first results: nothing is collected until then
    qtbot.waitUntil(lambda: not background_hold().catching_up, timeout=60_000)
    collector = GuiThreadCollector(interval_ms=10)
    try:
        assert not gc.isenabled()
        collected_in: list[threading.Thread] = []
        gc.callbacks.append(lambda phase, info: collected_in.append(threading.current_thread())
                            if phase == "stop" else None)
        try:
            worker = threading.Thread(target=lambda: [Cycle() for _ in range(5 * gc.get_threshold()[0])])
            worker.start()
            worker.join()
            assert collected_in == []  # allocating in a worker collected nothing there
            qtbot.waitUntil(lambda: bool(collected_in), timeout=3000)
            assert set(collected_in) == {threading.main_thread()}
        finally:
            gc.callbacks.pop()
    finally:
        collector.deleteLater()
        qtbot.waitUntil(gc.isenabled, timeout=3000)  # automatic collection is back once the collector goes


def test_nothing_is_due_below_the_thresholds(qtbot):
    collector = GuiThreadCollector(interval_ms=60_000)
    try:
        gc.collect()
        assert collector.collect_if_due() is None
    finally:
        collector.deleteLater()
        qtbot.waitUntil(gc.isenabled, timeout=3000)


def _wind_up(qtbot, go: threading.Event, hold, collector: GuiThreadCollector) -> None:  # noqa: ANN001
    """End a test that held the docks back: their runs finish, nothing stays frozen, the collector goes."""
    go.set()
    hold.release()
    gc.unfreeze()
    collector.deleteLater()
    qtbot.waitUntil(gc.isenabled, timeout=3000)


class Result:
    """An object the collector tracks (instances with a __dict__ are), standing for a dock's result."""


def test_the_docks_first_results_after_an_open_are_settled_not_walked(qtbot):
    """After an open, the docks' held-back runs make their results while nothing is collected (a collection
    would walk those young objects only to keep them); once all have reported they are frozen."""
    collector = GuiThreadCollector(interval_ms=60_000)
    hold, go = background_hold(), threading.Event()
    runner = Latest(0)
    results: list[list[Result]] = []
    runner.succeeded.connect(results.append)

    def work(progress, cancel) -> list[Result]:
        go.wait(5)
        return [Result() for _ in range(10)]
    try:
        hold.hold()
        runner.schedule(lambda: work)
        qtbot.wait(20)
        assert not results and not hold.catching_up   # held: the run waits
        hold.release()
        assert hold.catching_up
        maker = threading.Thread(target=lambda: [Cycle() for _ in range(5 * gc.get_threshold()[0])])
        maker.start()
        maker.join()   # all made before the freeze below, or its count would still grow after it
        assert gc.get_count()[0] > gc.get_threshold()[0]
        assert collector.collect_if_due() is None   # due, but the docks are still computing
        with qtbot.waitSignal(hold.caught_up, timeout=5000):
            go.set()
        assert results and not hold.catching_up
        walked = {id(o) for o in gc.get_objects()}   # every generation a collection walks
        assert not any(id(r) in walked for r in results[0])
        assert gc.get_count()[0] < gc.get_threshold()[0] and collector.collect_if_due() is None
    finally:
        _wind_up(qtbot, go, hold, collector)


def test_caught_up_at_once_when_nothing_was_held_back(qtbot):
    hold = background_hold()
    hold.hold()
    with qtbot.waitSignal(hold.caught_up, timeout=1000):
        hold.release()
    assert not hold.catching_up


def test_while_a_design_is_read_the_youngest_generation_is_collected_often(qtbot):
    """While the hold is held (a large design being read), the collector looks every ``HELD_INTERVAL_MS``, so
    each collection walks the few objects the reading made since the last one; then it goes back to its pace."""
    qtbot.waitUntil(lambda: not background_hold().catching_up, timeout=60_000)
    collector = GuiThreadCollector(interval_ms=60_000)
    hold = background_hold()
    try:
        hold.hold()
        maker = threading.Thread(target=lambda: [Cycle() for _ in range(5 * gc.get_threshold()[0])])
        maker.start()
        maker.join()
        assert collector.collect_if_due() == 0
        assert collector._timer.interval() == HELD_INTERVAL_MS < 60_000
        hold.release()
        qtbot.waitUntil(lambda: not hold.catching_up, timeout=5000)
        collector.collect_if_due()
        assert collector._timer.interval() == 60_000
    finally:
        hold.release()
        collector.deleteLater()
        qtbot.waitUntil(gc.isenabled, timeout=3000)


def test_opening_another_design_before_the_docks_caught_up_settles_what_they_made(qtbot):
    """A design opened while the docks' first results for the previous one are still coming in: what they made
    so far is settled (``caught_up``), not walked by the collection at the start of the open."""
    qtbot.waitUntil(lambda: not background_hold().catching_up, timeout=60_000)
    collector = GuiThreadCollector(interval_ms=60_000)
    hold, go = background_hold(), threading.Event()
    runner = Latest(0)
    try:
        hold.hold()
        runner.schedule(lambda: lambda progress, cancel: go.wait(5))
        qtbot.wait(20)
        hold.release()
        assert hold.catching_up
        made = [Result() for _ in range(10)]   # what the docks that did report hold
        with qtbot.waitSignal(hold.caught_up, timeout=1000):
            hold.hold()   # the next open
        walked = {id(o) for o in gc.get_objects()}
        assert not any(id(r) in walked for r in made)
    finally:
        _wind_up(qtbot, go, hold, collector)
