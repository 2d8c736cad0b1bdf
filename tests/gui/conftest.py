"""Fixtures every GUI test may use, found by pytest without an import (an imported fixture is a name the
test module redefines as an argument, which pyflakes rightly reports).

- ``data_dir``: the per-user data folder, under tmp_path; ``window``: a shown, settled main window whose
  questions to the user are recorded in ``win.questions`` instead of shown;
- ``vcsim``, ``vcsim_tools``, ``memory_keyring``: the vSphere backend tests' own (tests/backends/vsphere/
  conftest.py), loaded under a unique module name, so these tests start vcsim exactly as the backend tests do;
- ``gui_store``: every file the GUI or the plugin writes (QSettings, recent servers, certificate pins) under
  tmp_path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from vnetbench.gui.mainwindow import MainWindow

VSPHERE_TESTS = Path(__file__).resolve().parents[1] / "backends" / "vsphere"
if str(VSPHERE_TESTS) not in sys.path:
    sys.path.insert(0, str(VSPHERE_TESTS))

_spec = importlib.util.spec_from_file_location("vsphere_test_fixtures", VSPHERE_TESTS / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)
vcsim_tools = _fixtures.vcsim_tools
vcsim = _fixtures.vcsim
memory_keyring = _fixtures.memory_keyring


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "userdata"
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def window(qtbot, data_dir):
    win = MainWindow()
    qtbot.addWidget(win)
    win.questions = []
    win.ask_unsaved = lambda: win.questions.append("unsaved") or QMessageBox.StandardButton.Discard
    win.ask_restore = lambda saved: win.questions.append("restore") or False
    win.tell_error = lambda title, message: win.questions.append(f"{title}: {message}")
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()  # shortcuts (a window-wide context) need the active window
    qtbot.waitUntil(win.isActiveWindow, timeout=3000)
    qtbot.waitUntil(lambda: win.problem_counts is not None, timeout=5000)  # the docks have settled
    qtbot.wait(20)
    yield win
    win.close()


@pytest.fixture
def gui_store(tmp_path, monkeypatch):
    """The GUI's settings file and the plugin's pin file, both under tmp_path."""
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    return {"settings": tmp_path / "data" / "settings.ini", "pins": tmp_path / "data" / "vsphere-pins.json"}
