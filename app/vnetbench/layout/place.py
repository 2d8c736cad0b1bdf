"""Where every box goes and how every line runs: a design in, a ``Diagram`` out.

The picture is built inside out. Each host is laid out on its own: its VMs in rows on top, its virtual switches
side by side below them (a switch is a bar, its name on the left and its portgroups in a row), its pNICs along
the bottom; VMs sit above the portgroups they use. A vDS or an NSX segment has a proxy switch in each member host
(as vSphere draws a distributed switch), and the proxies of hosts standing side by side are tied by a band, a
line at the same height in every host, labelled with the switch's name. Physical switches, routers and physical
hosts are bars too, with their ports, interfaces and NICs in a row along the side their cables leave from.

The top level is a stack of rows: hosts (racks of hosts above the switch most of their cables go to, wrapped so
the picture stays roughly square), then the physical tiers by distance from the hosts, then anything unattached.
Graphviz orders and spaces each row (``graphviz.py``); ``route.py`` draws every line in the channels between the
rows and the gaps between the boxes. A host is laid out from its own contents only, so an edit inside one host
moves nothing inside the others.
"""

from __future__ import annotations

import math
import time

from ..model.objects import MULTI_HOST_SWITCHES, VM, Dlr, Switch, Topology
from ..model.text import exportable
from . import content as C
from .diagram import Box, Diagram, Edge
from .graphviz import Graph, dot_version, place_rows
from .host import HostLayout, switch_bar
from .parts import PIN_STEP, TOP_GAP, End, Part, fit_bar, pack, routes_for
from .route import LANE, MARGIN, Band, Item, route


