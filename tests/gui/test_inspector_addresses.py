"""The inspector's address fields (issue 29): a full IPv4 address and its prefix fit, at 100% and at 150%."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from canvas_helpers import artifacts

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("scale", ["1", "1.5"])
def test_a_full_ipv4_address_and_prefix_fit_their_fields(scale, tmp_path):
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X server (run under xvfb-run)")
    out = artifacts() / f"inspector-address-{scale}.png"
    env = {**os.environ, "QT_SCALE_FACTOR": scale, "VNETBENCH_DATA_DIR": str(tmp_path / "data")}
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("address_fields_window.py")), str(out)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["ratio"] == pytest.approx(float(scale))
    for field in ("address", "gateway", "prefix"):  # 255.255.255.255, and /32, shown whole without scrolling
        assert facts[field]["area"] >= facts[field]["text"], (field, facts)
        assert facts[field]["unclipped"], (field, facts)
    assert not facts["sideways_scroll"], facts  # the inspector fits its dock: nothing hides to the right
