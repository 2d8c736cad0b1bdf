"""Diagram export (SVG, PNG, PDF) checked with independent readers: XML parser, rsvg-convert, pdftoppm."""

from __future__ import annotations

import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.export import ExportError, Options, diagram_pdf, diagram_png, diagram_svg
from vnetbench.export import style
from vnetbench.export.scene import build_scene
from vnetbench.model import load
from vnetbench.model.objects import VM, Host, Topology

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "export-sample.vnet.yaml"
FOUR = ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS", ROOT / "test-artifacts")) / "export"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _image(path: Path):
    from PySide6.QtGui import QImage

    from vnetbench.export.qt import ensure_app

    ensure_app()
    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable image"
    return image


def _colours(image, step: int = 3) -> dict[int, int]:
    counts: dict[int, int] = {}
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            rgb = image.pixel(x, y) & 0xFFFFFF
            counts[rgb] = counts.get(rgb, 0) + 1
    return counts


def _near(counts: dict[int, int], hex_colour: str, tolerance: int = 10) -> int:
    target = int(hex_colour[1:], 16)
    tr, tg, tb = target >> 16, (target >> 8) & 255, target & 255
    return sum(n for rgb, n in counts.items()
               if abs((rgb >> 16) - tr) <= tolerance and abs(((rgb >> 8) & 255) - tg) <= tolerance
               and abs((rgb & 255) - tb) <= tolerance)


def test_svg_parses_keeps_text_as_text_and_renders_with_rsvg(tmp_path, artifacts):
    topology = load(SAMPLE)
    out = diagram_svg(topology, tmp_path / "sample.svg").path
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG_NS}svg"
    texts = {"".join(t.itertext()).strip() for t in root.iter(f"{SVG_NS}text")}
    for name in ["esx01", "esx02", "vSwitch0", "web1", "fw1", "tor1", "core-rtr", "backup01", topology.name]:
        assert name in texts, f"{name} is not a <text> element"
    hrefs = [v for el in root.iter() for k, v in el.attrib.items() if k.endswith("href")]
    assert not [h for h in hrefs if not h.startswith(("#", "data:"))], "icons must be embedded, not linked"
    assert root.get("width") and float(root.get("width")) > 500
    png = artifacts / "sample-svg-rsvg.png"
    subprocess.run(["rsvg-convert", str(out), "-o", str(png)], check=True, timeout=60)
    image = _image(png)
    assert image.width() == pytest.approx(float(root.get("width")), abs=2)
    counts = _colours(image)
    host_fill, _ = style.box_colors("host")
    assert _near(counts, host_fill, 2) > 100, "the host frames are not drawn"


def test_png_follows_the_layout_and_scale(tmp_path, artifacts):
    topology = load(SAMPLE)
    one = diagram_png(topology, artifacts / "sample.png").path
    two = diagram_png(topology, tmp_path / "x2.png", Options(scale=2)).path
    dpi = diagram_png(topology, tmp_path / "dpi.png", Options(dpi=192)).path
    a, b, c = _image(one), _image(two), _image(dpi)
    assert abs(b.width() - 2 * a.width()) <= 2 and abs(b.height() - 2 * a.height()) <= 2
    assert (b.width(), b.height()) == (c.width(), c.height())
    # The host esx02 sits at its place: its fill is under a point just inside its frame.
    scene = build_scene(topology)
    host = scene.by_id()["h2"]
    x0, y0, _, _ = scene.bounds()
    from vnetbench.export.diagram import TITLE_SPACE

    pixel = a.pixelColor(round(host.x - x0 + 4), round(host.y - y0 + TITLE_SPACE + host.h - 4)).name()
    assert pixel == style.box_colors("host")[0]


def test_scale_is_checked(tmp_path):
    with pytest.raises(ExportError, match="scale"):
        diagram_png(load(SAMPLE), tmp_path / "bad.png", Options(scale=0))


def _pdf_pages(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


def test_pdf_is_one_page_and_renders(tmp_path, artifacts):
    out = diagram_pdf(load(SAMPLE), tmp_path / "sample.pdf").path
    assert _pdf_pages(out) == 1
    text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True, check=True).stdout
    assert {"esx01", "vSwitch0", "web1", "tor1"} <= set(text.split()), "PDF text must stay text"
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-singlefile", str(out), str(artifacts / "sample-pdf")],
                   check=True, timeout=60)
    counts = _colours(_image(artifacts / "sample-pdf.png"))
    assert _near(counts, style.box_colors("physical_switch")[0], 4) > 20


def test_path_is_drawn_in_the_verdict_colour(tmp_path, artifacts):
    topology = load(FOUR)
    plain = _colours(_image(diagram_png(topology, tmp_path / "plain.png").path), 2)
    lit_path = diagram_png(topology, artifacts / "four-path-web01-db01.png", Options(path=("web01", "db01"))).path
    lit = _colours(_image(lit_path), 2)
    colour = style.VERDICT_COLORS["routed-via-physical"]
    assert _near(plain, colour, 12) < 5
    assert _near(lit, colour, 12) > 200


def test_unknown_path_endpoint_names_the_option(tmp_path):
    with pytest.raises(ExportError, match="--path.*web99"):
        diagram_svg(load(FOUR), tmp_path / "x.svg", Options(path=("web99", "db01")))


def test_selection_draws_only_the_selected_objects_and_their_frames(tmp_path):
    out = diagram_svg(load(SAMPLE), tmp_path / "sel.svg", Options(select=["web1", "sw1"])).path
    texts = {"".join(t.itertext()).strip() for t in ET.parse(out).getroot().iter(f"{SVG_NS}text")}
    assert {"web1", "vSwitch0", "Web", "App", "esx01"} <= texts
    assert not {"web2", "esx02", "tor1", "app1"} & texts
    with pytest.raises(ExportError, match="'nope'"):
        diagram_svg(load(SAMPLE), tmp_path / "x.svg", Options(select=["nope"]))


def test_exports_are_laid_out_automatically_with_nesting_and_without_overlap():
    """Exports use the automatic layout (the canvas's Arrange > Auto Layout writes the same places)."""
    t = Topology(id="t", name="t", hosts=[Host(f"h{i}", f"host{i}") for i in range(7)],
                 vms=[VM(f"v{i}", f"vm{i}", host=f"h{i % 7}") for i in range(20)] + [VM("loose", "loose")])
    scene = build_scene(t)
    boxes = scene.by_id()
    top = [b for b in scene.boxes if b.parent is None]
    assert {b.id for b in top} == {f"h{i}" for i in range(7)} | {"loose"}
    for i, a in enumerate(top):
        for b in top[i + 1:]:
            apart = a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y
            assert apart, f"{a.id} overlaps {b.id}"
    for box in scene.boxes:
        if box.parent:
            p = boxes[box.parent]
            assert p.x <= box.x and box.x + box.w <= p.x + p.w and p.y <= box.y and box.y + box.h <= p.y + p.h


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert missing")
def test_every_example_svg_renders(tmp_path, artifacts):
    for example in sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml")):
        name = example.name.removesuffix(".vnet.yaml")
        svg = diagram_svg(load(example), tmp_path / f"{name}.svg").path
        png = artifacts / f"example-{name}.png"
        subprocess.run(["rsvg-convert", str(svg), "-o", str(png)], check=True, timeout=60)
        assert _image(png).width() > 200
