"""Settings for the whole suite.

Without a display (no ``xvfb-run``), Qt would abort the whole test process at its first window; the
offscreen platform runs every GUI test but the real-drag ones, which skip and say why.

Property and fuzz tests run under a hypothesis profile: ``ci`` (the default) gives each test a small budget
so the whole suite fits CI's time; ``pytest --hypothesis-profile=deep`` is the long campaign (the loader fuzz
then throws its 10,000 files), for benchmarks and before a release. A test that weighs its budget against the
others scales it by the loaded profile (see ``test_loader_fuzz.fuzz``).

After each test, cyclic garbage is collected here, on the main thread: left for later, a collection
triggered inside a worker thread of the next test would destroy the previous test's Qt objects off the GUI
thread, which deadlocks in shiboken (the designer itself collects on its GUI thread only, see
``vnetbench.gui.collector``).
"""

import gc
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_QUIET = dict(deadline=None, database=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large, HealthCheck.large_base_example])
settings.register_profile("ci", max_examples=30, **_QUIET)
settings.register_profile("deep", max_examples=1000, **_QUIET)
settings.load_profile("ci")     # --hypothesis-profile=deep loads the other after this


@pytest.fixture(autouse=True)
def _collect_qt_garbage_on_the_main_thread():
    yield
    if "PySide6.QtCore" in sys.modules:
        gc.collect()
