"""Layout checker: reads the geometry of exported draw.io files and counts what a reader of the diagram would
trip over. Prints one line per design.

For every example and for generated designs of 200, 2,000 and 10,000 VMs (``generate.generate``, 20 VMs a host),
it exports draw.io with the CLI's code path and reads the file back as draw.io does: vertices with their parents
(relative geometry made absolute), edges with their source, target and points. It counts

- overlaps: two boxes whose insides meet though neither holds the other;
- through: line segments passing through the inside of a box that is neither one of the line's ends nor a frame
  around one of them;
- crossings: a horizontal and a vertical segment of two different lines crossing;
- truncated: a box whose text (measured with Qt in the file's font, line by line as written) does not fit inside
  it, runs into one of its children, or is cut short with an ellipsis;
- layout seconds (``vnetbench.layout.arrange``) and export seconds (the draw.io file, layout included).

Targets (issue 16): 0 overlaps, 0 through, 0 truncated on every example and the 200-VM design; layout of 2,000
VMs <= 5 s. Run: ``.venv/bin/python tests/bench/bench_layout.py [--quick]`` (``--quick`` skips 10,000 VMs).
"""

from __future__ import annotations

import html
import re
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
ROOT = Path(__file__).resolve().parents[2]
TOL = 0.5  # pixels: touching is not overlapping
GRID = 400.0


@dataclass
class Vertex:
    id: str
    parent: str | None
    x: float
    y: float
    w: float
    h: float
    value: str = ""
    style: dict[str, str] = field(default_factory=dict)

    def inside(self, x: float, y: float) -> bool:
        return self.x + TOL < x < self.x + self.w - TOL and self.y + TOL < y < self.y + self.h - TOL


@dataclass
class Line:
    id: str
    source: str
    target: str
    points: list[tuple[float, float]]


def parse_style(text: str) -> dict[str, str]:
    out = {}
    for part in (text or "").split(";"):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key] = value
        elif part:
            out[part] = "1"
    return out


def read_drawio(path: str | Path) -> tuple[dict[str, Vertex], list[Line]]:
    """Vertices (absolute geometry) and edges (absolute points, ends included) of a draw.io file."""
    root = ET.parse(path).getroot()
    cells = list(root.iter("mxCell"))
    raw: dict[str, tuple[str | None, float, float, float, float, str, dict]] = {}
    lines: list[Line] = []
    for cell in cells:
        geo = cell.find("mxGeometry")
        if cell.get("vertex") == "1" and geo is not None:
            raw[cell.get("id")] = (cell.get("parent"), float(geo.get("x", 0)), float(geo.get("y", 0)),
                                   float(geo.get("width", 0)), float(geo.get("height", 0)), cell.get("value", ""),
                                   parse_style(cell.get("style", "")))
        elif cell.get("edge") == "1" and geo is not None:
            pts = []
            src, dst = geo.find("mxPoint[@as='sourcePoint']"), geo.find("mxPoint[@as='targetPoint']")
            array = geo.find("Array[@as='points']")
            for p in ([src] if src is not None else []) + (list(array) if array is not None else []) + (
                    [dst] if dst is not None else []):
                pts.append((float(p.get("x", 0)), float(p.get("y", 0))))
            lines.append(Line(cell.get("id"), cell.get("source"), cell.get("target"), pts))
    vertices: dict[str, Vertex] = {}

    def absolute(vid: str) -> Vertex:
        if vid in vertices:
            return vertices[vid]
        parent, x, y, w, h, value, style = raw[vid]
        if parent in raw:
            p = absolute(parent)
            x, y = x + p.x, y + p.y
        vertices[vid] = Vertex(vid, parent if parent in raw else None, x, y, w, h, value, style)
        return vertices[vid]

    for vid in raw:
        absolute(vid)
    for line in lines:  # no points written: draw.io draws a straight line between the two centres
        if len(line.points) < 2 and line.source in vertices and line.target in vertices:
            a, b = vertices[line.source], vertices[line.target]
            line.points = [(a.x + a.w / 2, a.y + a.h / 2), (b.x + b.w / 2, b.y + b.h / 2)]
    return vertices, lines


def ancestors(vertices: dict[str, Vertex], vid: str) -> set[str]:
    out = set()
    parent = vertices[vid].parent if vid in vertices else None
    while parent:
        out.add(parent)
        parent = vertices[parent].parent
    return out


