"""The layout room's guarantees, checked on every example and a generated design, and the layout checker's pieces
(tests/bench/bench_layout.py) on small hand-made draw.io files where the right answer is known."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vnetbench.layout import arrange
from vnetbench.layout.content import text_x
from vnetbench.layout.route import LANE
from vnetbench.layout.text import text_width, wrap
from vnetbench.model import load
from vnetbench.model.objects import VM, VNic

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bench"))
import bench_layout as checker  # noqa: E402
from generate import generate  # noqa: E402

EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml"))


def _designs():
    for path in EXAMPLES:
        yield path.name, load(path)
    yield "generated-200", generate(200, 10)


def _inside(box, other) -> bool:
    return other.x <= box.x + 1e-6 and box.x + box.w <= other.x + other.w + 1e-6 and \
        other.y <= box.y + 1e-6 and box.y + box.h <= other.y + other.h + 1e-6


@pytest.mark.parametrize("name,topology", list(_designs()), ids=lambda v: v if isinstance(v, str) else "")
def test_nesting_no_overlap_and_lines_only_through_their_frames(name, topology):
    d = arrange(topology)
    boxes = d.by_id()
    anc = {}
    for box in d.boxes:  # children lie inside their parents
        chain, parent = set(), box.parent
        while parent:
            assert _inside(box, boxes[parent]), f"{box.id} sticks out of {parent}"
            chain.add(parent)
            parent = boxes[parent].parent
        anc[box.id] = chain
    kids: dict = {}
    for box in d.boxes:
        kids.setdefault(box.parent, []).append(box)
    for siblings in kids.values():  # siblings never overlap
        for i, a in enumerate(siblings):
            for b in siblings[i + 1:]:
                assert a.x + a.w <= b.x + 0.5 or b.x + b.w <= a.x + 0.5 or a.y + a.h <= b.y + 0.5 or \
                    b.y + b.h <= a.y + 0.5, f"{a.id} overlaps {b.id}"
    for edge in d.edges:
        assert len(edge.points) >= 2
        for (x0, y0), (x1, y1) in zip(edge.points, edge.points[1:]):
            assert abs(x0 - x1) < 1e-6 or abs(y0 - y1) < 1e-6, f"{edge.id} has a slanted segment"
        allowed = {edge.a, edge.b} | anc[edge.a] | anc[edge.b]
        vertices = {b.id: checker.Vertex(b.id, b.parent, b.x, b.y, b.w, b.h) for b in d.boxes}
        for p, q in zip(edge.points, edge.points[1:]):
            hit = [v for v in vertices.values() if v.id not in allowed and checker._segment_hits(v, p, q)]
            assert not hit, f"{edge.id} passes through {hit[0].id}"
        ax, ay = edge.points[0]
        a = boxes[edge.a]
        assert a.x - 0.5 <= ax <= a.x + a.w + 0.5 and a.y - 0.5 <= ay <= a.y + a.h + 0.5, "a line starts on its box"


def test_a_distributed_switch_has_a_proxy_in_each_member_host_tied_by_a_labelled_band():
    t = load(ROOT / "resources" / "examples" / "nsx-dfw.vnet.yaml")
    d = arrange(t)
    boxes = d.by_id()
    for sw in t.switches:
        for host in sw.members:
            proxy = boxes[f"{sw.id}@{host}"]
            assert proxy.parent == host and proxy.ref == sw.id
            assert all(boxes[f"{pg.id}@{host}"].parent == proxy.id for pg in sw.portgroups)
        bands = [e for e in d.edges if e.kind == "bus" and e.refs == (sw.id,)]
        assert len(bands) == 1 and bands[0].label == sw.name
        assert len({y for _, y in bands[0].points[1:3]}) == 1, "a band runs straight across"
    # each VM's line goes to the portgroup instance in its own host
    for vm in t.vms:
        line = next(e for e in d.edges if e.id == vm.vnics[0].id)
        assert boxes[line.b].host == vm.host


def test_facts_are_written_in_full():
    t = load(ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml")
    # every other VLAN, so the list cannot be shortened to a range: all 40 must be written out
    t.physical_switches[0].ports[0].allowed = ",".join(str(v) for v in range(300, 380, 2))
    d = arrange(t)
    texts = {b.id: " ".join([b.label, *b.lines]) for b in d.boxes}
    port = texts[t.physical_switches[0].ports[0].id].replace(" ", "")
    assert port.endswith("," + ",".join(str(v) for v in range(302, 380, 2)))
    assert "10.30.0.1/24" in texts[t.physical_routers[0].interfaces[0].id]
    assert any(v.startswith("VLAN300-Backup VLAN 300") for v in texts.values())
    for box in d.boxes:  # every line fits the box it is in (a frame: its title block)
        room = (box.label_w or box.w) - text_x(box.kind)
        assert text_width(box.label, 12, True) <= room, box.id
        assert all(text_width(line, 10) <= room for line in box.lines), box.id


def test_a_small_edit_moves_little():
    t = generate(200, 10)
    before = arrange(t)
    t.vms.append(VM("extra", "extra", "esx0003", vnics=[VNic("extra.eth0", "eth0", network="dv110",
                                                              ip="10.110.99.1/16")]))
    after = arrange(t)
    a, b = before.by_id(), after.by_id()

    def rel(d, box_id):
        box, host = d[box_id], d[d[box_id].host]
        return round(box.x - host.x, 3), round(box.y - host.y, 3)

    others = [x.id for x in before.boxes if x.host and x.host not in ("esx0003", None) and x.kind == "vm"]
    assert all(rel(a, i) == rel(b, i) for i in others), "other hosts' insides stay as they were"
    grew = abs(b["esx0003"].w - a["esx0003"].w) + abs(b["esx0003"].h - a["esx0003"].h)
    assert grew > 0
    for h in (x.id for x in before.boxes if x.kind == "host"):  # the others move about as far as it grew
        assert abs(a[h].x - b[h].x) + abs(a[h].y - b[h].y) <= 2 * grew + 2 * LANE, h


def test_graphviz_orders_the_top_level():
    """dot is a run dependency (scripts/setup.sh installs graphviz); without it the design's order is kept."""
    from vnetbench.layout.graphviz import dot_version

    if dot_version() is None and not os.environ.get("CI"):
        pytest.skip("graphviz is not installed (scripts/setup.sh installs it)")
    assert arrange(generate(200, 10)).engine.startswith("graphviz dot")


