"""The documentation report: one self-contained HTML file, and the same content as a PDF.

Both come from one Jinja2 template (``resources/templates/report.html.j2``). For the browser, pictures are
SVG inlined as ``data:`` URIs so the file travels alone (wiki upload, mail attachment). For the PDF, Qt's
QTextDocument lays the same HTML out on A4 pages through QPdfWriter, with PNG pictures handed over as
document resources, so no browser engine is needed.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import jinja2

from .. import __version__, resources_dir
from ..model import Index, Topology
from ..model.objects import PORTGROUP_SWITCHES
from ..model.text import exportable
from . import style
from .matrix import VerdictTable, verdict_table
from .scene import build_scene, highlighted, vlan_text

#: Above this many endpoints the matrix is shown as a heatmap instead of a table, above the next as counts.
MAX_MATRIX_TABLE = 40
MAX_HEATMAP = 150
#: Without chosen pairs, the report shows one example pair per verdict, at most this many.
MAX_DEFAULT_PATHS = 6
#: PDF content width in pixels (A4 at 96 dpi minus 15 mm margins: 680); wider pictures are scaled down to it.
PDF_WIDTH = 660


@dataclass(frozen=True)
class Image:
    src: str
    width: int | None = None
    height: int | None = None


#: ``picture(fmt, scale)`` draws a picture as "svg" or "png" bytes (PNG at ``scale`` device pixels per unit).
Picture = Callable[[str, float], bytes]
#: ``embed(name, picture, width)`` -> Image: how a picture ``width`` units wide travels in the document.
Embed = Callable[[str, Picture, float], Image]


# --- the facts --------------------------------------------------------------------------------------------


def inventory(topology: Topology) -> dict[str, Any]:
    index = Index(topology)

    def name(oid: str | None) -> str:
        return getattr(index.get(oid), "name", oid or "")

    def pnic_name(pnic_id: str) -> str:
        host = index.parent(pnic_id)
        return f"{host.name}/{name(pnic_id)}" if host is not None else pnic_id

    hosts = [{"name": h.name, "kind": str(h.kind), "cpus": h.cpus,
              "pnics": ", ".join(f"{n.name} ({n.speed_mbps} Mb/s{'' if n.up else ', down'})" for n in h.pnics)
              or "none"} for h in topology.hosts]
    switches = []
    for sw in topology.switches:
        on = name(sw.host) if sw.host else ", ".join(name(m) for m in sw.members)
        uplinks = ", ".join(pnic_name(u.pnic) + (" (standby)" if u.standby else "") for u in sw.uplinks) or "none"
        pgs = [{"name": pg.name, "vlan": vlan_text(pg.vlan, sw)} for pg in sw.portgroups] \
            if sw.kind in PORTGROUP_SWITCHES else []
        switches.append({"name": sw.name, "kind": str(sw.kind), "on": on, "uplinks": uplinks, "mtu": sw.mtu,
                         "portgroups": pgs})
    vms = []
    for vm in topology.vms:
        nics = []
        for nic in vm.vnics:
            net = index.get(nic.network)
            parent = index.parent(nic.network) if nic.network else None
            network = f"{parent.name}/{net.name}" if net is not None and parent is not None else name(nic.network)
            if nic.guest_vlan:
                network += f" (guest VLAN {nic.guest_vlan})"
            nics.append({"name": nic.name + ("" if nic.connected else " (disconnected)"), "type": str(nic.type),
                         "network": network, "ip": nic.ip or "", "gateway": nic.gateway or ""})
        vms.append({"name": vm.name, "host": name(vm.host), "role": str(vm.role), "vnics": nics})
    physical = [{"name": s.name, "kind": "physical switch",
                 "parts": ", ".join(f"{p.name} {p.mode} {p.access_vlan if p.mode == 'access' else p.allowed}"
                                    for p in s.ports)} for s in topology.physical_switches]
    physical += [{"name": r.name, "kind": "router" + (f" (L3 switch on {name(r.switch)})" if r.switch else ""),
                  "parts": ", ".join(f"{i.name} {i.ip or ''}" + (f" VLAN {i.vlan}" if i.vlan else "")
                                     for i in r.interfaces)} for r in topology.physical_routers]
    physical += [{"name": h.name, "kind": "physical host", "parts": ", ".join(f"{n.name} {n.ip or ''}" for n in h.nics)}
                 for h in topology.physical_hosts]
    counts = {"hosts": len(topology.hosts), "switches": len(topology.switches),
              "portgroups": sum(len(s.portgroups) for s in topology.switches), "vms": len(topology.vms),
              "physical": len(physical)}
    return {"hosts": hosts, "switches": switches, "vms": vms, "physical": physical, "counts": counts}


def default_pairs(table: VerdictTable) -> list[tuple[str, str]]:
    """One example pair per verdict, in the matrix's order."""
    return table.first_pairs()[:MAX_DEFAULT_PATHS]


