"""The inside of one host: VMs in rows on top, its switches side by side below them, its pNICs along the bottom.

A switch is a bar: its name and kind on the left, its portgroups in a row to the right (a vDS or NSX segment is a
proxy bar in each member host). VMs are ordered and placed above the portgroups they use, pNICs under the switches
that use them; then ``route.py`` draws every vNIC line, uplink and patch through the gaps and channels. The first
tracks of the channel between the switches and the pNICs are kept for the bands that tie proxies to the next
host's (``place.py`` draws those once the hosts stand side by side).
"""

from __future__ import annotations

import math

from ..model.objects import PORTGROUP_SWITCHES, VM, Dlr, Host, Link, Switch
from . import content as C
from .diagram import Box, Edge
from .parts import GAP, PAD, PIN_STEP, VM_ROW_MIN, End, Part, fit_bar, pack, routes_for
from .route import MARGIN, Band, Item, route


def switch_bar(sw: Switch, host: str | None, members: int | None = None) -> tuple[Box, list[Box]]:
    """A switch as a bar with its portgroups; ``members`` set makes it the proxy in ``host`` of a switch that
    spans that many hosts (ids ``<switch>@<host>``, ``<portgroup>@<host>``)."""
    proxy = members is not None
    sid = f"{sw.id}@{host}" if proxy else sw.id
    details = C.switch_details(sw)
    if proxy:
        details.append(f"proxy \u00b7 {members} member hosts")
    bar = C.frame(sid, sw.id, "switch", sw.name, details, style=str(sw.kind), host=host)
    pgs = []
    if sw.kind in PORTGROUP_SWITCHES:
        for pg in sw.portgroups:
            box = C.leaf(f"{pg.id}@{host}" if proxy else pg.id, pg.id, "portgroup", pg.name,
                         C.portgroup_details(pg, sw), host=host)
            box.parent = sid
            pgs.append(box)
    return bar, pgs


def _mean(values: list[float] | None) -> float | None:
    return sum(values) / len(values) if values else None


