"""Every bundled example's text diagrams render in the real renderers a reader would use: Mermaid through
mermaid-cli (driving Debian's chromium), DOT through Graphviz, and draw.io XML checks against its schema.

``scripts/setup.sh test`` installs mermaid-cli into ``.venv/node`` (pinned by ``tests/render/package-lock.json``);
without it, or without chromium or Graphviz, the tests skip here and fail under CI=1, where the setup ran.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml"))
MMDC = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "mmdc"
CHROMIUM = shutil.which("chromium")
DRAWIO_XSD = ROOT / "tests" / "data" / "drawio-mxfile.xsd"
#: Debian's chromium, headless, with nothing that calls home; puppeteer never downloads a browser of its own.
PUPPETEER = {"executablePath": CHROMIUM or "/usr/bin/chromium",
             "args": ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync", "--no-first-run"]}


def _need(ok: bool, what: str) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"{what} is missing: scripts/setup.sh test installs it")
        pytest.skip(f"{what} is not installed (scripts/setup.sh test installs it)")


def _export(example: Path, fmt: str, out: Path) -> Path:
    assert main(["export", str(example), "--format", fmt, "-o", str(out)]) == 0
    return out


@pytest.fixture
def artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "render"
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_examples_are_found():
    assert len(EXAMPLES) >= 8


def _mmdc(source: Path, out: Path, work: Path) -> subprocess.CompletedProcess:
    config = work / "puppeteer.json"
    config.write_text(json.dumps(PUPPETEER))
    env = os.environ | {"PUPPETEER_SKIP_DOWNLOAD": "1", "HOME": str(work)}
    return subprocess.run([str(MMDC), "-q", "-p", str(config), "-i", str(source), "-o", str(out)],
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def mermaid_svgs(tmp_path_factory) -> dict[Path, Path]:
    """Every example's Mermaid export drawn by one mermaid-cli run: a Markdown file with one mermaid block an
    example, one SVG a block, so Chromium starts once rather than once an example. Empty where that run
    failed: each test then draws its own example alone, to name the one refused."""
    _need(MMDC.exists(), "mermaid-cli (.venv/node)")
    _need(CHROMIUM is not None, "chromium")
    work = tmp_path_factory.mktemp("mermaid")
    blocks = [_export(example, "mermaid", work / f"{n}.mmd").read_text(encoding="utf-8")
              for n, example in enumerate(EXAMPLES)]
    page = work / "examples.md"
    page.write_text("".join(f"```mermaid\n{block.rstrip()}\n```\n\n" for block in blocks), encoding="utf-8")
    if _mmdc(page, work / "drawn.md", work).returncode != 0:
        return {}
    return {example: work / f"drawn-{n}.svg" for n, example in enumerate(EXAMPLES, start=1)}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name.removesuffix(".vnet.yaml"))
def test_mermaid_renders_in_mermaid_cli(example, mermaid_svgs, tmp_path, artifacts):
    svg = artifacts / (example.name.removesuffix(".vnet.yaml") + "-mermaid.svg")
    svg.unlink(missing_ok=True)
    if example in mermaid_svgs:
        shutil.copy(mermaid_svgs[example], svg)
    else:
        proc = _mmdc(_export(example, "mermaid", tmp_path / "d.mmd"), svg, tmp_path)
        assert proc.returncode == 0, f"mermaid-cli refused {example.name}:\n{proc.stderr[-3000:]}"
    root = ET.parse(svg).getroot()
    text = "".join(root.itertext())
    # the title from the front matter and every VM's name were drawn, not an error diagram
    from vnetbench.model import load

    topology = load(example)
    assert topology.name in text
    for vm in topology.vms:
        assert vm.name in text
    assert "Syntax error" not in text


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name.removesuffix(".vnet.yaml"))
def test_dot_renders_in_graphviz(example, tmp_path):
    _need(shutil.which("dot") is not None, "Graphviz (dot)")
    source = _export(example, "dot", tmp_path / "d.dot")
    proc = subprocess.run(["dot", "-Tsvg", str(source)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr and "Error" not in proc.stderr, proc.stderr
    root = ET.fromstring(proc.stdout)
    assert root.tag.endswith("svg")
    assert len([e for e in root.iter() if e.tag.endswith("}g") and e.get("class") == "node"]) > 1


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name.removesuffix(".vnet.yaml"))
def test_drawio_matches_the_mxfile_schema(example, tmp_path):
    lxml = pytest.importorskip("lxml.etree")
    schema = lxml.XMLSchema(lxml.parse(str(DRAWIO_XSD)))
    document = lxml.parse(str(_export(example, "drawio", tmp_path / "d.drawio")))
    assert schema.validate(document), "\n".join(str(e) for e in schema.error_log)


def test_the_drawio_schema_can_fail(tmp_path):
    """A cell whose parent does not exist, and a geometry without its role, are refused."""
    lxml = pytest.importorskip("lxml.etree")
    schema = lxml.XMLSchema(lxml.parse(str(DRAWIO_XSD)))
    bad = lxml.fromstring(
        '<mxfile><diagram id="d"><mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
        '<mxCell id="2" parent="nowhere" vertex="1"><mxGeometry x="1" y="2" width="3" height="4"/></mxCell>'
        '</root></mxGraphModel></diagram></mxfile>')
    assert not schema.validate(bad)
    messages = " ".join(str(e) for e in schema.error_log)
    assert "nowhere" in messages and "'as'" in messages


def test_report_html_and_pdf_pages_for_documentation(tmp_path, artifacts):
    """The report of the VFW design with a sweep, a round trip and a throughput run (seed 000's VFW path),
    as a browser shows its HTML and as its PDF pages print: both saved as PNGs to look at."""
    _need(CHROMIUM is not None, "chromium")
    _need(shutil.which("pdftoppm") is not None, "poppler-utils (pdftoppm)")
    import sys

    from PySide6.QtGui import QImage

    from vnetbench.export import Options, report_html, report_pdf
    from vnetbench.export import style
    from vnetbench.export.qt import ensure_app
    from vnetbench.measure.result import Sample
    from vnetbench.measure.spec import TestKind

    sys.path.insert(0, str(ROOT / "tests" / "unit"))
    from test_export_charts import DESIGN, _run, rr_run, sweep_run

    from vnetbench.model import load

    vfw = ("src-def", "dst-def")
    runs = [sweep_run(vfw), rr_run(vfw),
            _run(TestKind.THROUGHPUT, [Sample(0.5 * i, 330 - 9 * (i % 3), "throughput") for i in range(1, 11)],
                 {"throughput_mbps": 321.0}, ("def-a", "def-b"))]
    for n, run in enumerate(runs, start=1):
        run.id = n
    t = load(DESIGN)
    options = Options(pairs=[vfw, ("def-a", "def-b")], runs=runs)
    page = report_html(t, artifacts / "report.html", options).path
    for old in artifacts.glob("report-*.png"):
        old.unlink()
    shot = artifacts / "report-html.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1100,9000", f"--screenshot={shot}",
                    page.as_uri()], check=True, timeout=120, capture_output=True)
    ensure_app()
    image = QImage(str(shot))
    # cut the screenshot after the page's last painted row, then into screen-sized parts to look at
    last = max(y for y in range(0, image.height(), 8)
               if any(image.pixelColor(x, y).name() != "#ffffff" for x in range(0, image.width(), 8)))
    assert last < image.height() - 100, "the window was too short for the whole report"
    colours = {image.pixelColor(x, y).name() for y in range(0, last, 3) for x in range(0, image.width(), 3)}
    for verdict in ("in-host", "in-host-routed", "unreachable"):
        assert style.VERDICT_COLORS[verdict].lower() in colours
    for n, top in enumerate(range(0, last, 1800), start=1):
        assert image.copy(0, top, image.width(), min(1800, last + 20 - top)).save(
            str(artifacts / f"report-html-{n}.png"))
    shot.unlink()
    pdf = report_pdf(t, artifacts / "report.pdf", options)
    subprocess.run(["pdftoppm", "-png", "-r", "80", str(pdf.path), str(artifacts / "report-pdf")], check=True,
                   timeout=120)
    pages = sorted(artifacts.glob("report-pdf-*.png"))
    assert len(pages) == pdf.pages > 3
    first = QImage(str(pages[0]))
    assert sum(first.pixelColor(x, y).name() != "#ffffff" for y in range(0, first.height(), 6)
               for x in range(0, first.width(), 6)) > 500
