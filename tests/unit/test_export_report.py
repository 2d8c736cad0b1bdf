"""The documentation report: a self-contained HTML file, and the same HTML printed to PDF by WeasyPrint."""

from __future__ import annotations

import os
import re
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
    assert page.headings == ["Contents", "Diagram", "Inventory", "Security policy", "Routing", "Validation",
                             "Verdict matrix", "Paths", "Measured results"]
    images = [attrs["src"] for tag, attrs in page.tags if tag == "img"]
    assert len(images) == 3  # diagram, the path, the run's plot
    assert all(src.startswith("data:image/svg+xml;base64,") for src in images)
    assert not [a for tag, a in page.tags if tag in ("link", "script")]
    # every link is to an anchor of the page itself, and every anchor linked is there
    links = [a["href"] for tag, a in page.tags if tag == "a" and "href" in a]
    anchors = {a["id"] for _, a in page.tags if "id" in a}
    attached = [href for href in links if href.startswith("data:text/csv;")]   # the matrix, inside the file
    assert len(attached) == 1
    assert links and all(href.startswith("#") and href[1:] in anchors for href in links if href not in attached)
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


def _rows(html: str, anchor: str) -> list[list[str]]:
    """The body rows of the first table after the element ``id=anchor``, as cell texts."""
    from lxml import html as lxml_html

    root = lxml_html.fromstring(html)
    start = root.get_element_by_id(anchor)
    table = next(e for e in start.itersiblings() if e.tag == "table" or e.find(".//table") is not None)
    table = table if table.tag == "table" else table.find(".//table")
    return [[" ".join(td.text_content().split()) for td in tr] for tr in table.find("tbody")]


def test_html_holds_the_security_policy_and_routes(tmp_path):
    from vnetbench.model.objects import Route

    fw = load(ROOT / "resources" / "examples" / "esx-firewall-vm.vnet.yaml")
    html = report_html(fw, tmp_path / "fw.html").path.read_text()
    vm = next(v for v in fw.vms if v.role == "firewall")
    rows = _rows(html, "fw-1")
    assert [r[1:5] for r in rows[:-1]] == [[r.name, str(r.action), r.src, r.dst] for r in vm.forwarding.rules]
    assert rows[-1][1:3] == ["default policy", str(vm.forwarding.default_policy)]
    assert "stateful" in html and vm.name in html

    nsx = load(ROOT / "resources" / "examples" / "nsx-dfw.vnet.yaml")
    html = report_html(nsx, tmp_path / "nsx.html").path.read_text()
    rows = _rows(html, "dfw")
    names = {v.id: v.name for v in nsx.vms}
    assert [r[1] for r in rows[:-1]] == [r.name for r in nsx.nsx.dfw.rules]
    assert rows[0][4] == names[nsx.nsx.dfw.rules[0].dst]        # an object is named, not its id
    dlr = nsx.nsx.dlrs[0]
    assert [r[2] for r in _rows(html, "router-1")] == [i.ip for i in dlr.interfaces]

    four = load(FOUR)
    router = four.physical_routers[0]
    router.routes.append(Route("192.168.99.0/24", "10.30.0.254"))
    html = report_html(four, tmp_path / "four.html").path.read_text()
    anchor = next(f"router-{n}" for n in range(1, 9) if f'id="router-{n}">{router.name}' in html)
    from lxml import html as lxml_html

    device = lxml_html.fromstring(html).get_element_by_id(anchor).getparent()
    routes = [[" ".join(td.text_content().split()) for td in tr] for tr in device.findall(".//table")[1].find("tbody")]
    assert ["192.168.99.0/24", "10.30.0.254"] in routes
    assert [i.ip for i in router.interfaces if i.ip] == [r[2] for r in _rows(html, anchor)]


def test_html_reads_like_a_document(tmp_path):
    """Counts agree in number, figures carry thousands separators (no 2.09e+04), hop kinds are words, and a
    description's list is a list."""
    from vnetbench.export.words import count, number
    from vnetbench.measure.result import Measurement
    from vnetbench.predict.printer import HOP_KINDS

    assert (count(1, "host"), count(2, "switch"), count(0, "VM")) == ("1 host", "2 switches", "0 VMs")
    assert (number(20900.0), number(91.53), number(0.125), number(1234567)) == ("20,900", "91.5", "0.125",
                                                                                 "1,234,567")
    t = load(ROOT / "resources" / "examples" / "vnic-types-lab.vnet.yaml")
    fast = Measurement(TestSpec(TestKind.THROUGHPUT), "iperf3", [], [Sample(1.0, 20900.0)],
                       {"throughput_mbps": 20900.0}, 1_700_000_000.0, 1_700_000_002.0)
    a, b = t.vms[0], t.vms[1]
    run = make_run(fast, t, a.id, b.id, predict(t, a.name, b.name))
    html = report_html(t, tmp_path / "r.html", Options(pairs=[(a.name, b.name)], runs=[run])).path.read_text()
    assert "e+0" not in html and "20,900 Mbit/s" in html
    assert count(len(t.hosts), "host") in html and count(len(t.switches), "switch") in html
    assert not re.search(r"\b1 (hosts|switches|VMs|portgroups|physical devices)\b", html)
    assert "<td>vnic</td>" not in html and f"<td>{HOP_KINDS['vnic']}</td>" in html
    four = report_html(load(FOUR), tmp_path / "f.html").path.read_text()
    assert "<ol><li>same vSwitch, same portgroup" in four


