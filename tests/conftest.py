"""Settings for the whole suite.

Without a display (no ``xvfb-run``), Qt would abort the whole test process at its first window; the
offscreen platform runs every GUI test but the real-drag ones, which skip and say why.

After each test, cyclic garbage is collected here, on the main thread: left for later, a collection
triggered inside a worker thread of the next test would destroy the previous test's Qt objects off the GUI
thread, which deadlocks in shiboken (the designer itself collects on its GUI thread only, see
``vnetbench.gui.collector``).
"""

import gc
import os
import sys

import pytest

if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _collect_qt_garbage_on_the_main_thread():
    yield
    if "PySide6.QtCore" in sys.modules:
        gc.collect()
