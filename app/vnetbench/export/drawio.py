"""draw.io / diagrams.net files (mxGraph XML), so a design can be edited further there.

Every box of the scene becomes a cell; frames (hosts, switches, physical switches) are container cells and their
children name them as ``parent`` with coordinates relative to them, which is how draw.io keeps hosts holding their
switches when a person drags them. Links become edge cells between the two objects, with the layout's bends as
waypoints and their ends pinned where the layout put them (``exitX/Y``, ``entryX/Y``), so draw.io shows the same
orthogonal lines. Text is written line by line at the layout's sizes, in the same font.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import html
import xml.etree.ElementTree as ET

from ..layout import content, text
from . import style
from .scene import Box, Scene

ROOT_ID, LAYER_ID = "vnetbench-root", "vnetbench-layer"


def _vertex_style(box: Box, fill: str, stroke: str, lit: str | None) -> str:
    parts = [f"fillColor={fill}", f"strokeColor={lit or stroke}", "html=1", "whiteSpace=nowrap",
             f"fontFamily={style.FONT_FAMILY}", f"fontColor={style.TEXT_COLOR}", f"fontSize={text.LABEL_PX}",
             "align=left", "verticalAlign=top", f"spacingLeft={content.text_x(box.kind) - 2:g}",
             f"spacingTop={content.TEXT_TOP - 2:g}", "spacing=2"]
    if lit:
        parts.append(f"strokeWidth={style.HIGHLIGHT_WIDTH:g}")
    if box.kind == "note":
        return ";".join(["shape=note", "size=12", *parts]).replace("whiteSpace=nowrap", "whiteSpace=wrap") + ";"
    if box.kind == "host":
        return ";".join(["swimlane", "container=1", "collapsible=0", "rounded=1", "arcSize=4", "fontStyle=0",
                         f"startSize={box.header:g}", f"swimlaneFillColor={style.box_colors('host')[0]}",
                         *parts]) + ";"
    if box.frame:
        return ";".join(["rounded=1", "arcSize=6", "container=1", "collapsible=0", *parts]) + ";"
    return ";".join(["rounded=1", "arcSize=10", *parts]) + ";"


def _label(box: Box) -> str:
    if box.kind == "note":
        return html.escape(box.label)
    out = f"<b>{html.escape(box.label)}</b>"
    for line in box.lines:
        out += f'<br><font color="{style.MUTED_TEXT}" style="font-size:{text.DETAIL_PX}px">{html.escape(line)}</font>'
    return out


def drawio_text(scene: Scene, lit_boxes: AbstractSet[str] = frozenset(), lit_lines: AbstractSet[str] = frozenset(),
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
        cell = ET.SubElement(root, "mxCell", id=box.id, value=_label(box), vertex="1",
                             parent=box.parent if parent else LAYER_ID,
                             style=_vertex_style(box, box.color or fill, stroke,
                                                 lit_color if box.id in lit_boxes else None))
        ET.SubElement(cell, "mxGeometry", x=f"{box.x - px:g}", y=f"{box.y - py:g}", width=f"{box.w:g}",
                      height=f"{box.h:g}", **{"as": "geometry"})
    for line in scene.edges:
        color, dashed = style.LINE_STYLES.get(line.kind, ("#616161", False))
        lit = line.id in lit_lines
        parts = ["endArrow=none", "html=1", "rounded=0", "edgeStyle=none", f"strokeColor={lit_color if lit else color}",
                 f"fontSize={text.DETAIL_PX}", f"fontColor={style.MUTED_TEXT}", "labelBackgroundColor=#ffffff",
                 "exitPerimeter=0", "entryPerimeter=0"]
        a, b = boxes.get(line.a), boxes.get(line.b)
        if a is not None and b is not None and len(line.points) >= 2:
            (sx, sy), (tx, ty) = line.points[0], line.points[-1]
            parts += [f"exitX={(sx - a.x) / a.w:.4f}", f"exitY={(sy - a.y) / a.h:.4f}",
                      f"entryX={(tx - b.x) / b.w:.4f}", f"entryY={(ty - b.y) / b.h:.4f}"]
        if dashed:
            parts.append("dashed=1")
        if line.kind == "bus":
            parts += ["strokeWidth=6", "opacity=45"]
        elif lit:
            parts.append(f"strokeWidth={style.HIGHLIGHT_WIDTH:g}")
        cell = ET.SubElement(root, "mxCell", id=f"edge:{line.id}", value=html.escape(line.label), edge="1",
                             parent=LAYER_ID, source=line.a, target=line.b, style=";".join(parts) + ";")
        geometry = ET.SubElement(cell, "mxGeometry", relative="1", **{"as": "geometry"})
        if len(line.points) >= 2:
            (sx, sy), (tx, ty) = line.points[0], line.points[-1]
            ET.SubElement(geometry, "mxPoint", x=f"{sx - x0:g}", y=f"{sy - y0:g}", **{"as": "sourcePoint"})
            ET.SubElement(geometry, "mxPoint", x=f"{tx - x0:g}", y=f"{ty - y0:g}", **{"as": "targetPoint"})
            if len(line.points) > 2:
                array = ET.SubElement(geometry, "Array", **{"as": "points"})
                for x, y in line.points[1:-1]:
                    ET.SubElement(array, "mxPoint", x=f"{x - x0:g}", y=f"{y - y0:g}")
    ET.indent(mxfile)
    return ET.tostring(mxfile, encoding="unicode", xml_declaration=False) + "\n"
