"""The documentation report: a self-contained HTML file and a PDF with the pages Qt says it printed."""

from __future__ import annotations

import os
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from vnetbench.export import Options, report_html, report_pdf
from vnetbench.measure.context import make_run
from vnetbench.measure.result import Measurement, Sample
from vnetbench.measure.spec import TestKind, TestSpec
from vnetbench.model import load
from vnetbench.model.validate import validate
from vnetbench.predict import predict

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "export-sample.vnet.yaml"
FOUR = ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"


@pytest.fixture
def artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "export"
    path.mkdir(parents=True, exist_ok=True)
    return path


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.headings: list[str] = []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_h2 = tag == "h2"

    def handle_endtag(self, tag):
        self._in_h2 = False if tag == "h2" else self._in_h2

    def handle_data(self, data):
        self.text.append(data)
        if self._in_h2:
            self.headings.append(data.strip())


def _run(topology):
    samples = [Sample(0.5 * i, v) for i, v in enumerate([900.0, 930.0, 915.0], start=1)]
    m = Measurement(TestSpec(TestKind.THROUGHPUT), "iperf3", ["iperf3 -c x"], samples,
                    {"throughput_mbps": 915.0}, 1_700_000_000.0, 1_700_000_002.0)
    return make_run(m, topology, "vm-web01", "vm-bak01", predict(topology, "web01", "bak01"))


def test_html_is_self_contained_and_holds_every_section(tmp_path, artifacts):
    t = load(FOUR)
    out = report_html(t, artifacts / "four-report.html", Options(pairs=[("web01", "db01")], runs=[_run(t)])).path
    page = _Page()
    page.feed(out.read_text())
    assert page.headings == ["Diagram", "Inventory", "Validation", "Verdict matrix", "Paths", "Measured results"]
    images = [attrs["src"] for tag, attrs in page.tags if tag == "img"]
    assert len(images) == 3  # diagram, the path, the run's plot
    assert all(src.startswith("data:image/svg+xml;base64,") for src in images)
    assert not [a for tag, a in page.tags if tag in ("link", "script") or (tag == "a" and "href" in a)]
    text = " ".join(page.text)
    for vm in t.vms:
        assert vm.name in text and vm.vnics[0].ip in text
    for pg in ("VLAN300-A", "VLAN300-Backup", "VLAN 301"):
        assert pg in text
    prediction = predict(t, "web01", "db01")
    for reason in prediction.reasons:
        assert reason in text
    assert "routed-via-physical" in text and "915 Mbit/s" in text and "No problems found." in text


def test_html_lists_validation_problems(tmp_path):
    t = load(SAMPLE)
    problems = validate(t)
    assert problems, "the sample design is meant to carry problems"
    page = _Page()
    page.feed(report_html(t, tmp_path / "r.html").path.read_text())
    text = " ".join(page.text)
    for problem in problems:
        assert problem.path in text and problem.hint in text


def test_pdf_has_the_pages_qt_laid_out_and_renders(tmp_path, artifacts):
    t = load(FOUR)
    done = report_pdf(t, artifacts / "four-report.pdf", Options(runs=[_run(t)]))
    info = subprocess.run(["pdfinfo", str(done.path)], capture_output=True, text=True, check=True).stdout
    pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    assert pages == done.pages and pages >= 3
    assert "A4" in info
    subprocess.run(["pdftoppm", "-png", "-r", "50", str(done.path), str(tmp_path / "page")], check=True, timeout=120)
    rendered = sorted(tmp_path.glob("page-*.png"))
    assert len(rendered) == pages
    subprocess.run(["pdftoppm", "-png", "-r", "70", "-f", "1", "-l", "1", "-singlefile", str(done.path),
                    str(artifacts / "four-report-page1")], check=True, timeout=60)
    text = subprocess.run(["pdftotext", str(done.path), "-"], capture_output=True, text=True, check=True).stdout
    for word in ("Inventory", "Validation", "Verdict matrix", "Paths", "Measured results", "bak01", "10.30.0.41/24"):
        assert word in text
    # the last page is the whole diagram in vector form, on a page of its own size
    last = subprocess.run(["pdfinfo", "-f", str(pages), "-l", str(pages), str(done.path)], capture_output=True,
                          text=True, check=True).stdout
    assert "A4" not in next(line for line in last.splitlines() if line.startswith(f"Page {pages:4d} size"))
    words = subprocess.run(["pdftotext", "-f", str(pages), "-l", str(pages), str(done.path), "-"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert {"esx01", "vSwitch0", "bak01", "core-sw1"} <= set(words)
