"""draw.io / diagrams.net files (mxGraph XML), so a design can be edited further there.

Every box of the scene becomes a cell; frames (hosts, switches, physical switches) are container cells and
their children name them as ``parent`` with coordinates relative to them, which is how draw.io keeps hosts
holding their switches when a person drags them. Links become edge cells between the two objects.
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET

from . import style
from .scene import HEADER, Scene

ROOT_ID, LAYER_ID = "vnetbench-root", "vnetbench-layer"


def _vertex_style(kind: str, variant: str, frame: bool, fill: str, stroke: str, lit: str | None) -> str:
    parts = [f"fillColor={fill}", f"strokeColor={lit or stroke}", "html=1", "whiteSpace=wrap",
             f"fontFamily={style.FONT_FAMILY}", f"fontColor={style.TEXT_COLOR}"]
    if lit:
        parts.append(f"strokeWidth={style.HIGHLIGHT_WIDTH:g}")
    if kind == "note":
        return ";".join(["shape=note", "size=12", "align=left", "verticalAlign=top", "spacingLeft=6", *parts]) + ";"
    if frame:
        return ";".join(["swimlane", "container=1", "collapsible=0", "rounded=1", "arcSize=6",
                         f"startSize={HEADER:g}", "align=left", "spacingLeft=8", "fontStyle=0",
                         f"swimlaneFillColor={fill}", *parts]) + ";"
    return ";".join(["rounded=1", "arcSize=12", "align=left", "spacingLeft=6", "fontSize=11", *parts]) + ";"


def drawio_text(scene: Scene, lit_boxes: set[str] = frozenset(), lit_lines: set[str] = frozenset(),
                lit_color: str = "") -> str:
    x0, y0, _, _ = scene.bounds()
    boxes = scene.by_id()
    mxfile = ET.Element("mxfile", host="vnetbench", type="device")
    diagram = ET.SubElement(mxfile, "diagram", id="vnetbench-design", name=scene.title or "design")
    model = ET.SubElement(diagram, "mxGraphModel", grid="1", gridSize="10", guides="1", tooltips="1",
                          connect="1", arrows="1", fold="1", page="0", pageScale="1", math="0", shadow="0")
    root = ET.SubElement(model, "root")
    ET.SubElement(root, "mxCell", id=ROOT_ID)
    ET.SubElement(root, "mxCell", id=LAYER_ID, parent=ROOT_ID)
    for box in scene.boxes:
        fill, stroke = style.box_colors(box.kind, box.style)
        parent = boxes.get(box.parent) if box.parent else None
        px, py = (parent.x, parent.y) if parent else (x0, y0)
        label = f"<b>{html.escape(box.label)}</b>" if box.kind != "note" else html.escape(box.label)
        if box.detail:
            label += f"<br><font color=\"{style.MUTED_TEXT}\" style=\"font-size:10px\">{html.escape(box.detail)}</font>"
        cell = ET.SubElement(root, "mxCell", id=box.id, value=label, vertex="1",
                             parent=box.parent if parent else LAYER_ID,
                             style=_vertex_style(box.kind, box.style, box.frame, box.color or fill, stroke,
                                                 lit_color if box.id in lit_boxes else None))
        ET.SubElement(cell, "mxGeometry", x=f"{box.x - px:g}", y=f"{box.y - py:g}", width=f"{box.w:g}",
                      height=f"{box.h:g}", **{"as": "geometry"})
    for line in scene.lines:
        color, dashed = style.LINE_STYLES.get(line.kind, ("#616161", False))
        lit = line.id in lit_lines
        parts = ["endArrow=none", "html=1", "rounded=0", f"strokeColor={lit_color if lit else color}",
                 "fontSize=10", f"fontColor={style.MUTED_TEXT}", "labelBackgroundColor=#ffffff"]
        if dashed:
            parts.append("dashed=1")
        if lit:
            parts.append(f"strokeWidth={style.HIGHLIGHT_WIDTH:g}")
        cell = ET.SubElement(root, "mxCell", id=f"edge:{line.id}", value=html.escape(line.label), edge="1",
                             parent=LAYER_ID, source=line.a, target=line.b, style=";".join(parts) + ";")
        ET.SubElement(cell, "mxGeometry", relative="1", **{"as": "geometry"})
    ET.indent(mxfile)
    return ET.tostring(mxfile, encoding="unicode", xml_declaration=False) + "\n"
