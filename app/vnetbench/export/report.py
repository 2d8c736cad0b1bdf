"""The documentation report: one self-contained HTML file, and the same HTML printed to PDF.

One Jinja2 template (``resources/templates/report.html.j2``) makes the HTML; pictures are SVG inlined as
``data:`` URIs so the file travels alone (wiki upload, mail attachment). The PDF is that very HTML laid out by
WeasyPrint, a CSS paged-media engine: page numbers, bookmarks from the headings, links from the table of
contents, headings kept with what follows, table headers repeated on each page, vector pictures and subset
fonts. Its print style sheet is in the template, beside the screen one.
"""

from __future__ import annotations

import base64
import ipaddress
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

import jinja2

from .. import __version__, resources_dir
from ..layout.content import (
    SWITCH_KINDS, lacp_text, portgroup_details, pvlan_map_text, teaming_text,
)
from ..model import Index, Topology
from ..model.families import DEFAULT_NETWORK, family, shown
from ..model.objects import PORTGROUP_SWITCHES, Route, VmRole
from ..model.routing import DEFAULT_PREFIX
from ..model.text import exportable
from ..predict.printer import hop_kind
from . import style
from .matrix import VerdictTable, matrix_csv, verdict_table
from .natrows import nat_rows
from .scene import build_scene, highlighted
from .words import blocks, count, number

#: Above this many endpoints the matrix is shown as a heatmap instead of a table, above the next as counts.
MAX_MATRIX_TABLE = 40
MAX_HEATMAP = 150
#: Without chosen pairs, the report shows one example pair per verdict, at most this many.
MAX_DEFAULT_PATHS = 6
#: Past this many VMs the whole design is not drawn into the report (a picture of thousands of VMs is tens of
#: megabytes nobody reads); the report names the exports that draw it. A path's picture larger than
#: ``MAX_PICTURE`` bytes of SVG is left out the same way (its hops are listed below it).
MAX_DIAGRAM_VMS = 500
MAX_PICTURE = 1_500_000
#: Up to this many endpoints the full matrix travels inside the report as a CSV attachment (about 2 MB at the
#: limit); past it the report names the commands that write or stream it.
MAX_ATTACHED_CSV = 400
#: Networks listed in the verdicts-by-network table (the most populous first).
MAX_NETWORK_ROWS = 60
#: A diagram wider than this (CSS px, A4's printed width) gets a PDF page of its own size, where it zooms; with
#: this margin around it, more below for the page number, and room above for its heading.
A4_WIDTH = 680
WHOLE_MARGIN, WHOLE_BOTTOM, WHOLE_HEADING = 24, 48, 56

ROLES = {VmRole.VM: "VM", VmRole.FIREWALL: "firewall", VmRole.ROUTER: "router", VmRole.NSX_EDGE: "NSX edge"}


