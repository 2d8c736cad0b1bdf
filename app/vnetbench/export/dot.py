"""Graphviz DOT: hosts (and switches, physical switches) as clusters, objects as nodes, links as edges.

Graphviz lays the graph out itself, so positions are not written. A frame with children becomes a
cluster holding a small point node under the frame's own id, so links to a switch attach to its cluster
(``lhead``/``ltail`` with ``compound=true``).
"""

from __future__ import annotations

from . import style
from .scene import Box, Scene


def _q(text: str) -> str:
    """A DOT string: backslashes, quotes and breaks escaped, and ``&`` as ``&amp;`` (Graphviz passes an
    entity such as ``&unknown;`` into its SVG as is, which no XML parser then reads)."""
    return '"' + (text.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;").replace("\r\n", "\\n")
                  .replace("\r", "\\n").replace("\n", "\\n")) + '"'


def dot_text(scene: Scene, lit_boxes: set[str] = frozenset(), lit_lines: set[str] = frozenset(),
             lit_color: str = "") -> str:
    children = scene.children()
    clusters = {box.id for box in scene.boxes if box.frame and children.get(box.id)}
    out = [f"graph {_q(scene.title or 'design')} {{",
           f'  graph [compound=true, rankdir=TB, fontname={_q(style.FONT_FAMILY)}, label={_q(scene.title)}, '
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
