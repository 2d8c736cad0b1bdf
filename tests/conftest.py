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
``vnetbench.gui.collector``). What is still alive after that collection is frozen (``gc.freeze``, as the
designer's ``settle`` does): walking the whole heap after every test cost 0.1 to 0.4 s a test, most of the
time of the short ones; frozen, each collection walks only what the last test made. At the end of each module
the heap is unfrozen and collected once, so the cycles of module fixtures are still freed.

Run on several processes (``--dist loadgroup --no-loadscope-reorder``, as ``scripts/run-tests.sh`` does),
each worker gets its own X server, the tests that touch the host's network share one worker, and the longest
groups start first: see ``workers.py``. Every process keeps its user files (settings, autosave, results) in a
folder of its own unless the caller set one.
"""

import atexit
import gc
import os
import shutil
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, settings

import workers

if workers.is_worker():
    display = workers.start_own_display()
    if display:
        os.environ["DISPLAY"] = display
if not os.environ.get("VNETBENCH_DATA_DIR"):
    os.environ["VNETBENCH_DATA_DIR"] = _data = tempfile.mkdtemp(prefix="vnb-test-data-")
    atexit.register(shutil.rmtree, _data, ignore_errors=True)
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
        gc.freeze()   # what outlived the test: the next test's collection walks only what that test made


@pytest.fixture(scope="module", autouse=True)
def _collect_the_modules_garbage():
    """The module's own fixtures are gone by now: their cycles are looked at once more, then left out again."""
    yield
    gc.unfreeze()
    if "PySide6.QtCore" in sys.modules:
        gc.collect()
        gc.freeze()


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.xdist_group(workers.group_of(item)))
    if workers.is_worker():   # xdist starts the groups in this order (run-tests.sh: --no-loadscope-reorder)
        items[:] = workers.in_schedule_order(items)


def pytest_unconfigure(config):
    workers.stop_own_display()
