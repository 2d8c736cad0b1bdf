"""Shared set-up for the connect/import/deploy-to-vSphere GUI tests.

The vcsim fixtures are the vSphere backend tests' own (tests/backends/vsphere/conftest.py), loaded under a
unique module name and re-exported, so these tests start vcsim exactly as the backend tests do. ``gui_store``
points every file the GUI or the plugin writes (QSettings, recent servers, certificate pins) into tmp_path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox, QWidget

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

__all__ = ["answer_box", "fill_dialog", "gui_store", "memory_keyring", "vcsim", "vcsim_tools"]


@pytest.fixture
def gui_store(tmp_path, monkeypatch):
    """The GUI's settings file and the plugin's pin file, both under tmp_path."""
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    return {"settings": tmp_path / "data" / "settings.ini", "pins": tmp_path / "data" / "vsphere-pins.json"}


def fill_dialog(dialog, url: str, user: str, password: str = "", remember: bool = False) -> None:
    dialog.fields["url"].setText(url)
    dialog.fields["user"].setText(user)
    dialog.fields["password"].setText(password)
    dialog.remember.setChecked(remember)


def answer_box(parent: QWidget, name: str, button: QMessageBox.StandardButton) -> dict:
    """Answer the message box ``name`` under ``parent`` once it shows: note what it showed, press ``button``.

    A timer does it, since the box runs its own event loop (``exec``) inside the caller's wait. Any other box
    that shows meanwhile is closed and noted under ``unexpected`` (so a wrong question fails the test instead
    of waiting forever). ``seen`` fills in when the box was answered.
    """
    seen: dict = {"unexpected": []}
    timer = QTimer(parent)

    def poll() -> None:
        for box in parent.findChildren(QMessageBox):
            if not box.isVisible():
                continue
            if box.objectName() != name:
                seen["unexpected"].append(box.text())
                box.done(0)
                continue
            seen.update(text=box.text(), icon=box.icon(),
                        buttons={box.standardButton(b) for b in box.buttons()})
            timer.stop()
            box.button(button).click()
            return

    timer.timeout.connect(poll)
    timer.start(20)
    return seen
