"""Mermaid flowcharts for Markdown docs: frames become (nested) subgraphs, links become edges.

Mermaid ids allow few characters, so objects get short generated ids (``n1``, ``n2``...) and their names
go into the quoted labels. Colours travel as ``classDef`` per kind; a highlighted path gets its own class
and ``linkStyle`` lines.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import yaml

from ..model.text import exportable
from . import style
from .scene import Box, Scene


def _label(text: str) -> str:
    return exportable(text, breaks=False).replace("&", "&amp;").replace('"', "#quot;").replace("<", "&lt;").replace(">", "&gt;")


def front_matter(title: str) -> list[str]:
    """Mermaid 11 reads the front matter as YAML: a title holding ": " (every bundled example's does) must be
    quoted, so a YAML writer writes it, on one line however long."""
    text = yaml.safe_dump({"title": exportable(title, breaks=False)}, allow_unicode=True, width=1 << 30)
    return ["---", text.rstrip("\n"), "---"]


def _cls(kind: str, variant: str) -> str:
    return (f"{kind}_{variant}" if f"{kind}:{variant}" in style.KIND_COLORS else kind).replace("-", "_")


def mermaid_text(scene: Scene, lit_boxes: AbstractSet[str] = frozenset(), lit_lines: AbstractSet[str] = frozenset(),
                 lit_color: str = "") -> str:
    ids = {box.id: f"n{i}" for i, box in enumerate(scene.boxes, start=1)}
    children = scene.children()
    out = [*front_matter(scene.title), "flowchart TB"]

    def emit(box: Box, depth: int) -> None:
        pad = "    " * depth
        text = _label(box.label) + "".join(f"<br/><small>{_label(line)}</small>" for line in box.lines)
        kids = children.get(box.id, [])
        if box.frame and kids:
            out.append(f'{pad}subgraph {ids[box.id]}["{text}"]')
            for child in kids:
                emit(child, depth + 1)
            out.append(f"{pad}end")
        else:
            out.append(f'{pad}{ids[box.id]}["{text}"]')

    for box in children.get(None, []):
        emit(box, 1)
    link_styles = []
    for n, line in enumerate(scene.edges):
        dashed = style.LINE_STYLES.get(line.kind, ("", False))[1]
        arrow = "-.-" if dashed else "---"
        label = f'|"{_label(line.label)}"|' if line.label else ""
        out.append(f"    {ids[line.a]} {arrow}{label} {ids[line.b]}")
        if line.id in lit_lines:
            link_styles.append(n)
    for key, (fill, stroke) in style.KIND_COLORS.items():
        kind, _, variant = key.partition(":")
        out.append(f"    classDef {_cls(kind, variant)} fill:{fill},stroke:{stroke},color:{style.TEXT_COLOR}")
    by_class: dict[str, list[str]] = {}
    for box in scene.boxes:
        by_class.setdefault(_cls(box.kind, box.style), []).append(ids[box.id])
    for cls, members in by_class.items():
        out.append(f"    class {','.join(members)} {cls}")
    if lit_boxes:
        out.append(f"    classDef path stroke:{lit_color},stroke-width:4px")
        out.append(f"    class {','.join(ids[b] for b in lit_boxes if b in ids)} path")
    if link_styles:
        out.append(f"    linkStyle {','.join(map(str, link_styles))} stroke:{lit_color},stroke-width:4px")
    return "\n".join(out) + "\n"