def svg_uri(data: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")


# --- the facts --------------------------------------------------------------------------------------------


def _names(index: Index) -> Callable[[str | None], str]:
    def name(oid: str | None) -> str:
        return getattr(index.get(oid), "name", oid or "")
    return name


def _network(index: Index, oid: str | None) -> str:
    """A network with what holds it (``vSwitch0/VLAN10``, ``kvm01/br0``), so two of one name stay apart."""
    net = index.get(oid)
    parent = index.parent(oid) if oid else None
    return f"{parent.name}/{net.name}" if net is not None and parent is not None else getattr(net, "name", oid or "")


def inventory(topology: Topology) -> dict[str, Any]:
    index = Index(topology)
    name = _names(index)

    def pnic_name(pnic_id: str) -> str:
        host = index.parent(pnic_id)
        return f"{host.name}/{name(pnic_id)}" if host is not None else pnic_id

    hosts = [{"name": h.name, "kind": str(h.kind), "cpus": h.cpus,
              "pnics": [f"{n.name} ({number(n.speed_mbps, 'Mbit/s')}{'' if n.up else ', down'})" for n in h.pnics]}
             for h in topology.hosts]
    switches = []
    for sw in topology.switches:
        on = name(sw.host) if sw.host else ", ".join(name(m) for m in sw.members)
        lag_of = {p: lag.name for lag in sw.lags for p in lag.pnics}
        uplinks = [pnic_name(u.pnic) + (" (standby)" if u.standby else "")
                   + (f" (LAG {lag_of[u.pnic]})" if u.pnic in lag_of else "") for u in sw.uplinks]
        pgs = [{"name": pg.name, "vlan": "; ".join(portgroup_details(pg, sw))} for pg in sw.portgroups] \
            if sw.kind in PORTGROUP_SWITCHES else []
        fabric = ([teaming_text(sw.teaming, sw)] if sw.teaming is not None else []) \
            + [f"LAG {lag.name}: {lacp_text(lag.mode)}, hash {lag.hash}, {', '.join(map(pnic_name, lag.pnics))}"
               for lag in sw.lags] + pvlan_map_text(sw.pvlans)
        switches.append({"name": sw.name, "kind": SWITCH_KINDS.get(sw.kind, str(sw.kind)), "on": on,
                         "uplinks": uplinks, "mtu": sw.mtu, "portgroups": pgs, "fabric": fabric})
    vms = []
    for vm in topology.vms:
        nics = []
        for nic in vm.vnics:
            network = _network(index, nic.network)
            if nic.guest_vlan:
                network += f" (guest VLAN {nic.guest_vlan})"
            nics.append({"name": nic.name + ("" if nic.connected else " (disconnected)"), "type": str(nic.type),
                         "network": network, "ip": ", ".join(shown(nic)),
                         "gateway": ", ".join(g for g in (nic.gateway, nic.gateway6) if g)})
        vms.append({"name": vm.name, "host": name(vm.host), "role": ROLES.get(vm.role, str(vm.role)), "vnics": nics})
    physical = [{"name": s.name, "kind": "physical switch",
                 "parts": [f"{p.name} {p.mode} {p.access_vlan if p.mode == 'access' else p.allowed}"
                           for p in s.ports] + _bundles(s)} for s in topology.physical_switches]
    physical += [{"name": r.name, "kind": "router" + (f" (L3 switch on {name(r.switch)})" if r.switch else ""),
                  "parts": [f"{i.name} {' '.join(shown(i))}" + (f" VLAN {i.vlan}" if i.vlan else "")
                            for i in r.interfaces]}
                 for r in topology.physical_routers]
    physical += [{"name": h.name, "kind": "physical host", "parts": [f"{n.name} {' '.join(shown(n))}" for n in h.nics]}
                 for h in topology.physical_hosts]
    counts = [count(len(topology.hosts), "host"), count(len(topology.switches), "switch"),
              count(sum(len(s.portgroups) for s in topology.switches), "portgroup"), count(len(topology.vms), "VM"),
              count(len(physical), "physical device")]
    return {"hosts": hosts, "switches": switches, "vms": vms, "physical": physical, "counts": counts}


def _party(name: Callable[[str | None], str], value: str) -> str:
    """A rule's source or destination: ``any``, an address or prefix as written, an object by its name."""
    return value if value == "any" else name(value)


def _rules(name: Callable[[str | None], str], rules: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"n": n, "name": r.name, "action": str(r.action), "src": _party(name, r.src), "dst": _party(name, r.dst),
             "proto": str(r.proto), "port": "any" if r.port in (None, "") else str(r.port),
             "applied_to": [name(a) for a in getattr(r, "applied_to", [])]}
            for n, r in enumerate(rules, start=1)]


def _connected(ip: str | None) -> str | None:
    try:
        return str(ipaddress.ip_interface(ip).network) if ip else None
    except ValueError:
        return None


def policy(topology: Topology) -> dict[str, Any]:
    """The security policy an auditor asks for: each forwarding VM's rules in order with its default, and
    the NSX distributed firewall's."""
    index = Index(topology)
    name = _names(index)
    forwarders: list[dict[str, Any]] = []
    for vm in topology.vms:
        if vm.role is VmRole.VM:
            continue
        f = vm.forwarding
        forwarders.append({"name": vm.name, "anchor": f"fw-{len(forwarders) + 1}", "role": ROLES[vm.role],
                           "host": name(vm.host), "mode": str(f.mode), "stateful": f.stateful,
                           "default": str(f.default_policy), "rules": _rules(name, f.rules)})
    dfw = topology.nsx.dfw
    uses_nsx = bool(dfw.rules or topology.nsx.dlrs or any(s.kind == "nsx-segment" for s in topology.switches))
    return {"forwarders": forwarders,
            "dfw": {"stateful": dfw.stateful, "default": str(dfw.default_policy),
                    "rules": _rules(name, dfw.rules)} if uses_nsx else None}


