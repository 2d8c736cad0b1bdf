"""Graphviz DOT: hosts (and switches, physical switches) as clusters, objects as nodes, links as edges.

Graphviz lays the graph out itself, so positions are not written. A frame with children becomes a
cluster holding a small point node under the frame's own id, so links to a switch attach to its cluster
(``lhead``/``ltail`` with ``compound=true``). ``newrank=true`` ranks the nodes of all clusters together:
without it Graphviz's dot gives up on designs of a thousand VMs ("trouble in init_rank", "lost edge").

Past ``SUMMARY_VMS`` VMs the export is a summary graph: one node per host, physical switch and router, saying
what it holds (VMs, firewalls, switches, portgroups), and one line per pair of them with the number of links;
laid out left to right so hosts stack instead of making a row as wide as the estate. A cluster per host of
thousands of VMs is a picture nobody reads and minutes of layout.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet
from dataclasses import replace

from . import style
from .scene import Box, Line, Scene
from .words import count

#: Past this many plain VMs the DOT export is a summary: a node per host, physical switch and router.
SUMMARY_VMS = 500


def _q(text: str) -> str:
    """A DOT string: backslashes, quotes and breaks escaped, and ``&`` as ``&amp;`` (Graphviz passes an
    entity such as ``&unknown;`` into its SVG as is, which no XML parser then reads)."""
    return '"' + (text.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;").replace("\r\n", "\\n")
                  .replace("\r", "\\n").replace("\n", "\\n")) + '"'


def dot_text(scene: Scene, lit_boxes: AbstractSet[str] = frozenset(), lit_lines: AbstractSet[str] = frozenset(),
             lit_color: str = "") -> str:
    title, rankdir = scene.title, "TB"
    vms = sum(_plain_vm(box) for box in scene.boxes)
    if vms > SUMMARY_VMS:   # a row of clusters too wide to read, and minutes of layout: one node per host
        scene, lit_boxes, lit_lines = summarised(scene, lit_boxes, lit_lines)
        title += f"\nsummary of {count(vms, 'VM')}: a node per host, physical switch and router"
        rankdir = "LR"      # hosts stacked, not a row as wide as the estate
    children = scene.children()
    clusters = {box.id for box in scene.boxes if box.frame and children.get(box.id)}
    out = [f"graph {_q(scene.title or 'design')} {{",
           f'  graph [compound=true, newrank=true, rankdir={rankdir}, fontname={_q(style.FONT_FAMILY)}, '
           f'label={_q(title)}, '
           'labelloc=t, fontsize=16];',
           f'  node [shape=box, style="rounded,filled", fontname={_q(style.FONT_FAMILY)}, fontsize=10];',
           f'  edge [fontname={_q(style.FONT_FAMILY)}, fontsize=9];']

    def emit(box: Box, depth: int) -> None:
        pad = "  " * depth
        fill, stroke = style.box_colors(box.kind, box.style)
        fill = box.color or fill
        lit = box.id in lit_boxes
        color = lit_color if lit else stroke
        width = f", penwidth={style.HIGHLIGHT_WIDTH:g}" if lit else ""
        label = "\n".join([box.label, *box.lines])
        if box.id in clusters:
            out.append(f"{pad}subgraph {_q('cluster_' + box.id)} {{")
            out.append(f'{pad}  label={_q(label)}; fontsize=11; style="rounded,filled"; fillcolor={_q(fill)}; '
                       f"color={_q(color)}{width.replace(', ', '; ')};")
            out.append(f"{pad}  {_q(box.id)} [shape=point, width=0.05, color={_q(color)}];")
            for child in children.get(box.id, []):
                emit(child, depth + 1)
            out.append(f"{pad}}}")
        else:
            shape = "note" if box.kind == "note" else "box"
            out.append(f"{pad}{_q(box.id)} [label={_q(label)}, shape={shape}, fillcolor={_q(fill)}, "
                       f"color={_q(color)}{width}];")

    for box in children.get(None, []):
        emit(box, 1)
    for line in scene.edges:
        color, dashed = style.LINE_STYLES.get(line.kind, ("#616161", False))
        lit = line.id in lit_lines
        attrs = [f"color={_q(lit_color if lit else color)}"]
        if line.label:
            attrs.append(f"label={_q(line.label)}")
        if dashed:
            attrs.append("style=dashed")
        if lit:
            attrs.append(f"penwidth={style.HIGHLIGHT_WIDTH:g}")
        if line.a in clusters:
            attrs.append(f"ltail={_q('cluster_' + line.a)}")
        if line.b in clusters:
            attrs.append(f"lhead={_q('cluster_' + line.b)}")
        out.append(f"  {_q(line.a)} -- {_q(line.b)} [{', '.join(attrs)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def _plain_vm(box: Box) -> bool:
    return box.kind == "vm" and box.style == "vm"


def summarised(scene: Scene, lit_boxes: AbstractSet[str] = frozenset(),
               lit_lines: AbstractSet[str] = frozenset()) -> tuple[Scene, set[str], set[str]]:
    """The scene at the level of its outermost boxes (hosts, physical switches, routers): each one node that
    says what it holds (VMs, firewalls, switches, portgroups), the lines between them one per pair with
    their number (a distributed switch's band between hosts left out: it would chain every host to the next).
    What is lit inside a box lights the box."""
    by_id = scene.by_id()
    top: dict[str, str] = {}
    for box in scene.boxes:          # parents come before their children
        top[box.id] = top[box.parent] if box.parent in top else box.id
    held: dict[str, Counter] = {}
    for box in scene.boxes:
        if box.id != top[box.id]:
            kind = box.style if box.kind == "vm" and not _plain_vm(box) else box.kind   # a firewall, router...
            held.setdefault(top[box.id], Counter())[kind] += 1
    boxes = []
    for box in scene.boxes:
        if box.id == top[box.id]:
            counts = held.get(box.id, Counter())
            said = [count(counts[kind], word) for kind, word in _HELD if counts[kind]]
            boxes.append(replace(box, lines=[*box.lines[:1], " · ".join(said)] if said else box.lines[:1]))
    pairs: dict[tuple[str, str], list[Line]] = {}
    for line in scene.edges:
        a, b = top.get(line.a, line.a), top.get(line.b, line.b)
        if a != b and a in by_id and b in by_id and line.kind != "bus":   # a vDS's band chains every host
            pairs.setdefault((a, b) if a < b else (b, a), []).append(line)
    edges: list[Line] = []
    lines_of: dict[str, str] = {}
    for (a, b), lines in pairs.items():
        edge = replace(lines[0], id=f"{a}--{b}", a=a, b=b, label=count(len(lines), "link") if len(lines) > 1 else
                       lines[0].label)
        edges.append(edge)
        lines_of.update((line.id, edge.id) for line in lines)
    return (replace(scene, boxes=boxes, edges=edges), {top.get(b, b) for b in lit_boxes},
            {lines_of[line] for line in lit_lines if line in lines_of})


#: What a summary node counts, in this order.
_HELD = [("vm", "VM"), ("firewall", "firewall"), ("router", "router VM"), ("nsx-edge", "NSX edge"),
         ("switch", "switch"), ("portgroup", "portgroup"), ("physical_router", "router")]