def _estimate_text(estimate: Any) -> str:
    parts = []
    if estimate.throughput_mbps is not None:
        parts.append(f"about {estimate.throughput_mbps:.0f} Mbit/s")
    if estimate.latency_us is not None:
        parts.append(f"+{estimate.latency_us:.1f} \u00b5s")
    if estimate.bottleneck:
        parts.append(f"bottleneck {estimate.bottleneck}")
    return ", ".join(parts)


def _path_entry(topology: Topology, prediction: Any, embed: Embed, n: int) -> dict[str, Any]:
    from . import describe_path
    from .diagram import Highlight, png_bytes, svg_bytes

    index = Index(topology)
    names = [getattr(index.get(i), "name", i) for i in (prediction.forward.src, prediction.forward.dst)]
    ids, color, caption = describe_path(topology, prediction)
    scene = build_scene(topology, [oid for oid in dict.fromkeys(ids) if oid and _drawn(index, oid)])
    light = Highlight(*highlighted(scene, ids), color, caption)

    def picture(fmt: str, scale: float) -> bytes:
        return svg_bytes(scene, light) if fmt == "svg" else png_bytes(scene, scale, light)[0]

    _, _, width, _ = scene.bounds()
    directions = []
    for label, trace in (("Forward", prediction.forward), ("Return", prediction.reverse)):
        directions.append({"label": f"{label}: {getattr(index.get(trace.src), 'name', trace.src)} \u2192 "
                                    f"{getattr(index.get(trace.dst), 'name', trace.dst)}",
                           "verdict": str(trace.verdict), "estimate": _estimate_text(trace.estimate),
                           "hops": trace.hops, "rules": trace.rules})
    return {"src": names[0], "dst": names[1], "verdict": str(prediction.verdict), "reasons": prediction.reasons,
            "directions": directions, "image": embed(f"path{n}", picture, width) if scene.boxes else None}


def _drawn(index: Index, oid: str) -> bool:
    """Objects the diagram draws as boxes (a vNIC is drawn as its VM, a link as a line)."""
    return index.kind(oid) in ("host", "pnic", "switch", "portgroup", "vm", "vnic", "physical_switch", "port",
                                "physical_router", "router_interface", "physical_host", "host_nic", "dlr")


def _runs(runs: Sequence[Any], embed: Embed) -> list[dict[str, Any]]:
    from ..measure.compare import compare
    from .charts import CHART_W, runs_picture
    from .results import iso

    out = []
    for i, run in enumerate(runs):
        c = compare(run)
        unit = f" {c.unit}"
        out.append({
            "id": run.id if run.id is not None else i + 1, "started": iso(run.started),
            "pair": f"{run.src_name} \u2192 {run.dst_name}", "test": run.spec.label(), "status": run.status,
            "verdict": c.verdict or "", "estimate": f"{c.estimate:.4g}{unit}" if c.estimate is not None else "",
            "measured": f"{c.measured:.4g}{unit}" if c.measured is not None else "",
            "ratio": f"{c.ratio:.2f}x" if c.ratio is not None else "", "flags": c.flags,
            "image": embed(f"run{i}", lambda fmt, scale, run=run: runs_picture([run], fmt, scale),
                           CHART_W) if run.samples else None})
    return out