def routing(topology: Topology) -> list[dict[str, Any]]:
    """Everything that routes, with its interfaces and its routes: connected subnets, then static routes, then
    for routed VMs a default route through each vNIC's gateway."""
    index = Index(topology)
    name = _names(index)
    out = []
    for vm in topology.vms:
        if vm.role is VmRole.VM or vm.forwarding.mode != "routed":
            continue
        interfaces = [{"name": n.name, "network": _network(index, n.network), "ip": ", ".join(shown(n))}
                      for n in vm.vnics]
        routes = [{"prefix": net, "via": f"connected ({n.name})"} for n in vm.vnics for a in shown(n)
                  if (net := _connected(a))]
        routes += _static(vm.forwarding.routes)
        routes += [{"prefix": f"{DEFAULT_NETWORK[family(g) or 4]} (default)", "via": f"{g} ({n.name})"}
                   for n in vm.vnics for g in (n.gateway, n.gateway6) if g]
        out.append({"name": vm.name, "kind": f"{ROLES[vm.role]} VM on {name(vm.host)}", "interfaces": interfaces,
                    "routes": routes, "nat": nat_rows(vm)})
    for dlr in topology.nsx.dlrs:
        interfaces = [{"name": i.name, "network": _network(index, i.network), "ip": ", ".join(shown(i))}
                      for i in dlr.interfaces]
        routes = [{"prefix": net, "via": f"connected ({i.name})"} for i in dlr.interfaces for a in shown(i)
                  if (net := _connected(a))]
        routes += _static(dlr.routes)
        out.append({"name": dlr.name, "kind": "NSX distributed logical router (routes on each source host)",
                    "interfaces": interfaces, "routes": routes})
    for router in topology.physical_routers:
        interfaces = [{"name": i.name, "network": f"VLAN {i.vlan}" if i.vlan else "", "ip": ", ".join(shown(i))}
                      for i in router.interfaces]
        routes = [{"prefix": net, "via": f"connected ({i.name})"} for i in router.interfaces for a in shown(i)
                  if (net := _connected(a))]
        routes += _static(router.routes)
        kind = f"L3 switch on {name(router.switch)}" if router.switch else "physical router"
        out.append({"name": router.name, "kind": kind, "interfaces": interfaces, "routes": routes})
    for n, device in enumerate(out, start=1):
        device["anchor"] = f"router-{n}"
        device.setdefault("nat", [])
    return out


def _static(routes: list[Route]) -> list[dict[str, str]]:
    """Static routes as the report's rows, in the order the router tries equal prefixes."""
    return [{"prefix": f"{DEFAULT_NETWORK[family(r.via) or 4]} (default)"
             if r.prefix.strip().lower() == DEFAULT_PREFIX else r.prefix,
             "via": r.via + (f" ({r.interface})" if r.interface else "")} for r in routes]


def _bundles(ps: Any) -> list[str]:
    """A physical switch's stack, port channels and private VLAN map, as parts of its inventory row."""
    names = {p.id: p.name for p in ps.ports}
    return ([f"stack {ps.stack}"] if ps.stack else []) \
        + [f"port channel {ch.name} ({lacp_text(ch.mode)}): {' + '.join(names.get(p, p) for p in ch.ports)}"
           for ch in ps.port_channels] + pvlan_map_text(ps.pvlans)


def default_pairs(table: VerdictTable) -> list[tuple[str, str]]:
    """One example pair per verdict, in the matrix's order."""
    return table.first_pairs()[:MAX_DEFAULT_PATHS]


def _estimate_text(estimate: Any) -> str:
    parts = []
    if estimate.throughput_mbps is not None:
        parts.append(f"about {number(estimate.throughput_mbps, 'Mbit/s')}")
    if estimate.latency_us is not None:
        parts.append("+" + number(estimate.latency_us, "\u00b5s"))
    if estimate.bottleneck:
        parts.append(f"bottleneck {estimate.bottleneck}")
    return ", ".join(parts)


