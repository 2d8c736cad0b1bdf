"""Cyclic garbage is collected on the GUI thread, never mid-drag, and never by a worker thread."""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QObject

from vnetbench.gui.collector import GuiThreadCollector


class Cycle:
    def __init__(self) -> None:
        self.me = self
        self.qt = QObject()  # a Qt object kept alive only by the cycle


def test_collection_runs_on_the_gui_thread_by_the_usual_thresholds(qtbot):
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