def context(topology: Topology, options: Any, embed: Embed, engine: Any = None) -> dict[str, Any]:
    """Everything the template shows; ``embed`` decides how pictures travel (data URI or PDF resource)."""
    from ..model.validate import validate
    from ..predict import Engine
    from . import ExportError
    from .charts import heatmap_picture
    from .diagram import png_bytes, svg_bytes

    scene = build_scene(topology)
    _, _, width, _ = scene.bounds()
    diagram = embed("diagram", lambda fmt, scale: svg_bytes(scene) if fmt == "svg" else png_bytes(scene, scale)[0],
                    width)
    engine = engine or Engine(topology)
    matrix: dict[str, Any] | None = None
    table = verdict_table(topology, engine)
    if table.ids:
        n = len(table.ids)
        image = None
        grid = table.grid if n <= MAX_HEATMAP else ()   # beyond that only the counts are shown
        if MAX_MATRIX_TABLE < n <= MAX_HEATMAP:
            image = embed("heatmap", lambda fmt, scale: heatmap_picture(table.names, grid, fmt, "Verdict matrix",
                                                                        scale), n * 26 + 200)
        matrix = {"names": table.names, "counts": sorted(table.counts().items(), key=_verdict_order),
                  "rows": list(zip(table.names, grid)) if n <= MAX_MATRIX_TABLE else [], "image": image}
    predictions = []
    for a, b in options.pairs or default_pairs(table):
        try:
            predictions.append(engine.predict(a, b))
        except LookupError as exc:
            raise ExportError(f"--pair {a} {b}: {exc.args[0] if exc.args else exc}") from None
    return {
        "title": topology.name, "description": topology.description, "design_id": topology.id,
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "version": __version__,
        **inventory(topology), "problems": validate(topology), "diagram": diagram,
        "matrix": matrix,
        "paths": [_path_entry(topology, p, embed, i) for i, p in enumerate(predictions)],
        "runs": _runs(options.runs, embed),
        "colors": style.VERDICT_COLORS, "text_colors": style.VERDICT_TEXT_COLORS, "symbols": style.VERDICT_SYMBOLS,
    }


def _verdict_order(item: tuple[str, int]) -> int:
    order = list(style.VERDICT_COLORS)
    return order.index(item[0]) if item[0] in order else len(order)


def _template() -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(resources_dir() / "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    return env.get_template("report.html.j2")


# --- the two outputs ----------------------------------------------------------------------------------------


def report_html(topology: Topology, options: Any, engine: Any = None) -> str:
    def embed(name: str, picture: Picture, width: float) -> Image:
        data = base64.b64encode(picture("svg", 1.0)).decode("ascii")
        return Image(f"data:image/svg+xml;base64,{data}")

    return _template().render(context(topology, options, embed, engine))


def report_pdf(topology: Topology, options: Any, engine: Any = None) -> tuple[bytes, int]:
    """A4 pages of the report, then the whole diagram as one vector page of its own size (a large design
    is unreadable at A4 width, but zooms in a PDF viewer). Returns the PDF and its page count."""
    from PySide6.QtCore import QMarginsF, QRectF, QSizeF, QUrl
    from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPainter, QPdfWriter, QTextDocument

    from .diagram import Painter, page_layout, paint_page
    from .qt import ensure_app, font, open_buffer

    ensure_app()
    doc = QTextDocument()
    doc.setDefaultFont(font(12))

    def embed(name: str, picture: Picture, width: float) -> Image:
        # twice the pixels it is shown with (sharp in print), never more: a huge diagram would only be slow
        image = QImage.fromData(picture("png", min(2.0, 2 * PDF_WIDTH / max(width, 1.0))), "PNG")
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"vnb:{name}"), image)
        shown = min(width, PDF_WIDTH)
        return Image(f"vnb:{name}", round(shown), round(image.height() * shown / max(1, image.width())))

    data, buffer = open_buffer()
    writer = QPdfWriter(buffer)
    writer.setResolution(96)
    writer.setTitle(exportable(f"{topology.name} - vnetbench report", breaks=False))
    writer.setCreator("vnetbench")
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter))
    page = writer.pageLayout().paintRectPixels(writer.resolution())
    doc.setPageSize(QSizeF(page.width(), page.height()))
    # exportable, as the HTML report's file gets: no control character, bidi overrides shown as escapes
    doc.setHtml(exportable(_template().render(context(topology, options, embed, engine) | {"diagram_page": True})))
    pages = doc.pageCount()
    p = QPainter(writer)
    for i in range(pages):
        if i:
            writer.newPage()
        p.save()
        p.translate(0, -i * page.height())
        doc.drawContents(p, QRectF(0, i * page.height(), page.width(), page.height()))
        p.restore()
    drawing = Painter(build_scene(topology))
    layout, fit = page_layout(drawing)
    writer.setPageLayout(layout)
    writer.newPage()
    paint_page(p, drawing, fit)
    p.end()
    buffer.close()
    return bytes(data.data()), pages + 1