def _path_entry(topology: Topology, prediction: Any, n: int) -> dict[str, Any]:
    from . import describe_path
    from .diagram import Highlight, svg_bytes

    index = Index(topology)
    names = [getattr(index.get(i), "name", i) for i in (prediction.forward.src, prediction.forward.dst)]
    ids, color, caption = describe_path(topology, prediction)
    # in a large design a host or switch selected brings everything in it: the objects the path passes bring
    # only the frames around them
    leaves = len(topology.vms) > MAX_DIAGRAM_VMS
    scene = build_scene(topology, [oid for oid in dict.fromkeys(ids) if oid and _drawn(index, oid)
                                   and not (leaves and index.kind(oid) in ("host", "switch", "physical_switch"))])
    light = Highlight(*highlighted(scene, ids), color, caption)
    directions = []
    for label, trace in (("Forward", prediction.forward), ("Return", prediction.reverse)):
        directions.append({"label": f"{label}: {getattr(index.get(trace.src), 'name', trace.src)} \u2192 "
                                    f"{getattr(index.get(trace.dst), 'name', trace.dst)}",
                           "verdict": str(trace.verdict), "estimate": _estimate_text(trace.estimate),
                           "hops": [{"name": h.name, "kind": hop_kind(h.kind), "detail": h.detail}
                                    for h in trace.hops],
                           "rules": trace.rules})
    picture = svg_bytes(scene, light) if scene.boxes else b""
    return {"anchor": f"path-{n + 1}", "src": names[0], "dst": names[1], "verdict": str(prediction.verdict),
            "reasons": prediction.reasons, "directions": directions,
            "image": svg_uri(picture) if picture and len(picture) <= MAX_PICTURE else None,
            "too_large": len(picture) > MAX_PICTURE}


def _drawn(index: Index, oid: str) -> bool:
    """Objects the diagram draws as boxes (a vNIC is drawn as its VM, a link as a line)."""
    return index.kind(oid) in ("host", "pnic", "switch", "portgroup", "vm", "vnic", "physical_switch", "port",
                                "physical_router", "router_interface", "physical_host", "host_nic", "dlr")