def _cells(x0: float, y0: float, x1: float, y1: float):
    for gx in range(int(x0 // GRID), int(x1 // GRID) + 1):
        for gy in range(int(y0 // GRID), int(y1 // GRID) + 1):
            yield gx, gy


def _index(vertices: dict[str, Vertex]) -> dict[tuple[int, int], list[Vertex]]:
    grid: dict[tuple[int, int], list[Vertex]] = {}
    for v in vertices.values():
        for cell in _cells(v.x, v.y, v.x + v.w, v.y + v.h):
            grid.setdefault(cell, []).append(v)
    return grid


def overlaps(vertices: dict[str, Vertex]) -> list[tuple[str, str]]:
    """Pairs of boxes whose insides meet, neither holding the other."""
    found = set()
    anc = {vid: ancestors(vertices, vid) for vid in vertices}
    for bucket in _index(vertices).values():
        for i, a in enumerate(bucket):
            for b in bucket[i + 1:]:
                if a.id in anc[b.id] or b.id in anc[a.id]:
                    continue
                if (a.x + TOL < b.x + b.w and b.x + TOL < a.x + a.w and a.y + TOL < b.y + b.h
                        and b.y + TOL < a.y + a.h):
                    found.add(tuple(sorted((a.id, b.id))))
    return sorted(found)


def _segment_hits(v: Vertex, p: tuple[float, float], q: tuple[float, float]) -> bool:
    """Whether the segment p-q passes through the inside of ``v`` (orthogonal segments exactly, others sampled)."""
    (x0, y0), (x1, y1) = p, q
    if abs(x0 - x1) < 1e-9:
        lo, hi = sorted((y0, y1))
        return v.x + TOL < x0 < v.x + v.w - TOL and lo < v.y + v.h - TOL and hi > v.y + TOL
    if abs(y0 - y1) < 1e-9:
        lo, hi = sorted((x0, x1))
        return v.y + TOL < y0 < v.y + v.h - TOL and lo < v.x + v.w - TOL and hi > v.x + TOL
    return any(v.inside(x0 + (x1 - x0) * k / 50, y0 + (y1 - y0) * k / 50) for k in range(1, 50))


def through_boxes(vertices: dict[str, Vertex], lines: list[Line]) -> list[tuple[str, str]]:
    """(line, box) for every box a line passes through that is neither its end nor a frame around an end."""
    grid = _index(vertices)
    found = set()
    for line in lines:
        allowed = {line.source, line.target} | ancestors(vertices, line.source) | ancestors(vertices, line.target)
        for p, q in zip(line.points, line.points[1:]):
            seen = set()
            for cell in _cells(min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])):
                for v in grid.get(cell, ()):
                    if v.id in allowed or v.id in seen:
                        continue
                    seen.add(v.id)
                    if _segment_hits(v, p, q):
                        found.add((line.id, v.id))
    return sorted(found)


def crossings(lines: list[Line]) -> int:
    """Horizontal and vertical segments of different lines that cross at a point inside both (a slanted segment,
    as draw.io draws a line without waypoints, counts against every segment it crosses)."""
    horizontal: dict[int, list[tuple[float, float, float, str]]] = {}
    vertical = []
    slanted = []
    every = []
    for line in lines:
        for (x0, y0), (x1, y1) in zip(line.points, line.points[1:]):
            every.append(((x0, y0), (x1, y1), line.id))
            if abs(x0 - x1) > 1e-9 and abs(y0 - y1) > 1e-9:
                slanted.append(((x0, y0), (x1, y1), line.id))
            elif abs(y0 - y1) < 1e-9 and abs(x0 - x1) > 1e-9:
                lo, hi = sorted((x0, x1))
                for gy in range(int(y0 // GRID), int(y0 // GRID) + 1):
                    horizontal.setdefault(gy, []).append((y0, lo, hi, line.id))
            elif abs(x0 - x1) < 1e-9 and abs(y0 - y1) > 1e-9:
                lo, hi = sorted((y0, y1))
                vertical.append((x0, lo, hi, line.id))
    count = 0
    for x, lo, hi, lid in vertical:
        for gy in range(int(lo // GRID), int(hi // GRID) + 1):
            for y, hlo, hhi, hid in horizontal.get(gy, ()):
                if hid != lid and lo + 1e-6 < y < hi - 1e-6 and hlo + 1e-6 < x < hhi - 1e-6:
                    count += 1
    done = set()
    for i, (p, q, lid) in enumerate(slanted):
        for r, s, other in every:
            key = tuple(sorted([(p, q), (r, s)]))
            if other != lid and key not in done and _proper(p, q, r, s):
                done.add(key)
                count += 1
    return count


def _proper(p, q, r, s) -> bool:
    """Whether segments p-q and r-s cross at a point inside both."""
    def orient(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return (v > 1e-9) - (v < -1e-9)
    return orient(p, q, r) * orient(p, q, s) < 0 and orient(r, s, p) * orient(r, s, q) < 0


_FONT_SIZE = re.compile(r"font-size:\s*([\d.]+)px")


def label_lines(value: str, base_px: float) -> list[tuple[str, float, bool]]:
    """The lines of an HTML label as (text, pixel size, bold)."""
    out = []
    for part in re.split(r"<br\s*/?>", value):
        size = _FONT_SIZE.search(part)
        bold = "<b>" in part
        text = html.unescape(re.sub(r"<[^>]+>", "", part))
        out.append((text, float(size.group(1)) if size else base_px, bold))
    return out


class Measure:
    """Text widths as Qt draws them (DejaVu Sans, the font the files name)."""

    def __init__(self) -> None:
        from PySide6.QtGui import QFont, QFontMetricsF

        from vnetbench.export.qt import ensure_app

        ensure_app()
        self._qfont, self._metrics = QFont, QFontMetricsF
        self._cache: dict[tuple[float, bool, str], QFontMetricsF] = {}

    def metrics(self, px: float, bold: bool, family: str):
        key = (px, bold, family)
        if key not in self._cache:
            f = self._qfont(family)
            f.setPixelSize(round(px))
            f.setBold(bold)
            self._cache[key] = self._metrics(f)
        return self._cache[key]

    def block(self, lines: list[tuple[str, float, bool]], family: str) -> tuple[float, float]:
        width = height = 0.0
        for text, px, bold in lines:
            m = self.metrics(px, bold, family)
            width = max(width, m.horizontalAdvance(text))
            height += m.height()
        return width, height


def truncated(vertices: dict[str, Vertex], measure: Measure) -> list[str]:
    """Boxes whose text does not fit: beyond the box (or a swimlane's header), into a child, or ellipsised."""
    children: dict[str, list[Vertex]] = {}
    for v in vertices.values():
        if v.parent:
            children.setdefault(v.parent, []).append(v)
    bad = []
    for v in vertices.values():
        if not v.value or v.style.get("shape") == "note":
            continue
        family = v.style.get("fontFamily", "Helvetica")
        lines = label_lines(v.value, float(v.style.get("fontSize", 12)))
        if any("\u2026" in text or text.endswith("...") for text, _, _ in lines):
            bad.append(v.id)
            continue
        spacing = float(v.style.get("spacing", 2))
        left = v.x + float(v.style.get("spacingLeft", 0)) + spacing
        top = v.y + float(v.style.get("spacingTop", 0)) + spacing
        width, height = measure.block(lines, family)
        bottom_limit = v.y + (float(v.style.get("startSize", v.h)) if "swimlane" in v.style else v.h)
        if left + width > v.x + v.w + TOL or top + height > bottom_limit + 1.5:
            bad.append(v.id)
            continue
        for kid in children.get(v.id, ()):
            if left < kid.x + kid.w and kid.x < left + width and top < kid.y + kid.h and kid.y < top + height:
                bad.append(v.id)
                break
    return bad


def check(path: str | Path, measure: Measure) -> dict[str, float]:
    vertices, lines = read_drawio(path)
    return {"boxes": len(vertices), "lines": len(lines), "overlaps": len(overlaps(vertices)),
            "through": len(through_boxes(vertices, lines)), "crossings": crossings(lines),
            "truncated": len(truncated(vertices, measure))}


def designs(quick: bool):
    from generate import generate

    from vnetbench.model import load

    for example in sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml")):
        yield example.name.removesuffix(".vnet.yaml"), load(example)
    for vms in (200, 2000) + (() if quick else (10_000,)):
        yield f"generated {vms} VMs", generate(vms, max(2, vms // 20))


def main() -> int:
    from vnetbench.export import diagram_drawio
    from vnetbench.layout import arrange
    from vnetbench.layout.graphviz import dot_version

    quick = "--quick" in sys.argv
    measure = Measure()
    print("Layout checker (issue 16): counts read back from the exported draw.io files; times are wall clock on a "
          "shared machine (noisy).")
    header = f"{'design':<24}{'boxes':>7}{'lines':>7}{'overlaps':>9}{'through':>8}{'crossings':>10}" \
             f"{'truncated':>10}{'layout s':>10}{'export s':>10}"
    print(header)
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, topology in designs(quick):
            t0 = time.perf_counter()
            diagram = arrange(topology)
            layout_s = time.perf_counter() - t0
            out = Path(tmp, "d.drawio")
            t0 = time.perf_counter()
            diagram_drawio(topology, out)
            export_s = time.perf_counter() - t0
            r = check(out, measure)
            print(f"{name:<24}{r['boxes']:>7}{r['lines']:>7}{r['overlaps']:>9}{r['through']:>8}{r['crossings']:>10}"
                  f"{r['truncated']:>10}{layout_s:>10.2f}{export_s:>10.2f}", flush=True)
            strict = not name.startswith("generated") or name == "generated 200 VMs"
            if strict and (r["overlaps"] or r["through"] or r["truncated"]):
                failed.append(name)
            if name == "generated 2000 VMs" and layout_s > 5.0:
                failed.append(f"{name} (layout {layout_s:.1f} s > 5 s)")
            del diagram
    print(f"top-level order: {dot_version() or 'model order (graphviz dot not found)'}")
    if failed:
        print("MISSED TARGETS: " + ", ".join(failed))
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