class HostLayout:
    """Lays out one host. ``proxies`` are the multi-host switches it is a member of, with their member counts;
    ``bands`` maps the ones tied by a band to their track number."""

    def __init__(self, host: Host, vms: list[VM], local: list[Switch], proxies: list[tuple[Switch, int]],
                 dlrs: list[Dlr], links: list[Link], bands: dict[str, int]) -> None:
        self.host, self.vms, self.local, self.proxies, self.dlrs = host, vms, local, proxies, dlrs
        self.links, self.bands = links, bands
        self.frame = C.frame(host.id, host.id, "host", host.name, C.host_details(host), style=str(host.kind))
        self.bars: list[Box] = []
        self.pgs: dict[str, list[Box]] = {}     # bar id -> its portgroups
        self.leaves: list[Box] = []             # VMs and DLR instances
        self.pnics: list[Box] = []
        self.by_id: dict[str, Box] = {}
        self.edges: list[Edge] = []

    def part(self) -> Part:
        self._boxes()
        self._lines()
        rows = self._rows()
        return self._route(rows)

    # --- what the host holds ---------------------------------------------------------------------------------

    def _add(self, box: Box, parent: str) -> Box:
        box.parent = parent
        self.by_id[box.id] = box
        return box

    def _boxes(self) -> None:
        host = self.host
        switches = [(sw, None) for sw in self.local] + list(self.proxies)
        for sw, members in switches:
            bar, pgs = switch_bar(sw, host.id, members)
            self.bars.append(self._add(bar, host.id))
            self.pgs[bar.id] = [self._add(pg, bar.id) for pg in pgs]
        for vm in self.vms:
            self.leaves.append(self._add(C.leaf(vm.id, vm.id, "vm", vm.name, C.vm_details(vm), style=str(vm.role),
                                                aliases=tuple(n.id for n in vm.vnics), host=host.id), host.id))
        for dlr in self.dlrs:
            self.leaves.append(self._add(C.leaf(f"{dlr.id}@{host.id}", dlr.id, "dlr", dlr.name, C.dlr_details(dlr),
                                                host=host.id), host.id))
        for nic in host.pnics:
            self.pnics.append(self._add(C.leaf(nic.id, nic.id, "pnic", nic.name, C.pnic_details(nic),
                                               host=host.id), host.id))

    def _lines(self) -> None:
        """vNIC lines (to the portgroup instance here), DLR interfaces, uplinks to this host's pNICs, patches."""
        host = self.host.id
        target = {bar.ref: bar for bar in self.bars} | {pg.ref: pg for pgs in self.pgs.values() for pg in pgs}
        for vm in self.vms:
            for nic in vm.vnics:
                tgt = target.get(nic.network or "")
                if tgt is not None:
                    self.edges.append(Edge(nic.id, vm.id, tgt.id, "vnic" if nic.connected else "standby",
                                           refs=(nic.id, nic.network or "")))
        for dlr in self.dlrs:
            for itf in dlr.interfaces:
                tgt = target.get(itf.network)
                if tgt is not None:
                    self.edges.append(Edge(f"{itf.id}@{host}", f"{dlr.id}@{host}", tgt.id, "dlr",
                                           refs=(itf.id, itf.network)))
        pnic_ids = {b.id for b in self.pnics}
        switches = [sw for sw in self.local] + [sw for sw, _ in self.proxies]
        for sw, bar in zip(switches, self.bars):
            for up in sw.uplinks:
                if up.pnic in pnic_ids:
                    self.edges.append(Edge(f"{bar.id}>{up.pnic}", bar.id, up.pnic,
                                           "standby" if up.standby else "uplink",
                                           label=f"VLAN {up.vlan}" if up.vlan else "", refs=(sw.id, up.pnic)))
        local = {s.id for s in self.local}
        for link in self.links:
            if link.a in local and link.b in local:
                self.edges.append(Edge(link.id, link.a, link.b, "patch", refs=(link.id,)))

    # --- where things go ---------------------------------------------------------------------------------------

    def centre(self, box_id: str) -> float:
        box = self.by_id[box_id]
        if box.kind == "portgroup":
            return self.by_id[box.parent].x + box.x + box.w / 2
        return box.x + box.w / 2

    def _rows(self) -> list[list[Box]]:
        """Bands top to bottom: rows of VMs, the switches, the pNICs. Portgroups are as wide as the lines ending
        on them need; VMs are dealt into rows in the order of what they use and placed above it."""
        incoming: dict[str, int] = {}
        for e in self.edges:
            incoming[e.b] = incoming.get(e.b, 0) + 1
        x = 0.0
        for bar in self.bars:
            for pg in self.pgs[bar.id]:
                pg.w = max(pg.w, (incoming.get(pg.id, 0) + 1) * PIN_STEP)
            fit_bar(bar, [self.pgs[bar.id]])
            bar.x = x
            x += bar.w + GAP
        wants: dict[str, list[float]] = {}  # VM -> where what it uses is
        ups: dict[str, list[float]] = {}    # pNIC -> where the switches using it are
        pnic_ids = {p.id for p in self.pnics}
        for e in self.edges:
            if e.b in pnic_ids:
                ups.setdefault(e.b, []).append(self.centre(e.a))
            elif e.kind in ("vnic", "standby", "dlr"):
                wants.setdefault(e.a, []).append(self.centre(e.b))
        leaves = sorted(self.leaves, key=lambda b: _mean(wants.get(b.id)) if b.id in wants else 1e12)
        total = sum(b.w + GAP for b in leaves)
        limit = max(x - GAP, VM_ROW_MIN, 1.3 * math.sqrt(total * 200.0))
        nrows = max(1, math.ceil(total / limit)) if leaves else 0
        rows: list[list[Box]] = [leaves[k::nrows] for k in range(nrows)]  # each row spans the whole width
        for row in rows:
            pack(row, [_mean(wants.get(b.id)) for b in row], GAP)
        self.pnics.sort(key=lambda b: _mean(ups.get(b.id)) if b.id in ups else 1e12)
        pack(self.pnics, [_mean(ups.get(b.id)) for b in self.pnics], GAP)
        return [row for row in rows + [self.bars, self.pnics] if row]

    def _route(self, rows: list[list[Box]]) -> Part:
        bands: list[Band] = []
        band_of: dict[str, int] = {}
        items: dict[str, Item] = {}
        for row in rows:
            band = Band([], max(b.h for b in row))
            for b in row:
                items[b.id] = Item(b.id, b.x, b.w, b.h)
                band_of[b.id] = len(bands)
                band.items.append(items[b.id])
            bands.append(band)

        def end(box_id: str, side: int) -> End:
            box = self.by_id[box_id]
            if box.kind == "portgroup":  # inside its bar: the line enters the bar to reach it
                bar = box.parent
                return End(band_of[bar], items[bar], box, box.x, box.y, side)
            return End(band_of[box_id], items[box_id], box, 0.0, 0.0, side)

        routes = routes_for(self.edges, lambda e: (end(e.a, 1), end(e.b, 1 if e.kind == "patch" else -1)),
                            self.centre, reserved={bar.id: bar.ref in self.bands for bar in self.bars})
        bus_channel = band_of[self.bars[0].id] + 1 if self.bars else None
        tracks = [self.bands[sw.id] for sw, _ in self.proxies if sw.id in self.bands]
        reserved = {bus_channel: max(tracks) + 1} if tracks else None
        tops = route(bands, list(routes.values()), GAP, reserved, top=self.frame.header)
        for edge in self.edges:
            edge.points = routes[edge.id].points(bands)
        for band in bands:
            for item in band.items:
                self.by_id[item.key].x, self.by_id[item.key].y = item.x, band.y
        # everything right of the host's padding, the host around it all
        placed = [b for row in rows for b in row]
        xs = [b.x for b in placed] + [p[0] for e in self.edges for p in e.points]
        xe = [b.x + b.w for b in placed] + [p[0] for e in self.edges for p in e.points]
        left = min(xs, default=0.0)
        for b in placed:
            b.x += PAD - left
        for e in self.edges:
            e.points = [(px + PAD - left, py) for px, py in e.points]
        frame = self.frame
        frame.w = max(frame.label_w + PAD, max(xe, default=0.0) - left + 2 * PAD)
        frame.h = tops[-1] if bands else frame.header + PAD
        boxes = [frame, *self.bars, *self.leaves, *self.pnics, *(pg for bar in self.bars for pg in self.pgs[bar.id])]
        part = Part(frame, boxes, self.edges)
        if bus_channel is not None:
            part.bus_channel = tops[bus_channel] + MARGIN
        if self.pnics:
            part.pnic_top = bands[band_of[self.pnics[0].id]].y
        return part
