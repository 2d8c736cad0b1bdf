"""``vnetbench gui``: clear one-line errors instead of a traceback when it cannot open a window."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gui


def run(*args: str, display: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    if display:
        env["QT_QPA_PLATFORM"] = "offscreen"
    return subprocess.run([sys.executable, "-m", "vnetbench", "gui", *args], env=env, capture_output=True,
                          text=True, timeout=60)


def test_without_a_display_it_says_so():
    result = run(display=False)
    assert result.returncode == 3
    assert "no display" in result.stderr and "Traceback" not in result.stderr


def test_a_bad_file_is_reported_before_any_window(tmp_path):
    result = run(str(tmp_path / "missing.vnet.yaml"), display=True)
    assert result.returncode == 2
    assert "missing.vnet.yaml" in result.stderr and "no such file" in result.stderr
