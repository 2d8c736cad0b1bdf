"""Plugins are found by their manifests and imported when used (issue 31): the window with all its docks imports
only the backend in use, not pyVmomi or libvirt; a plugin that fails to import is greyed out when chosen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from fake_backend import fake_plugins
from panel_designs import two_vms_one_switch
from vnetbench.backends import Capabilities, PluginInfo
from vnetbench.backends.manifest import CONTRACT_VERSION, Manifest
from vnetbench.gui.panels.deploy import DeployDock
from vnetbench.gui.workbench import Workbench

pytestmark = pytest.mark.gui


def test_the_window_and_its_docks_import_only_the_backend_in_use(tmp_path):
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X server (run under xvfb-run)")
    env = {**os.environ, "VNETBENCH_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("plugins_imported_window.py"))], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert imported == ["vnetbench_local"], imported  # the local lab, chosen by default; no other plugin or SDK


def test_a_plugin_that_fails_to_import_is_greyed_out_when_chosen(qtbot):
    manifest = Manifest("late", "Late plugin", CONTRACT_VERSION, Capabilities(frozenset()))  # read, as discover() reads it
    late = PluginInfo("late", EntryPoint("late", "vnetbench_no_such_plugin:Backend", "vnetbench.backends"), manifest)
    dock = DeployDock(Workbench(two_vms_one_switch()), plugins=[*fake_plugins(), late])
    qtbot.addWidget(dock)
    item = dock.backend_box.model().item(2)
    assert item.isEnabled() and item.text() == "Late plugin" and late.exception is None  # listed, not imported
    dock.backend_box.setCurrentIndex(2)
    assert not item.isEnabled() and "failed to load" in item.text()
    assert "vnetbench_no_such_plugin" in item.toolTip() and "late" in dock.message.text()
    assert dock.info is None  # nothing to plan with