class Arranger:
    """Lays out a whole design: the hosts (``host.py``), the physical boxes and what stands alone, then the
    top-level rows, their order (Graphviz), the cables between them and the bands between proxies."""

    def __init__(self, topology: Topology) -> None:
        self.t = topology
        self.host_ids = {h.id for h in topology.hosts}
        self.multi = [sw for sw in topology.switches if sw.kind in MULTI_HOST_SWITCHES]
        self.members = {sw.id: [m for m in dict.fromkeys(sw.members) if m in self.host_ids] for sw in self.multi}
        #: switches tied by a band: the ones with two or more member hosts, each with its track number
        self.bus_index = {sw.id: i for i, sw in enumerate(s for s in self.multi if len(self.members[s.id]) > 1)}
        self.dlr_hosts = self._dlr_hosts()
        self.parts: dict[str, Part] = {}
        self.edges: list[Edge] = []

    def _dlr_hosts(self) -> dict[str, list[str]]:
        """The hosts a DLR has an instance in: where the segments (or switches) it joins live."""
        where: dict[str, list[str]] = {}
        for sw in self.t.switches:
            hosts = self.members.get(sw.id) if sw.kind in MULTI_HOST_SWITCHES else (
                [sw.host] if sw.host in self.host_ids else [])
            for oid in [sw.id] + [pg.id for pg in sw.portgroups]:
                where[oid] = hosts or []
        out = {}
        for dlr in self.t.nsx.dlrs:
            hosts: list[str] = []
            for itf in dlr.interfaces:
                hosts += [h for h in where.get(itf.network, []) if h not in hosts]
            out[dlr.id] = [h.id for h in self.t.hosts if h.id in hosts]
        return out

    # --- physical network and loose objects ---------------------------------------------------------------

    def bar_part(self, root: Box, kids: list[Box]) -> Part:
        for kid in kids:
            kid.parent = root.id
        fit_bar(root, [kids])
        return Part(root, [root] + kids)

    def physical_parts(self) -> None:
        t = self.t
        sw_names = {s.id: s.name for s in t.physical_switches}
        for ps in t.physical_switches:
            root = C.frame(ps.id, ps.id, "physical_switch", ps.name, C.physical_switch_details(ps))
            kids = [C.leaf(p.id, p.id, "port", p.name, C.port_details(p)) for p in ps.ports]
            self.parts[ps.id] = self.bar_part(root, kids)
        for rt in t.physical_routers:
            root = C.frame(rt.id, rt.id, "physical_router", rt.name, C.router_details(rt, sw_names.get(rt.switch or "")))
            kids = [C.leaf(i.id, i.id, "router_interface", i.name, C.interface_details(i)) for i in rt.interfaces]
            self.parts[rt.id] = self.bar_part(root, kids)
        for ph in t.physical_hosts:
            root = C.frame(ph.id, ph.id, "physical_host", ph.name, C.physical_host_details(ph))
            kids = [C.leaf(n.id, n.id, "host_nic", n.name, C.interface_details(n)) for n in ph.nics]
            self.parts[ph.id] = self.bar_part(root, kids)

    def loose_parts(self, vms: list[VM], switches: list[Switch], dlrs: list[Dlr]) -> tuple[list[str], list[str]]:
        """VMs, switches and DLRs outside any host, each a top-level box; returns (VM row, switch row) keys."""
        vm_row, sw_row = [], []
        for vm in vms:
            box = C.leaf(vm.id, vm.id, "vm", vm.name, C.vm_details(vm), style=str(vm.role),
                         aliases=tuple(n.id for n in vm.vnics))
            self.parts[vm.id] = Part(box, [box])
            vm_row.append(vm.id)
        for dlr in dlrs:
            box = C.leaf(dlr.id, dlr.id, "dlr", dlr.name, C.dlr_details(dlr))
            self.parts[dlr.id] = Part(box, [box])
            vm_row.append(dlr.id)
        for sw in switches:
            bar, pgs = switch_bar(sw, None)
            self.parts[sw.id] = self.bar_part(bar, pgs)
            sw_row.append(sw.id)
        return vm_row, sw_row

    # --- the whole design ------------------------------------------------------------------------------------

    def run(self) -> Diagram:
        started = time.perf_counter()
        t = self.t
        vms_by_host: dict[str, list[VM]] = {}
        loose_vms = []
        for vm in t.vms:
            if vm.host in self.host_ids:
                vms_by_host.setdefault(vm.host, []).append(vm)
            else:
                loose_vms.append(vm)
        local_by_host: dict[str, list[Switch]] = {}
        loose_sw = []
        for sw in t.switches:
            if sw.kind in MULTI_HOST_SWITCHES:
                if not self.members[sw.id]:
                    loose_sw.append(sw)
            elif sw.host in self.host_ids:
                local_by_host.setdefault(sw.host, []).append(sw)
            else:
                loose_sw.append(sw)
        for host in t.hosts:
            proxies = [(sw, len(self.members[sw.id])) for sw in self.multi if host.id in self.members[sw.id]]
            dlrs = [d for d in t.nsx.dlrs if host.id in self.dlr_hosts[d.id]]
            self.parts[host.id] = HostLayout(host, vms_by_host.get(host.id, []), local_by_host.get(host.id, []),
                                             proxies, dlrs, t.links, self.bus_index).part()
        self.physical_parts()
        vm_row, sw_row = self.loose_parts(loose_vms, loose_sw, [d for d in t.nsx.dlrs if not self.dlr_hosts[d.id]])
        owner = self._owners()
        rows, stacks = self._rows(owner)
        rows += [r for r in (vm_row, sw_row) if r]
        notes = []
        for note in t.layout.notes:
            box = Box(note.id, note.id, "note", note.text, [], 0, 0, note.w or 180.0, note.h or 80.0,
                      color=note.color)
            self.parts[note.id] = Part(box, [box])
            notes.append(note.id)
        if notes:
            rows.append(notes)
        self._equalise(rows)
        engine = self._order(rows, stacks, owner)
        self._arrange_children(rows, owner)
        self._route_top(rows, owner)
        self._bands(rows)
        boxes = self._absolute()
        diagram = Diagram(exportable(t.name, breaks=False), boxes, self.edges)  # titles SVG/PDF metadata
        diagram.engine = engine
        diagram.seconds = time.perf_counter() - started
        return diagram

    def _owners(self) -> dict[str, tuple[str, Box]]:
        """Every box id -> (its top-level part's key, the box)."""
        out = {}
        for key, part in self.parts.items():
            for box in part.boxes:
                out[box.id] = (key, box)
        return out

    def _links(self, owner) -> list[tuple[str, str, str, str, str]]:
        """Top-level lines: (id, end a, end b, kind, label) between boxes of different top-level parts."""
        out = []
        for link in self.t.links:
            if link.a in owner and link.b in owner and owner[link.a][0] != owner[link.b][0]:
                kind = "patch" if owner[link.a][1].kind == "switch" else "cable"
                out.append((link.id, link.a, link.b, kind, ""))
        for rt in self.t.physical_routers:
            if rt.switch in owner and rt.id in owner:
                out.append((f"{rt.id}>{rt.switch}", rt.id, rt.switch, "member", "SVIs"))
        for vm in self.t.vms:
            if vm.id in owner and owner[vm.id][0] == vm.id:  # a VM outside any host
                for nic in vm.vnics:
                    if nic.network in owner:
                        out.append((nic.id, vm.id, nic.network, "vnic" if nic.connected else "standby", ""))
        return out

    def _rows(self, owner) -> tuple[list[list[str]], list[tuple[int, int]]]:
        """Top-level rows (part keys), top to bottom, and the (first, last) row of each stack of host rows."""
        t = self.t
        port_switch = {p.id: ps.id for ps in t.physical_switches for p in ps.ports}
        cables: dict[str, dict[str, int]] = {}
        for link in t.links:
            for a, b in ((link.a, link.b), (link.b, link.a)):
                if a in owner and b in port_switch:
                    key = owner[a][0]
                    cables.setdefault(key, {}).setdefault(port_switch[b], 0)
                    cables[key][port_switch[b]] += 1
        order = {ps.id: i for i, ps in enumerate(t.physical_switches)}
        racks: dict[str | None, list[str]] = {}
        for host in t.hosts:
            peers = cables.get(host.id, {})
            top = max(peers, key=lambda s: (peers[s], -order[s])) if peers else None
            racks.setdefault(top, []).append(host.id)
        rack_list = sorted(racks.items(), key=lambda kv: order.get(kv[0], len(order)) if kv[0] else len(order))
        area = sum(self.parts[h.id].root.w * self.parts[h.id].root.h for h in t.hosts)
        widest = max((self.parts[h.id].root.w for h in t.hosts), default=0.0)
        limit = max(widest, 2.2 * math.sqrt(area), 3000.0)

        def width(hosts: list[str]) -> float:
            return sum(self.parts[h].root.w + TOP_GAP for h in hosts)

        stacks_of_racks: list[list[tuple[str | None, list[str]]]] = []
        for rack in rack_list:
            if stacks_of_racks and width([h for _, hs in stacks_of_racks[-1] for h in hs]) + width(rack[1]) <= limit \
                    and width(rack[1]) <= limit:
                stacks_of_racks[-1].append(rack)
            else:
                stacks_of_racks.append([rack])
        rows: list[list[str]] = []
        stacks: list[tuple[int, int]] = []
        placed: set[str] = set()
        routers_on = {}
        for rt in t.physical_routers:
            if rt.switch:
                routers_on.setdefault(rt.switch, []).append(rt.id)
        for stack in stacks_of_racks:
            first = len(rows)
            hosts = [h for _, hs in stack for h in hs]
            n = max(1, math.ceil(width(hosts) / limit))
            start = 0
            for i in range(n):  # n rows as even as can be
                size = len(hosts) // n + (1 if i < len(hosts) % n else 0)
                rows.append(hosts[start:start + size])
                start += size
            switch_row = []
            for sw_id, _ in stack:
                if sw_id is not None and sw_id not in placed:
                    switch_row.append(sw_id)
                    placed.add(sw_id)
                    for rt in routers_on.get(sw_id, []):
                        switch_row.append(rt)
                        placed.add(rt)
            if switch_row:
                rows.append(switch_row)
            stacks.append((first, len(rows) - 1))
        # the physical tiers below: by distance (over cables) from what is placed already
        neighbours: dict[str, set[str]] = {}
        for link in t.links:
            if link.a in owner and link.b in owner:
                a, b = owner[link.a][0], owner[link.b][0]
                if a != b:
                    neighbours.setdefault(a, set()).add(b)
                    neighbours.setdefault(b, set()).add(a)
        physical = [x.id for x in (*t.physical_switches, *t.physical_routers, *t.physical_hosts)]
        frontier = set(placed) | {h.id for h in t.hosts}

        def take(candidates: list[str]) -> list[str]:
            row = []
            for p in candidates:
                if p in placed:
                    continue
                row.append(p)
                placed.add(p)
                row += [rt for rt in routers_on.get(p, []) if rt not in placed]
                placed.update(routers_on.get(p, []))
            return row

        while True:
            nxt = [p for p in physical if p not in placed and neighbours.get(p, set()) & frontier]
            if not nxt:
                break
            row = take(nxt)
            if row:
                rows.append(row)
            frontier = set(nxt)
        rest = take(physical)
        if rest:
            rows.append(rest)
        return rows, stacks

    def _equalise(self, rows: list[list[str]]) -> None:
        """Hosts side by side get the same height, with their band channel and pNIC row at the same height, so
        a band between two of them is one straight line."""
        for row in rows:
            hosts = [self.parts[k] for k in row if self.parts[k].root.kind == "host"]
            if len(hosts) < 2:
                continue
            for attr, nudge in (("bus_channel", 1.0 - MARGIN), ("pnic_top", -1.0)):
                marks = [getattr(p, attr) for p in hosts if getattr(p, attr) is not None]
                if not marks:
                    continue
                level = max(marks)
                for p in hosts:
                    mark = getattr(p, attr)
                    if mark is not None:
                        p.insert(mark + nudge, level - mark)
            tallest = max(p.root.h for p in hosts)
            for p in hosts:
                p.insert(p.root.h - 1.0, tallest - p.root.h)

    def _order(self, rows: list[list[str]], stacks: list[tuple[int, int]], owner) -> str:
        """Order each row with Graphviz (falls back to the design's order), pack it and centre it under the widest
        row of its stack; returns the engine's name."""
        weights: dict[tuple[str, str], int] = {}
        for _, a, b, _, _ in self._links(owner):
            key = (owner[a][0], owner[b][0])
            weights[key] = weights.get(key, 0) + 1
        groups: list[list[int]] = []
        if len(stacks) == 1:
            groups.append(list(range(len(rows))))
        else:
            for first, last in stacks:
                groups.append(list(range(first, last + 1)))
            tail = list(range(stacks[-1][1] + 1 if stacks else 0, len(rows)))
            if tail:
                groups.append(tail)
        graphs = []
        for group in groups:
            members = {k for r in group for k in rows[r]}
            graph_rows = [[(k, self.parts[k].root.w, self.parts[k].root.h) for k in rows[r]] for r in group]
            links = [(a, b, w) for (a, b), w in weights.items() if a in members and b in members]
            graphs.append(Graph(graph_rows, links))
        placed = place_rows(graphs)
        for g, group in enumerate(groups):
            widths = []
            for r in group:
                row = rows[r]
                if placed is not None:  # dot's order; the spacing is ours: compact, each row centred
                    xs = placed[g]
                    row.sort(key=lambda k: xs.get(k, 0.0))
                roots = [self.parts[k].root for k in row]
                pack(roots, [None] * len(roots), TOP_GAP)
                widths.append(roots[-1].x + roots[-1].w if roots else 0.0)
            widest = max(widths, default=0.0)
            for r, width in zip(group, widths):
                for k in rows[r]:
                    self.parts[k].root.x += (widest - width) / 2
        return dot_version() if placed is not None else "model order (graphviz dot not found)"

    def _arrange_children(self, rows: list[list[str]], owner) -> None:
        """Ports, interfaces and NICs go to the side of their bar their cable leaves from (the top when it goes to
        a row above), in the order of what they are cabled to, so cables do not cross at the bar."""
        row_of = {k: r for r, row in enumerate(rows) for k in row}
        peer: dict[str, str] = {}
        for _, a, b, _, _ in self._links(owner):
            peer.setdefault(a, b)
            peer.setdefault(b, a)
        self.side: dict[str, int] = {}
        for key, part in self.parts.items():
            if part.root.kind not in ("physical_switch", "physical_router", "physical_host"):
                continue
            top, bottom = [], []
            for kid in part.boxes[1:]:
                other = peer.get(kid.id)
                down = other is not None and row_of.get(owner[other][0], 0) >= row_of.get(key, 0)
                self.side[kid.id] = 1 if down else -1
                (bottom if down else top).append(kid)
            for row in (top, bottom):
                row.sort(key=lambda k: self._centre(owner, peer[k.id]) if k.id in peer else 1e12)
            fit_bar(part.root, [top, bottom])

    def _centre(self, owner, box_id: str) -> float:
        """The x of a box's centre in the top-level coordinates known so far."""
        key, box = owner[box_id]
        part = self.parts[key]
        return part.root.x + part.offset(box)[0] + box.w / 2

    def _route_top(self, rows: list[list[str]], owner) -> None:
        """Route the cables between top-level boxes through the rows' gaps and the channels between them."""
        bands: list[Band] = []
        self.items: dict[str, Item] = {}
        band_of: dict[str, int] = {}
        for r, row in enumerate(rows):
            band = Band([], max(self.parts[k].root.h for k in row) if row else 0.0)
            for k in row:
                root = self.parts[k].root
                item = Item(k, root.x, root.w, root.h)
                self.items[k] = item
                band.items.append(item)
                band_of[k] = r
            bands.append(band)
        links = self._links(owner)
        edges = {lid: Edge(lid, a, b, kind, label, refs=(lid,) if kind != "member" else (a, b))
                 for lid, a, b, kind, label in links}

        def end(box_id: str) -> End:
            key, box = owner[box_id]
            part = self.parts[key]
            left, top = part.offset(box)
            side = self.side.get(box.id, -1 if box.kind == "portgroup" else 1)
            return End(band_of[key], self.items[key], box, left, top, side)

        routes = routes_for(list(edges.values()), lambda e: (end(e.a), end(e.b)),
                         lambda box_id: self._centre(owner, box_id), reserved={})
        route(bands, list(routes.values()), TOP_GAP)
        for key, r in routes.items():
            edges[key].points = r.points(bands)
        for band in bands:
            for item in band.items:
                root = self.parts[item.key].root
                root.x, root.y = item.x, band.y
        self.edges = list(edges.values())
        self.row_bands = bands

    def _bands(self, rows: list[list[str]]) -> None:
        """Tie the proxies of a vDS or NSX segment in hosts standing next to each other with a band."""
        for row in rows:
            hosts = [k for k in row if self.parts[k].root.kind == "host"]
            for sw_id, track in self.bus_index.items():
                sw = next(s for s in self.multi if s.id == sw_id)
                for a, b in zip(hosts, hosts[1:]):
                    if a not in self.members[sw_id] or b not in self.members[sw_id]:
                        continue
                    pa, pb = self.parts[a], self.parts[b]
                    ba = next(x for x in pa.boxes if x.id == f"{sw_id}@{a}")
                    bb = next(x for x in pb.boxes if x.id == f"{sw_id}@{b}")
                    y = pa.root.y + pa.bus_channel + track * LANE
                    xa = pa.root.x + ba.x + ba.w - PIN_STEP
                    xb = pb.root.x + bb.x + PIN_STEP
                    self.edges.append(Edge(f"{sw_id}@{a}~{b}", ba.id, bb.id, "bus", exportable(sw.name, False),
                                           [(xa, pa.root.y + ba.y + ba.h), (xa, y), (xb, y),
                                            (xb, pb.root.y + bb.y + bb.h)], refs=(sw_id,)))

    def _absolute(self) -> list[Box]:
        """Every box in scene coordinates (parents first), and the lines inside parts moved with them."""
        out: list[Box] = []
        for part in self.parts.values():
            pos = {part.root.id: (part.root.x, part.root.y)}
            out.append(part.root)
            for box in part.boxes[1:]:
                px, py = pos[box.parent]
                box.x, box.y = px + box.x, py + box.y
                pos[box.id] = (box.x, box.y)
                out.append(box)
            for edge in part.edges:
                edge.points = [(x + part.root.x, y + part.root.y) for x, y in edge.points]
                self.edges.append(edge)
        return out


def arrange(topology: Topology) -> Diagram:
    """The whole design laid out."""
    return Arranger(topology).run()