def _runs(runs: Sequence[Any]) -> list[dict[str, Any]]:
    from ..measure.compare import compare
    from .charts import runs_picture

    out = []
    for i, run in enumerate(runs):
        c = compare(run)
        unit = "\u00b5s" if c.unit == "us" else c.unit
        out.append({
            "id": run.id if run.id is not None else i + 1,
            "started": datetime.fromtimestamp(run.started, timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
            "pair": f"{run.src_name} \u2192 {run.dst_name}", "test": run.spec.label(), "status": run.status,
            "verdict": c.verdict or "", "estimate": number(c.estimate, unit), "measured": number(c.measured, unit),
            "ratio": f"{c.ratio:.2f}\u00d7" if c.ratio is not None else "", "flags": c.flags,
            "image": svg_uri(runs_picture([run], "svg")) if run.samples or run.summary.get("points") else None})
    return out


def _verifications(verifications: Sequence[Any]) -> list[dict[str, Any]]:
    """Each stored verification's headline (``verified on local at ...: N pairs, M contradictions``), its
    scope and its contradictions in words."""
    return [{"headline": v.headline(), "scope": v.scope, "limits": list(v.limits),
             "contradictions": [f"{c.src_name} \u2192 {c.dst_name} ({c.verdict}), {ch.what}: {ch.detail}"
                                for c in v.cells for ch in c.contradictions]} for v in verifications]


def context(topology: Topology, options: Any, engine: Any = None) -> dict[str, Any]:
    """Everything the template shows."""
    from ..model.validate import validate
    from ..predict import Engine
    from . import ExportError
    from .charts import PIXEL_RATIO, heatmap_picture
    from .diagram import svg_bytes

    drawn = len(topology.vms) <= MAX_DIAGRAM_VMS
    engine = engine or Engine(topology)
    matrix: dict[str, Any] | None = None
    table = verdict_table(topology, engine)
    if table.ids:
        n = len(table.ids)
        grid = table.grid if n <= MAX_HEATMAP else ()   # beyond that only the counts are shown
        # a PNG at twice its pixels: as SVG, its ten thousand cells and symbols weigh megabytes and take a
        # print engine half a minute to draw
        image = "data:image/png;base64," + base64.b64encode(heatmap_picture(
            table.names, grid, "png", "Verdict matrix", PIXEL_RATIO)).decode("ascii") \
            if MAX_MATRIX_TABLE < n <= MAX_HEATMAP else None
        matrix = {"names": table.names, "pairs": count(n * (n - 1), "ordered pair"),
                  "counts": [(v, number(c)) for v, c in sorted(table.counts().items(), key=_verdict_order)],
                  "rows": list(zip(table.names, grid, table.marked().tolist())) if n <= MAX_MATRIX_TABLE else [],
                  "uplinks": table.uplinks.legend if n <= MAX_ATTACHED_CSV and table.uplinks else None,
                  "image": image,
                  "networks": _by_network(topology, table) if n > MAX_MATRIX_TABLE else None,
                  "csv": "data:text/csv;charset=utf-8;base64," + base64.b64encode(matrix_csv(table)).decode("ascii")
                  if n <= MAX_ATTACHED_CSV else None,
                  "csv_name": (re.sub(r"[^\w.-]+", "-", topology.name).strip("-.") or "design") + "-matrix.csv"}
    predictions = []
    for a, b in options.pairs or default_pairs(table):
        try:
            predictions.append(engine.predict(a, b))
        except LookupError as exc:
            raise ExportError(f"--pair {a} {b}: {exc.args[0] if exc.args else exc}") from None
    scene = build_scene(topology) if drawn else None
    picture = svg_bytes(scene) if scene is not None and scene.boxes else b""
    diagram = svg_uri(picture) if picture else None
    svg = ET.fromstring(picture) if picture else None
    width, height = (float(svg.get("width", 0)), float(svg.get("height", 0))) if svg is not None else (0.0, 0.0)
    return {
        "title": topology.name, "description": blocks(topology.description), "design_id": topology.id,
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "version": __version__,
        **inventory(topology), **policy(topology), "routers": routing(topology), "problems": validate(topology),
        "diagram": diagram, "too_many_to_draw": None if drawn else count(len(topology.vms), "VM"),
        "whole": {"own_page": width > A4_WIDTH, "width": round(width) + 2 * WHOLE_MARGIN,
                  "height": round(height) + WHOLE_HEADING + WHOLE_MARGIN + WHOLE_BOTTOM,
                  "margin": WHOLE_MARGIN, "bottom": WHOLE_BOTTOM},
        "matrix": matrix,
        "paths": [_path_entry(topology, p, i) for i, p in enumerate(predictions)],
        "runs": _runs(options.runs),
        "verifications": _verifications(getattr(options, "verifications", ())),
        "colors": style.VERDICT_COLORS, "text_colors": style.VERDICT_TEXT_COLORS, "symbols": style.VERDICT_SYMBOLS,
    }


def _by_network(topology: Topology, table: VerdictTable) -> dict[str, Any]:
    """Pairs per verdict from the endpoints of each network (a portgroup or switch name: per-host vSwitch
    portgroups of one name are one network to an admin), from the class table: what the full matrix says,
    in a table of a few dozen rows."""
    index = Index(topology)
    network_of: list[str] = []
    for eid in table.ids:
        obj = index.get(eid)
        nics = getattr(obj, "vnics", None) or getattr(obj, "nics", None) or []
        net = next((getattr(nic, "network", None) for nic in nics if getattr(nic, "network", None)), None)
        network_of.append(getattr(index.get(net), "name", net) or "(no network)")
    rows = table.counts_by(network_of)
    words = [w for w in table.verdicts if any(row.get(w) for row in rows.values())]
    order = sorted(rows, key=lambda g: (-sum(rows[g].values()), g))
    shown = order[:MAX_NETWORK_ROWS]
    members = {g: network_of.count(g) for g in shown}
    return {"verdicts": sorted(words, key=lambda w: _verdict_order((w, 0))),
            "rows": [(g, number(members[g]), [number(rows[g].get(w, 0)) for w in
                                              sorted(words, key=lambda w: _verdict_order((w, 0)))]) for g in shown],
            "more": count(len(order) - len(shown), "more network") if len(order) > len(shown) else ""}


def _verdict_order(item: tuple[str, int]) -> int:
    order = list(style.VERDICT_COLORS)
    return order.index(item[0]) if item[0] in order else len(order)


def _template() -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(resources_dir() / "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    env.filters["number"] = number
    return env.get_template("report.html.j2")


# --- the two outputs ----------------------------------------------------------------------------------------


def report_html(topology: Topology, options: Any, engine: Any = None, attach: bool = True) -> str:
    """The report as one HTML file; ``attach``: with the full matrix as a CSV attachment (small designs)."""
    facts = context(topology, options, engine)
    if not attach and facts["matrix"]:
        facts["matrix"]["csv"] = None
    return _template().render(facts)


def report_pdf(topology: Topology, options: Any, engine: Any = None) -> tuple[bytes, int]:
    """The report's HTML printed by WeasyPrint on A4 pages, a wide diagram on a vector page of its own size (a
    large design zooms there). Returns the PDF and its page count."""
    from . import ExportError

    try:
        import weasyprint
    except (ImportError, OSError) as exc:   # OSError: Pango's libraries are missing
        raise ExportError(f"report-pdf needs WeasyPrint and Pango ({exc}): pip install 'vnetbench[export]' and "
                          "apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0") from None
    # a PDF link cannot download an attachment: the CSV stays with the HTML report
    document = weasyprint.HTML(string=exportable(report_html(topology, options, engine, attach=False))).render()
    return document.write_pdf(), len(document.pages)
