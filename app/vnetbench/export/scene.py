"""A design as boxes and lines with positions: the one picture every diagram format draws.

The painter (SVG/PNG/PDF), draw.io, DOT and Mermaid all read this, so they show the same containment
(hosts hold their VMs, switches and pNICs; switches hold portgroups; physical switches hold ports) and
the same links. Top-level objects sit where the canvas placed them (``topology.layout.places``, scene
coordinates of the top-left corner); objects without a place, and everything inside a frame, get a
simple automatic layout in rows. Pure Python: no Qt here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..model import Index, Topology
from ..model.objects import PORTGROUP_SWITCHES, Host, PhysicalHost, PhysicalRouter, PhysicalSwitch, Switch
from ..model.vlan import Vlan

PAD = 12.0
HEADER = 34.0
GAP = 14.0
ROW_GAP = 48.0
TOP_GAP = 80.0
MIN_ROW_W = 1600.0  # top-level rows wrap only beyond this width (or the square root rule for large designs)
VM_W, VM_H = 140.0, 58.0  # the canvas sizes (gui/canvas/geometry.py), so placed designs fit
PG_W, PG_H = 150.0, 46.0
NIC_W, NIC_H = 104.0, 34.0
SWITCH_MIN_W = 190.0


@dataclass
class Box:
    """One drawn object. ``aliases`` are ids of parts it stands for (a VM's vNICs)."""

    id: str
    kind: str
    label: str
    detail: str
    x: float
    y: float
    w: float
    h: float
    parent: str | None = None
    style: str = ""
    color: str | None = None
    aliases: tuple[str, ...] = ()
    label_w: float | None = None  # room for the label when children share the header row

    @property
    def frame(self) -> bool:
        """Frames hold other boxes and are drawn beneath the lines."""
        return self.kind in FRAME_KINDS

    def center(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


FRAME_KINDS = frozenset({"host", "switch", "physical_switch", "physical_router", "physical_host"})


@dataclass
class Line:
    id: str
    a: str
    b: str
    kind: str
    label: str = ""


@dataclass
class Scene:
    title: str
    boxes: list[Box] = field(default_factory=list)   # parents before their children
    lines: list[Line] = field(default_factory=list)

    def by_id(self) -> dict[str, Box]:
        return {box.id: box for box in self.boxes}

    def bounds(self) -> tuple[float, float, float, float]:
        """``(x, y, w, h)`` around every box, with a margin."""
        if not self.boxes:
            return 0.0, 0.0, 200.0, 100.0
        x0 = min(b.x for b in self.boxes) - 20
        y0 = min(b.y for b in self.boxes) - 20
        x1 = max(b.x + b.w for b in self.boxes) + 20
        y1 = max(b.y + b.h for b in self.boxes) + 20
        return x0, y0, x1 - x0, y1 - y0

    def children(self) -> dict[str | None, list[Box]]:
        out: dict[str | None, list[Box]] = {}
        for box in self.boxes:
            out.setdefault(box.parent, []).append(box)
        return out


# --- labels ---------------------------------------------------------------------------------------------


def vlan_text(vlan: Vlan, switch: Switch) -> str:
    return vlan.label(switch.kind)


def _switch_detail(sw: Switch) -> str:
    parts = [str(sw.kind)]
    if sw.kind == "macvtap" and sw.macvtap_mode:
        parts.append(str(sw.macvtap_mode))
    if sw.mtu != 1500:
        parts.append(f"MTU {sw.mtu}")
    if sw.vni is not None:
        parts.append(f"VNI {sw.vni}")
    return " · ".join(parts)


# --- building the boxes ---------------------------------------------------------------------------------


class _Builder:
    def __init__(self, topology: Topology) -> None:
        self.t = topology
        self.index = Index(topology)
        self.places = topology.layout.places
        self.boxes: list[Box] = []
        self.lines: list[Line] = []

    # Each ``_make_*`` returns the top-level box and its children laid out relative to (0, 0).

    def _make_switch(self, sw: Switch, parent: str | None) -> list[Box]:
        """A switch frame with its portgroups in rows of up to three, as the canvas shows them."""
        pgs = sw.portgroups if sw.kind in PORTGROUP_SWITCHES else []
        cols = max(1, min(len(pgs), 3))
        rows = math.ceil(len(pgs) / cols)
        w = max(SWITCH_MIN_W, cols * PG_W + (cols - 1) * GAP / 2 + 2 * PAD)
        h = HEADER + rows * (PG_H + 6) + (PAD - 6 if pgs else 0)
        box = Box(sw.id, "switch", sw.name, _switch_detail(sw), 0, 0, w, h, parent, str(sw.kind))
        out = [box]
        for i, pg in enumerate(pgs):
            row, col = divmod(i, cols)
            out.append(Box(pg.id, "portgroup", pg.name, vlan_text(pg.vlan, sw), PAD + col * (PG_W + GAP / 2),
                           HEADER + row * (PG_H + 6), PG_W, PG_H, sw.id))
        return out

    def _make_host(self, host: Host, vms: list, switches: list[Switch]) -> list[Box]:
        """A host frame: a row (or rows) of VMs, a row of switches, a row of pNICs at the bottom."""
        rows: list[list[list[Box]]] = []  # rows of groups (a group = a box plus its children)
        vm_groups = [[self._vm_box(vm, host.id)] for vm in vms]
        cols = max(4, math.ceil(math.sqrt(len(vm_groups) * 3))) if vm_groups else 1
        rows += [vm_groups[i:i + cols] for i in range(0, len(vm_groups), cols)]
        sw_groups = [self._make_switch(sw, host.id) for sw in switches]
        sw_cols = max(3, math.ceil(math.sqrt(len(sw_groups) * 2))) if sw_groups else 1
        rows += [sw_groups[i:i + sw_cols] for i in range(0, len(sw_groups), sw_cols)]
        nic_groups = [[Box(n.id, "pnic", n.name, f"{_speed(n.speed_mbps)}{'' if n.up else ' down'}",
                           0, 0, NIC_W, NIC_H, host.id)] for n in host.pnics]
        nic_cols = max(6, len(vm_groups[:cols]) * 2)
        rows += [nic_groups[i:i + nic_cols] for i in range(0, len(nic_groups), nic_cols)]
        detail = f"{host.kind} · {host.cpus} CPUs"
        frame = Box(host.id, "host", host.name, detail, 0, 0, 0, 0, style=str(host.kind))
        w, h = self._stack_rows(frame, rows, ROW_GAP)
        frame.w, frame.h = max(w, 220.0), h
        return [frame] + [b for row in rows for group in row for b in group]

    def _vm_box(self, vm, parent: str | None) -> Box:
        """A plain VM shows its first address; a forwarding VM what it is and how it forwards."""
        role = str(vm.role)
        if role == "vm":
            detail = next((n.ip for n in vm.vnics if n.ip), vm.guest_os)
        else:
            detail = f"{role} · {vm.forwarding.mode}"
        return Box(vm.id, "vm", vm.name, detail, 0, 0, VM_W, VM_H, parent, role,
                   aliases=tuple(n.id for n in vm.vnics))

    def _make_physical(self, obj: PhysicalSwitch | PhysicalRouter | PhysicalHost, kind: str) -> list[Box]:
        if kind == "physical_switch":
            parts = [(p.id, "port", p.name, _port_detail(p)) for p in obj.ports]
            detail = f"{len(obj.ports)} ports"
        elif kind == "physical_router":
            parts = [(i.id, "router_interface", i.name, (i.ip or "") + (f" VLAN {i.vlan}" if i.vlan else ""))
                     for i in obj.interfaces]
            sw = self.index.get(obj.switch) if obj.switch else None
            routes = f"router · {len(obj.routes)} routes" if obj.routes else "router"
            detail = f"L3 switch on {sw.name}" if sw else routes
        else:
            parts = [(n.id, "host_nic", n.name, n.ip or "") for n in obj.nics]
            detail = "physical host"
        frame = Box(obj.id, kind, obj.name, detail, 0, 0, 0, 0)
        groups = [[Box(pid, pkind, name, d, 0, 0, NIC_W, NIC_H, obj.id)] for pid, pkind, name, d in parts]
        cols = 8
        rows = [groups[i:i + cols] for i in range(0, len(groups), cols)]
        w, h = self._stack_rows(frame, rows, GAP)
        frame.w, frame.h = max(w, 200.0), h
        return [frame] + [b for row in rows for group in row for b in group]

    @staticmethod
    def _stack_rows(frame: Box, rows: list[list[list[Box]]], gap: float) -> tuple[float, float]:
        """Lay rows of groups below the frame's header, each row centred; returns the frame's size."""
        widths = [sum(g[0].w for g in row) + GAP * (len(row) - 1) for row in rows]
        inner = max(widths, default=0.0)
        y = HEADER
        for row, width in zip(rows, widths):
            x = PAD + (inner - width) / 2
            height = max(g[0].h for g in row)
            for group in row:
                _move(group, x, y)
                x += group[0].w + GAP
            y += height + gap
        last_gap = gap if rows else 0.0
        return inner + 2 * PAD, y - last_gap + PAD

    # --- whole design ------------------------------------------------------------------------------------

    def build(self) -> Scene:
        t = self.t
        vms_by_host: dict[str, list] = {}
        loose_vms = []
        host_ids = {h.id for h in t.hosts}
        for vm in t.vms:
            if vm.host in host_ids:
                vms_by_host.setdefault(vm.host, []).append(vm)
            else:
                loose_vms.append(vm)
        sw_by_host: dict[str, list[Switch]] = {}
        loose_switches: list[Switch] = []
        for sw in t.switches:
            if sw.host in host_ids:
                sw_by_host.setdefault(sw.host, []).append(sw)
            else:
                loose_switches.append(sw)

        # Top-level groups in rows: hosts; shared switches, DLRs and loose VMs; the physical network.
        tiers: list[list[list[Box]]] = [
            [self._make_host(h, vms_by_host.get(h.id, []), sw_by_host.get(h.id, [])) for h in t.hosts],
            [self._make_switch(sw, None) for sw in loose_switches]
            + [[Box(d.id, "dlr", d.name, f"DLR · {len(d.interfaces)} interfaces", 0, 0, VM_W, VM_H)]
               for d in t.nsx.dlrs]
            + [[self._vm_box(vm, None)] for vm in loose_vms],
            [self._make_physical(s, "physical_switch") for s in t.physical_switches]
            + [self._make_physical(r, "physical_router") for r in t.physical_routers]
            + [self._make_physical(p, "physical_host") for p in t.physical_hosts],
        ]
        placed: list[list[Box]] = []
        auto: list[list[list[Box]]] = []
        for tier in tiers:
            rest = []
            for group in tier:
                place = self.places.get(group[0].id)
                if place is None:
                    rest.append(group)
                    continue
                self._apply_places(group)
                placed.append(group)
            auto.append(rest)
        y = max((g[0].y + g[0].h for g in placed), default=-TOP_GAP) + TOP_GAP
        x0 = min((g[0].x for g in placed), default=0.0)
        for tier in auto:
            y = self._place_tier(tier, x0, y)
        for group in placed + [g for tier in auto for g in tier]:
            self.boxes.extend(group)
        for note in t.layout.notes:
            self.boxes.append(Box(note.id, "note", note.text, "", note.x, note.y, note.w or 180.0,
                                  note.h or 60.0, color=note.color))
        self._add_lines()
        return Scene(t.name, self.boxes, self.lines)

    def _apply_places(self, group: list[Box]) -> None:
        """Put a placed top-level group where the canvas has it, children with places where theirs are
        (scene coordinates), then grow each frame around its children."""
        kids: dict[str | None, list[Box]] = {}
        for box in group[1:]:
            kids.setdefault(box.parent, []).append(box)

        def subtree(box: Box) -> list[Box]:
            out = [box]
            for child in kids.get(box.id, []):
                out += subtree(child)
            return out

        def place(box: Box) -> None:
            moved, loose = [], []
            for child in kids.get(box.id, []):
                spot = self.places.get(child.id)
                if spot is None:
                    loose.append(child)
                    continue
                _move(subtree(child), spot.x - child.x, spot.y - child.y)
                if not child.frame and spot.w and spot.h:
                    child.w, child.h = spot.w, spot.h
                child.color = spot.color
                moved.append(child)
            spot = self.places.get(box.id)
            if moved:  # the automatic layout no longer applies: unplaced children go in a row below
                y = max(c.y + c.h for c in moved) + GAP
                x = box.x + PAD
                right = max(box.x + (spot.w if spot and spot.w else 0.0), max(c.x + c.w for c in moved))
                row_h = 0.0
                for child in loose:
                    if x > box.x + PAD and x + child.w > right:
                        x, y, row_h = box.x + PAD, y + row_h + GAP, 0.0
                    _move(subtree(child), x - child.x, y - child.y)
                    x += child.w + GAP
                    row_h = max(row_h, child.h)
                box.w, box.h = SWITCH_MIN_W, HEADER
            compact = (not moved and box.kind == "switch" and spot is not None and bool(spot.w and spot.h)
                       and _compact_switch(box, kids.get(box.id, []), spot.w, spot.h))
            for child in kids.get(box.id, []):
                place(child)
                if compact:
                    continue
                box.w = max(box.w, child.x + child.w + PAD - box.x)
                box.h = max(box.h, child.y + child.h + PAD - box.y)
            if spot is not None:
                box.w, box.h = max(box.w, spot.w or 0.0), max(box.h, spot.h or 0.0)

        top = group[0]
        spot = self.places[top.id]
        _move(group, spot.x - top.x, spot.y - top.y)
        top.color = spot.color
        if not top.frame and spot.w and spot.h:
            top.w, top.h = spot.w, spot.h
        place(top)

    @staticmethod
    def _place_tier(groups: list[list[Box]], x0: float, y: float) -> float:
        """Rows of top-level groups, wrapped so the picture stays roughly square; returns the next free y."""
        if not groups:
            return y
        area = sum(g[0].w * g[0].h for g in groups)
        max_w = max(max(g[0].w for g in groups), math.sqrt(area) * 2, MIN_ROW_W)
        x, row_h = x0, 0.0
        for group in groups:
            top = group[0]
            if x > x0 and x + top.w > x0 + max_w:
                x, y, row_h = x0, y + row_h + TOP_GAP, 0.0
            _move(group, x, y)
            x += top.w + TOP_GAP
            row_h = max(row_h, top.h)
        return y + row_h + TOP_GAP

    def _add_lines(self) -> None:
        t = self.t
        ids = {b.id for b in self.boxes}
        for vm in t.vms:
            for nic in vm.vnics:
                if nic.network in ids and vm.id in ids:
                    # one vNIC: its type (the VM box shows the address); several: which leg is which
                    label = (" ".join(x for x in (nic.name, nic.ip or "") if x) if len(vm.vnics) > 1
                             else str(nic.type))
                    kind = "vnic" if nic.connected else "standby"
                    self.lines.append(Line(nic.id, vm.id, nic.network, kind, label))
        for sw in t.switches:
            for up in sw.uplinks:
                if up.pnic in ids and sw.id in ids:
                    label = f"VLAN {up.vlan}" if up.vlan else ""
                    self.lines.append(Line(f"{sw.id}>{up.pnic}", sw.id, up.pnic,
                                           "standby" if up.standby else "uplink", label))
            linked_hosts = {self.index.parent(up.pnic).id for up in sw.uplinks
                            if self.index.kind(up.pnic) == "pnic"}
            for member in sw.members:
                if member in ids and member not in linked_hosts and sw.id in ids:
                    self.lines.append(Line(f"{sw.id}>{member}", sw.id, member, "member"))
        for rt in t.physical_routers:
            if rt.switch in ids and rt.id in ids:
                self.lines.append(Line(f"{rt.id}>{rt.switch}", rt.id, rt.switch, "member", "SVIs"))
        for link in t.links:
            if link.a in ids and link.b in ids:
                kind = "patch" if self.index.kind(link.a) == "switch" else "cable"
                self.lines.append(Line(link.id, link.a, link.b, kind))
        for dlr in t.nsx.dlrs:
            for itf in dlr.interfaces:
                if itf.network in ids and dlr.id in ids:
                    self.lines.append(Line(itf.id, dlr.id, itf.network, "dlr", itf.ip))


def _compact_switch(box: Box, pgs: list[Box], w: float, h: float) -> bool:
    """A switch the canvas draws as a low bar: its portgroups sit in one row beside the name."""
    if not pgs or h >= box.h:
        return False
    label_w = min(150.0, max(112.0, w * 0.3))
    chip_w = min(PG_W, (w - label_w - PAD - 6 * (len(pgs) - 1)) / len(pgs))
    if chip_w < 70 or h < 30:
        return False
    for i, pg in enumerate(pgs):
        pg.x, pg.y = box.x + label_w + i * (chip_w + 6), box.y + 4
        pg.w, pg.h = chip_w, h - 8
    box.w, box.h, box.label_w = w, h, label_w - 8
    return True


def _move(group: list[Box], dx: float, dy: float) -> None:
    """Shift a box and its children (children are positioned relative to the top box until placed)."""
    for box in group:
        box.x += dx
        box.y += dy


def _speed(mbps: int) -> str:
    return f"{mbps // 1000} GbE" if mbps >= 1000 and mbps % 1000 == 0 else f"{mbps} Mb/s"


def _port_detail(port) -> str:
    if port.mode == "trunk":
        text = f"trunk {port.allowed}"
    else:
        text = f"access {port.access_vlan}"
    return text + (" · hairpin" if port.hairpin else "") + ("" if port.up else " · down")


def build_scene(topology: Topology, select: Iterable[str] | None = None) -> Scene:
    """The whole design, or only the selected objects (with what they contain and the frames around them)."""
    scene = _Builder(topology).build()
    if select is None:
        return scene
    wanted = list(select)
    by_id = scene.by_id()
    alias_owner = {alias: box.id for box in scene.boxes for alias in box.aliases}
    unknown = [i for i in wanted if i not in by_id and i not in alias_owner]
    if unknown:
        raise LookupError(f"selection: no object with id {unknown[0]!r} in design {topology.name!r} "
                          "(use the ids shown by `vnetbench show FILE`)")
    keep = {alias_owner.get(i, i) for i in wanted}
    children = scene.children()
    stack = list(keep)
    while stack:  # everything inside a selected frame
        for child in children.get(stack.pop(), []):
            if child.id not in keep:
                keep.add(child.id)
                stack.append(child.id)
    for box_id in list(keep):  # the frames around a selected object, for context
        parent = by_id[box_id].parent
        while parent is not None and parent not in keep:
            keep.add(parent)
            parent = by_id[parent].parent
    scene.boxes = [b for b in scene.boxes if b.id in keep]
    scene.lines = [ln for ln in scene.lines if ln.a in keep and ln.b in keep]
    _shrink_frames(scene)
    return scene


def _shrink_frames(scene: Scene) -> None:
    """Frames around a selection hug what is left in them (inner frames first)."""
    children = scene.children()
    for box in reversed(scene.boxes):
        kids = children.get(box.id)
        if box.frame and kids:
            box.w = max(SWITCH_MIN_W, max(k.x + k.w for k in kids) + PAD - box.x)
            box.h = max(HEADER, max(k.y + k.h for k in kids) + PAD - box.y)


def highlighted(scene: Scene, object_ids: Iterable[str | None]) -> tuple[set[str], set[str]]:
    """Box ids and line ids that a path through ``object_ids`` (a prediction's hops) passes."""
    ids = {i for i in object_ids if i}
    box_hits: set[str] = set()
    for box in scene.boxes:
        if box.id in ids or ids.intersection(box.aliases):
            box_hits.add(box.id)
    line_hits = {ln.id for ln in scene.lines
                 if ln.id in ids or (ln.a in box_hits and ln.b in box_hits and ln.kind != "member")}
    return box_hits, line_hits