def test_pdf_is_the_html_printed_with_pages_outline_links_and_vector_pictures(tmp_path, artifacts):
    from pypdf import PdfReader

    t = load(FOUR)
    done = report_pdf(t, artifacts / "four-report.pdf", Options(runs=[_run(t)]))
    reader = PdfReader(done.path)
    pages = len(reader.pages)
    assert pages == done.pages and pages > 1
    info = subprocess.run(["pdfinfo", str(done.path)], capture_output=True, text=True, check=True).stdout
    assert "A4" in info
    # bookmarks from the headings, the sections among them
    titles: dict[str, int] = {}

    def walk(items):
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                titles[item.title] = reader.get_destination_page_number(item)
    walk(reader.outline)
    assert {"Contents", "Diagram", "Inventory", "Security policy", "Routing", "Paths", "Measured results"} <= set(titles)
    # the contents link to pages inside the document
    links = [a.get_object() for page in reader.pages for a in page.get("/Annots", [])
             if a.get_object().get("/Subtype") == "/Link"]
    assert len(links) >= 8
    text = [page.extract_text() for page in reader.pages]
    assert f"Page 1 of {pages}" in text[0] and f"Page {pages} of {pages}" in text[-1]
    # pictures are vector: no raster image at all (no JPEG, no PNG), fonts are embedded subsets
    raw = done.path.read_bytes()
    assert b"/DCTDecode" not in raw and b"/Subtype /Image" not in raw
    fonts = {f.get_object()["/BaseFont"] for page in reader.pages
             for f in page["/Resources"].get("/Font", {}).values()}
    assert fonts and all("+" in str(name) for name in fonts)   # ABCDEF+DejaVuSans: a subset
    subprocess.run(["pdftoppm", "-png", "-r", "50", str(done.path), str(tmp_path / "page")], check=True, timeout=120)
    assert len(sorted(tmp_path.glob("page-*.png"))) == pages
    subprocess.run(["pdftoppm", "-png", "-r", "70", "-f", "1", "-l", "1", "-singlefile", str(done.path),
                    str(artifacts / "four-report-page1")], check=True, timeout=60)
    words = " ".join(text)
    for word in ("Inventory", "Validation", "Verdict matrix", "Paths", "Measured results", "bak01", "10.30.0.41/24"):
        assert word in words
    # the diagram, wider than A4, has a vector page of its own size, where it zooms
    n = titles["Diagram"] + 1
    size = subprocess.run(["pdfinfo", "-f", str(n), "-l", str(n), str(done.path)], capture_output=True,
                          text=True, check=True).stdout
    assert "A4" not in next(line for line in size.splitlines() if line.startswith(f"Page {n:4d} size"))
    assert {"esx01", "vSwitch0", "bak01", "core-sw1"} <= set(text[n - 1].split())


def test_pdf_without_weasyprint_says_what_to_install(tmp_path, monkeypatch):
    import sys

    from vnetbench.export import ExportError

    monkeypatch.setitem(sys.modules, "weasyprint", None)   # import weasyprint raises ImportError
    with pytest.raises(ExportError, match="pip install 'vnetbench\\[export\\]'.*libpango"):
        report_pdf(load(FOUR), tmp_path / "r.pdf")
    assert not (tmp_path / "r.pdf").exists()


def test_a_large_design_is_reported_without_its_picture_and_with_verdicts_by_network(tmp_path, monkeypatch):
    """Past ``MAX_DIAGRAM_VMS`` the report names the exports that draw the design instead of embedding tens of
    megabytes, and past the printed matrix it counts pairs per verdict from each network, from the classes."""
    from vnetbench.export import report
    from vnetbench.export.matrix import verdict_table

    t = load(FOUR)
    monkeypatch.setattr(report, "MAX_DIAGRAM_VMS", len(t.vms) - 1)
    monkeypatch.setattr(report, "MAX_MATRIX_TABLE", 1)
    html = report_html(t, tmp_path / "r.html").path.read_text()
    assert "too many to draw into this report" in html and "--format dot" in html
    assert 'alt="diagram of' not in html
    assert 'id="by-network"' in html
    table = verdict_table(t)
    by_net = {}
    names = {pg.id: pg.name for sw in t.switches for pg in sw.portgroups}
    for i, src in enumerate(table.ids):
        vm = next((vm for vm in t.vms if vm.id == src), None)
        net = names.get(vm.vnics[0].network, vm.vnics[0].network) if vm is not None and vm.vnics else None
        for dst in table.ids:
            if dst != src:
                verdict = str(table.matrix.verdict(src, dst))
                by_net.setdefault(net, {}).setdefault(verdict, 0)
                by_net[net][verdict] += 1
    got = table.counts_by([next((names.get(vm.vnics[0].network, vm.vnics[0].network) for vm in t.vms
                                 if vm.id == e and vm.vnics), None) for e in table.ids])
    assert got == by_net


def test_the_html_report_carries_the_full_matrix_as_an_attached_csv(tmp_path):
    import base64
    import csv
    import io

    from vnetbench.export.matrix import matrix_csv, verdict_table

    t = load(FOUR)
    html = report_html(t, tmp_path / "r.html").path.read_text()
    link = re.search(r'<a href="data:text/csv;charset=utf-8;base64,([A-Za-z0-9+/=]+)" download="([^"]+)"', html)
    assert link and link[2].endswith("-matrix.csv")
    data = base64.b64decode(link[1])
    assert data == matrix_csv(verdict_table(t))
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    assert len(rows) == 1 + len(t.vms) + len(t.physical_hosts)
