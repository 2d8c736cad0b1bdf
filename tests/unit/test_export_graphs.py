"""draw.io, Graphviz DOT and Mermaid exports: structure checked by parsing what was written."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.export import diagram_dot, diagram_drawio, diagram_mermaid
from vnetbench.export.drawio import LAYER_ID, ROOT_ID
from vnetbench.model import load

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "export-sample.vnet.yaml"


@pytest.fixture
def artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "export"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _instance(t, oid: str, host: str) -> str:
    """The id an object is drawn under in ``host``: a vDS or segment (and its portgroups) once per member."""
    for sw in t.switches:
        if oid == sw.id or oid in {pg.id for pg in sw.portgroups}:
            return f"{oid}@{host}" if sw.kind in ("vds", "nsx-segment") else oid
    return oid


def _expected_edges(t) -> set[tuple[str, str]]:
    pnic_host = {n.id: h.id for h in t.hosts for n in h.pnics}
    pairs = {(vm.id, _instance(t, nic.network, vm.host)) for vm in t.vms for nic in vm.vnics}
    pairs |= {(_instance(t, sw.id, pnic_host[up.pnic]), up.pnic) for sw in t.switches for up in sw.uplinks}
    pairs |= {(link.a, link.b) for link in t.links}
    return pairs


def _bands(t) -> set[tuple[str, str]]:
    """The bands tying a multi-host switch's proxies in hosts side by side (the sample's hosts share one row)."""
    return {(f"{sw.id}@{a}", f"{sw.id}@{b}") for sw in t.switches if sw.kind in ("vds", "nsx-segment")
            for a, b in zip(sw.members, sw.members[1:])}


def test_drawio_has_a_cell_per_object_containment_and_edges(tmp_path):
    t = load(SAMPLE)
    root = ET.parse(diagram_drawio(t, tmp_path / "s.drawio").path).getroot()
    assert root.tag == "mxfile"
    cells = {c.get("id"): c for c in root.iter("mxCell")}
    assert cells[LAYER_ID].get("parent") == ROOT_ID
    vertices = {i: c for i, c in cells.items() if c.get("vertex") == "1"}
    edges = [c for c in cells.values() if c.get("edge") == "1"]
    placed = [(sw, h) for sw in t.switches for h in (sw.members or [sw.host])]
    expected = {h.id for h in t.hosts} | {v.id for v in t.vms} | {_instance(t, sw.id, h) for sw, h in placed}
    expected |= {_instance(t, pg.id, h) for sw, h in placed for pg in sw.portgroups}
    expected |= {n.id for h in t.hosts for n in h.pnics}
    expected |= {s.id for s in t.physical_switches} | {p.id for s in t.physical_switches for p in s.ports}
    assert expected <= set(vertices)
    # containment: hosts hold their switches (a vDS a proxy in each member), VMs and pNICs; switches hold portgroups
    for sw, host in placed:
        assert vertices[_instance(t, sw.id, host)].get("parent") == host
        for pg in sw.portgroups:
            assert vertices[_instance(t, pg.id, host)].get("parent") == _instance(t, sw.id, host)
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
    assert got == _expected_edges(t) | _bands(t)
    assert len(edges) == len(got)
    # each line is drawn through its waypoints, every segment horizontal or vertical
    for e in edges:
        geo = e.find("mxGeometry")
        pts = [geo.find("mxPoint[@as='sourcePoint']")] + list(geo.iter("mxPoint"))[2:] + [
            geo.find("mxPoint[@as='targetPoint']")]
        xy = [(float(p.get("x")), float(p.get("y"))) for p in pts]
        assert all(a[0] == b[0] or a[1] == b[1] for a, b in zip(xy, xy[1:])), e.get("id")


def test_dot_has_host_clusters_and_graphviz_reads_it(tmp_path, artifacts):
    t = load(SAMPLE)
    text = diagram_dot(t, tmp_path / "s.dot").path.read_text()
    for host in t.hosts:
        assert f'subgraph "cluster_{host.id}"' in text
    edges = re.findall(r'^\s*"([^"]+)" -- "([^"]+)"', text, re.M)
    assert set(edges) == _expected_edges(t) | _bands(t)
    if shutil.which("dot") is None:
        pytest.skip("graphviz is not installed")
    png = artifacts / "sample-dot.png"
    subprocess.run(["dot", "-Tpng", str(tmp_path / "s.dot"), "-o", str(png)], check=True, timeout=60,
                   capture_output=True)
    assert png.stat().st_size > 5000


def test_dot_of_a_large_design_is_a_summary_graphviz_renders(tmp_path, artifacts):
    """Past ``SUMMARY_VMS`` VMs: a node per host, physical switch and router, saying what it holds, and one
    line per pair of them; real Graphviz renders it (the full graph of 1,000 VMs made dot give up)."""
    import sys

    from vnetbench.export.dot import SUMMARY_VMS

    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    from generate import generate

    t = generate(SUMMARY_VMS + 100, 30, 1)
    text = diagram_dot(t, tmp_path / "big.dot").path.read_text()
    assert "newrank=true" in text and "subgraph" not in text
    assert f"summary of {SUMMARY_VMS + 100:,} VMs" in text
    nodes = dict(re.findall(r'^\s*"([^"]+)" \[label="([^"]*)"', text, re.M))
    assert {h.id for h in t.hosts} | {s.id for s in t.physical_switches} <= set(nodes)
    on_host = sum(vm.host == "esx0000" and vm.role.value == "vm" for vm in t.vms)
    assert f"{on_host} VMs" in nodes["esx0000"]
    edges = re.findall(r'^\s*"([^"]+)" -- "([^"]+)" \[[^]]*label="3 links"', text, re.M)
    assert ("esx0000", "tor0") in {tuple(sorted(e)) for e in edges}    # three pNICs cabled to its ToR
    if shutil.which("dot") is None:
        pytest.skip("graphviz is not installed")
    svg = artifacts / "large-summary-dot.svg"
    subprocess.run(["dot", "-Tsvg", str(tmp_path / "big.dot"), "-o", str(svg)], check=True, timeout=120,
                   capture_output=True)
    assert ET.parse(svg).getroot().tag.endswith("svg")


def test_dot_quotes_awkward_names(tmp_path):
    t = load(SAMPLE)
    t.vms[0].name = 'web "one" \\ two'
    text = diagram_dot(t, tmp_path / "q.dot").path.read_text()
    assert 'web \\"one\\" \\\\ two' in text
    if shutil.which("dot"):
        subprocess.run(["dot", "-Tsvg", str(tmp_path / "q.dot"), "-o", str(tmp_path / "q.svg")], check=True,
                       capture_output=True, timeout=60)


def test_mermaid_nests_subgraphs_and_links_defined_nodes(tmp_path):
    t = load(SAMPLE)
    text = diagram_mermaid(t, tmp_path / "s.mmd").path.read_text()
    lines = text.splitlines()
    assert "flowchart TB" in lines
    opened = [ln for ln in lines if ln.strip().startswith("subgraph ")]
    assert len(opened) == sum(1 for ln in lines if ln.strip() == "end")
    labels = dict(re.findall(r'^\s*(?:subgraph )?(n\d+)\["([^"]*)"\]', text, re.M))
    hosts = [n for n, label in labels.items() if label.startswith("esx0")]
    assert len(hosts) == 2 and all(f"subgraph {n}[" in text for n in hosts)
    edges = re.findall(r"^\s*(n\d+) (?:---|-\.-)(?:\|\"[^\"]*\"\|)? (n\d+)$", text, re.M)
    assert len(edges) == len(_expected_edges(t) | _bands(t)) and all(a in labels and b in labels for a, b in edges)
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


def test_no_exporter_shares_its_name_with_a_module_of_the_package():
    """Importing ``vnetbench.export.dot`` sets the package's attribute ``dot`` to the module: an exporter
    function of that name was then 'module' object is not callable for whoever imported it afterwards."""
    import pkgutil

    import vnetbench.export as export

    modules = {m.name for m in pkgutil.iter_modules(export.__path__)}
    functions = {name for name, value in vars(export).items() if callable(value) and not isinstance(value, type)}
    assert not modules & functions
    for fmt, (writer, _) in export.FORMATS.items():
        assert writer.__name__ not in modules, fmt


def test_a_logical_switch_named_with_control_characters_still_draws_well_formed_svg():
    """The NSX bus between hosts is labelled with the logical switch's name: the loader fuzz found a BEL in it
    reaching the SVG, which no XML reader takes."""
    from vnetbench import resources_dir
    from vnetbench.export.diagram import svg_bytes
    from vnetbench.export.scene import build_scene

    t = load(resources_dir() / "examples" / "nsx-dfw.vnet.yaml")
    renamed = [sw for sw in t.switches if sw.name == "ls-app"]
    assert renamed, "the example's logical switch ls-app"
    for sw in renamed:
        sw.name = "ls-app\x7f\x07"
    svg = svg_bytes(build_scene(t))
    root = ET.fromstring(svg)
    assert any((el.text or "").startswith("ls-app") for el in root.iter("{http://www.w3.org/2000/svg}text"))
