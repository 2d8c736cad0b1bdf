"""draw.io, Graphviz DOT and Mermaid exports: structure checked by parsing what was written."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.export import dot, drawio, mermaid
from vnetbench.export.drawio import LAYER_ID, ROOT_ID
from vnetbench.model import load

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "export-sample.vnet.yaml"


@pytest.fixture
def artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "export"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _expected_edges(t) -> set[tuple[str, str]]:
    pairs = {(vm.id, nic.network) for vm in t.vms for nic in vm.vnics}
    pairs |= {(sw.id, up.pnic) for sw in t.switches for up in sw.uplinks}
    pairs |= {(link.a, link.b) for link in t.links}
    return pairs


def test_drawio_has_a_cell_per_object_containment_and_edges(tmp_path):
    t = load(SAMPLE)
    root = ET.parse(drawio(t, tmp_path / "s.drawio").path).getroot()
    assert root.tag == "mxfile"
    cells = {c.get("id"): c for c in root.iter("mxCell")}
    assert cells[LAYER_ID].get("parent") == ROOT_ID
    vertices = {i: c for i, c in cells.items() if c.get("vertex") == "1"}
    edges = [c for c in cells.values() if c.get("edge") == "1"]
    expected = {h.id for h in t.hosts} | {s.id for s in t.switches} | {v.id for v in t.vms}
    expected |= {pg.id for s in t.switches for pg in s.portgroups} | {n.id for h in t.hosts for n in h.pnics}
    expected |= {s.id for s in t.physical_switches} | {p.id for s in t.physical_switches for p in s.ports}
    assert expected <= set(vertices)
    # containment: hosts hold their switches, VMs and pNICs; switches hold portgroups
    for sw in t.switches:
        assert vertices[sw.id].get("parent") == (sw.host or LAYER_ID)
        for pg in sw.portgroups:
            assert vertices[pg.id].get("parent") == sw.id
    for vm in t.vms:
        assert vertices[vm.id].get("parent") == vm.host
    for host in t.hosts:
        assert "container=1" in vertices[host.id].get("style")
        width = float(vertices[host.id].find("mxGeometry").get("width"))
        for child in (c for c in vertices.values() if c.get("parent") == host.id):
            geo = child.find("mxGeometry")
            assert 0 <= float(geo.get("x")) and float(geo.get("x")) + float(geo.get("width")) <= width
    # one edge per vNIC, uplink and cable, between existing cells
    got = {(e.get("source"), e.get("target")) for e in edges}
    assert got == _expected_edges(t)
    assert len(edges) == len(_expected_edges(t)) + sum(len(s.members) for s in t.switches if not s.uplinks)


def test_dot_has_host_clusters_and_graphviz_reads_it(tmp_path, artifacts):
    t = load(SAMPLE)
    text = dot(t, tmp_path / "s.dot").path.read_text()
    for host in t.hosts:
        assert f'subgraph "cluster_{host.id}"' in text
    edges = re.findall(r'^\s*"([^"]+)" -- "([^"]+)"', text, re.M)
    assert set(edges) == _expected_edges(t)
    if shutil.which("dot") is None:
        pytest.skip("graphviz is not installed")
    png = artifacts / "sample-dot.png"
    subprocess.run(["dot", "-Tpng", str(tmp_path / "s.dot"), "-o", str(png)], check=True, timeout=60,
                   capture_output=True)
    assert png.stat().st_size > 5000


def test_dot_quotes_awkward_names(tmp_path):
    t = load(SAMPLE)
    t.vms[0].name = 'web "one" \\ two'
    text = dot(t, tmp_path / "q.dot").path.read_text()
    assert 'web \\"one\\" \\\\ two' in text
    if shutil.which("dot"):
        subprocess.run(["dot", "-Tsvg", str(tmp_path / "q.dot"), "-o", str(tmp_path / "q.svg")], check=True,
                       capture_output=True, timeout=60)


def test_mermaid_nests_subgraphs_and_links_defined_nodes(tmp_path):
    t = load(SAMPLE)
    text = mermaid(t, tmp_path / "s.mmd").path.read_text()
    lines = text.splitlines()
    assert "flowchart TB" in lines
    opened = [ln for ln in lines if ln.strip().startswith("subgraph ")]
    assert len(opened) == sum(1 for ln in lines if ln.strip() == "end")
    labels = dict(re.findall(r'^\s*(?:subgraph )?(n\d+)\["([^"]*)"\]', text, re.M))
    hosts = [n for n, label in labels.items() if label.startswith("esx0")]
    assert len(hosts) == 2 and all(f"subgraph {n}[" in text for n in hosts)
    edges = re.findall(r"^\s*(n\d+) (?:---|-\.-)(?:\|\"[^\"]*\"\|)? (n\d+)$", text, re.M)
    assert len(edges) == len(_expected_edges(t)) and all(a in labels and b in labels for a, b in edges)
    assert '"' not in "".join(labels.values())


def test_text_formats_do_not_start_qt(tmp_path):
    """The core stays Qt-free: draw.io, DOT, Mermaid and the matrix tables export without importing PySide6."""
    import sys

    code = (
        "import sys\n"
        "from vnetbench.export import export\n"
        "from vnetbench.model import load\n"
        f"t = load({str(SAMPLE)!r})\n"
        "for fmt, suffix in (('drawio', '.drawio'), ('dot', '.dot'), ('mermaid', '.mmd'), ('matrix-csv', '.csv')):\n"
        f"    export(t, fmt, {str(tmp_path)!r} + '/out' + suffix)\n"
        "assert not [m for m in sys.modules if m.startswith('PySide6')], 'Qt was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