def test_the_layout_room_does_not_import_qt():
    code = ("import sys; from vnetbench.layout import arrange; from vnetbench.model import load; "
            f"arrange(load({str(EXAMPLES[0])!r})); "
            "assert not [m for m in sys.modules if m.startswith('PySide6')]")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_wrap_keeps_every_character():
    text = "trunk " + ",".join(str(v) for v in range(100, 180))
    lines = wrap(text, 10, False, 120)
    assert len(lines) > 3 and all(text_width(line, 10) <= 120 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert wrap("x" * 80, 10, False, 50) and "".join(wrap("x" * 80, 10, False, 50)) == "x" * 80


@pytest.mark.gui
def test_text_widths_match_what_qt_draws():
    measure = checker.Measure()
    for text, px, bold in (("VLAN300-Backup", 12, True), ("eth0 · vmxnet3 · 10.30.0.11/24", 10, False)):
        qt = measure.metrics(px, bold, "DejaVu Sans").horizontalAdvance(text)
        assert text_width(text, px, bold) == pytest.approx(qt, rel=0.01)


# --- the checker's pieces ---------------------------------------------------------------------------------------

DRAWIO = """<mxfile><diagram><mxGraphModel><root>
<mxCell id="0"/><mxCell id="1" parent="0"/>
<mxCell id="host" vertex="1" parent="1" value="&lt;b&gt;esx01&lt;/b&gt;"
  style="swimlane;startSize=30;fontFamily=DejaVu Sans;fontSize=12;spacingLeft=4;spacingTop=2">
  <mxGeometry x="100" y="100" width="400" height="300" as="geometry"/></mxCell>
<mxCell id="vm" vertex="1" parent="host" value="&lt;b&gt;web01&lt;/b&gt;" style="fontFamily=DejaVu Sans;fontSize=12">
  <mxGeometry x="20" y="40" width="120" height="40" as="geometry"/></mxCell>
<mxCell id="pg" vertex="1" parent="host" value="&lt;b&gt;a-very-long-portgroup-name&lt;/b&gt;"
  style="fontFamily=DejaVu Sans;fontSize=12"><mxGeometry x="20" y="200" width="60" height="40" as="geometry"/></mxCell>
<mxCell id="cut" vertex="1" parent="1" value="&lt;b&gt;VLAN300-…&lt;/b&gt;" style="fontFamily=DejaVu Sans">
  <mxGeometry x="600" y="100" width="200" height="40" as="geometry"/></mxCell>
<mxCell id="stray" vertex="1" parent="1" value="" style="">
  <mxGeometry x="450" y="380" width="100" height="50" as="geometry"/></mxCell>
<mxCell id="e1" edge="1" parent="1" source="vm" target="pg" value=""><mxGeometry relative="1" as="geometry">
  <mxPoint x="160" y="180" as="sourcePoint"/><mxPoint x="160" y="340" as="targetPoint"/></mxGeometry></mxCell>
<mxCell id="e2" edge="1" parent="1" source="vm" target="cut" value=""><mxGeometry relative="1" as="geometry">
  <mxPoint x="130" y="150" as="sourcePoint"/><mxPoint x="700" y="140" as="targetPoint"/>
  <Array as="points"><mxPoint x="130" y="320"/><mxPoint x="700" y="320"/></Array></mxGeometry></mxCell>
</root></mxGraphModel></diagram></mxfile>"""


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "c.drawio"
    path.write_text(DRAWIO)
    return checker.read_drawio(path)


def test_checker_reads_children_relative_to_their_parents(sample):
    vertices, lines = sample
    assert (vertices["vm"].x, vertices["vm"].y, vertices["vm"].parent) == (120, 140, "host")
    assert [p for p in next(line for line in lines if line.id == "e2").points] == [
        (130, 150), (130, 320), (700, 320), (700, 140)]


def test_checker_counts_overlaps_of_boxes_that_do_not_nest(sample):
    vertices, _ = sample
    assert checker.overlaps(vertices) == [("host", "stray")]  # nested vm/pg in host do not count


def test_checker_finds_lines_through_boxes_that_are_not_their_ends(sample):
    vertices, lines = sample
    # e2 runs from web01 down and across at y=320: through pg (not an end), not through host (holds an end)
    assert checker.through_boxes(vertices, lines) == [("e2", "pg")]


def test_checker_counts_crossings(sample):
    _, lines = sample
    assert checker.crossings(lines) == 1  # e1's vertical at x=160 crosses e2's horizontal at y=320


def test_checker_finds_cut_and_overflowing_labels(sample):
    vertices, _ = sample
    bad = set(checker.truncated(vertices, checker.Measure()))
    assert bad == {"pg", "cut"}
