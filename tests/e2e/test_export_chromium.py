"""The HTML report and the SVG diagram load in a real browser (Debian's headless Chromium) and are painted."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from vnetbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FOUR = ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"
CHROMIUM = shutil.which("chromium")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh adds it)")


@pytest.fixture
def artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "export"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _screenshot(page: Path, shot: Path, profile: Path, size: str = "1200,2000") -> None:
    shot.unlink(missing_ok=True)
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
                    f"--user-data-dir={profile}", f"--window-size={size}", f"--screenshot={shot}",
                    page.as_uri()], check=True, timeout=120, capture_output=True)


def _painted(shot: Path) -> dict[str, int]:
    from PySide6.QtGui import QImage

    from vnetbench.export.qt import ensure_app

    ensure_app()
    image = QImage(str(shot))
    assert not image.isNull()
    counts: dict[str, int] = {}
    for y in range(0, image.height(), 4):
        for x in range(0, image.width(), 4):
            name = image.pixelColor(x, y).name()
            counts[name] = counts.get(name, 0) + 1
    return counts


def test_report_html_renders_in_chromium(tmp_path, artifacts):
    page = tmp_path / "report.html"
    assert main(["export", str(FOUR), "-f", "report-html", "-o", str(page), "--pair", "web01", "db01"]) == 0
    shot = artifacts / "four-report-chromium.png"
    _screenshot(page, shot, tmp_path / "profile", "1200,4000")   # the matrix sits below the policy
    counts = _painted(shot)
    # the inlined SVG diagram (host frame fill) and the matrix cells (verdict colours) were painted
    from vnetbench.export import style

    assert counts.get(style.box_colors("host")[0], 0) > 500
    assert counts.get(style.VERDICT_COLORS["routed-via-physical"].lower(), 0) > 20
    assert counts.get("#ffffff", 0) < sum(counts.values()) * 0.98


def test_svg_diagram_renders_in_chromium(tmp_path, artifacts):
    svg = tmp_path / "four.svg"
    assert main(["export", str(FOUR), "-f", "svg", "-o", str(svg), "--path", "web01", "bak01"]) == 0
    shot = artifacts / "four-svg-chromium.png"
    _screenshot(svg, shot, tmp_path / "profile", "1000,700")
    from vnetbench.export import style

    counts = _painted(shot)
    assert counts.get(style.VERDICT_COLORS["via-physical"].lower(), 0) > 50
