"""Positions for objects a design file does not place (hand-written or generated designs).

Hosts go in a row, each holding its VMs on top and its switches below (portgroups in a row inside each
switch); shared switches and routers go in a row beneath; the physical network at the bottom. Objects
that already have a place keep it, and unplaced children follow their placed parent.
"""

from __future__ import annotations

import math

from ...model import Place, Topology
from ...model.objects import MULTI_HOST_SWITCHES
from .geometry import (
    DLR_SIZE,
    HOST_HEADER,
    HOST_MIN,
    PAD,
    PHYSICAL_HOST_SIZE,
    PORTGROUP_SIZE,
    ROUTER_MIN_SIZE,
    SWITCH_HEADER,
    SWITCH_MIN,
    VM_SIZE,
    physical_switch_size,
)

VMS_PER_ROW = 6
GAP = 20.0


def _auto(topology: Topology) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
    """Automatic top-left positions for every object, and each object's container id."""
    pos: dict[str, tuple[float, float]] = {}
    container: dict[str, str] = {}
    x = 0.0
    bottom = 0.0
    vms_by_host: dict[str, list] = {}
    for vm in topology.vms:
        vms_by_host.setdefault(vm.host or "", []).append(vm)
    switches_by_host: dict[str, list] = {}
    for sw in topology.switches:
        key = sw.host if sw.host and sw.kind not in MULTI_HOST_SWITCHES else ""
        switches_by_host.setdefault(key, []).append(sw)

    def place_switch(sw, sx: float, sy: float) -> tuple[float, float]:
        pos[sw.id] = (sx, sy)
        for j, pg in enumerate(sw.portgroups):
            pos[pg.id] = (sx + PAD + j * (PORTGROUP_SIZE[0] + 16), sy + SWITCH_HEADER + 14)
            container[pg.id] = sw.id
        width = max(SWITCH_MIN[0], 2 * PAD + len(sw.portgroups) * (PORTGROUP_SIZE[0] + 16) - 16)
        height = SWITCH_HEADER + 14 + PORTGROUP_SIZE[1] + PAD if sw.portgroups else SWITCH_MIN[1]
        return width, height

    def place_vms(vms, vx: float, vy: float, host: str | None) -> tuple[float, float]:
        for i, vm in enumerate(vms):
            pos[vm.id] = (vx + (i % VMS_PER_ROW) * (VM_SIZE[0] + GAP), vy + (i // VMS_PER_ROW) * (VM_SIZE[1] + 50))
            if host:
                container[vm.id] = host
        rows = (len(vms) + VMS_PER_ROW - 1) // VMS_PER_ROW
        return min(len(vms), VMS_PER_ROW) * (VM_SIZE[0] + GAP), rows * (VM_SIZE[1] + 50)

    per_row = max(3, round(math.sqrt(len(topology.hosts))))  # a large design fills a rectangle, not a strip
    top = 0.0
    for i, host in enumerate(topology.hosts):
        if i and i % per_row == 0:
            x, top = 0.0, bottom + 80
        pos[host.id] = (x, top)
        width, height = place_vms(vms_by_host.get(host.id, []), x + PAD, top + HOST_HEADER + 20, host.id)
        y = top + HOST_HEADER + 20 + height + (10 if height else 0)
        for sw in switches_by_host.get(host.id, []):
            container[sw.id] = host.id
            sw_w, sw_h = place_switch(sw, x + PAD, y)
            width = max(width, sw_w)
            y += sw_h + GAP
        width = max(HOST_MIN[0], width + 2 * PAD)
        bottom = max(bottom, y + 30, top + HOST_MIN[1])
        x += width + 60
    y = bottom + 80 if topology.hosts else 0.0
    x, row_h = 0.0, 0.0
    for sw in switches_by_host.get("", []):
        sw_w, sw_h = place_switch(sw, x, y)
        x, row_h = x + sw_w + 40, max(row_h, sw_h)
    for dlr in topology.nsx.dlrs:
        pos[dlr.id] = (x, y)
        x, row_h = x + DLR_SIZE[0] + 40, max(row_h, DLR_SIZE[1])
    width, height = place_vms(vms_by_host.get("", []), x, y, None)
    for vm in topology.vms:
        if vm.host and vm.host not in pos:
            pos[vm.id] = (x + width, y)
            width += VM_SIZE[0] + GAP
    row_h = max(row_h, height)
    y += row_h + (100 if row_h else 0)
    x = 0.0
    for ps in topology.physical_switches:
        pos[ps.id] = (x, y)
        x += physical_switch_size(len(ps.ports))[0] + 60
    x, y = 0.0, y + 140
    for router in topology.physical_routers:
        pos[router.id] = (x, y)
        x += max(ROUTER_MIN_SIZE[0], 40 + len(router.interfaces) * 40) + 60
    for ph in topology.physical_hosts:
        pos[ph.id] = (x, y)
        x += PHYSICAL_HOST_SIZE[0] + 60
    return pos, container


def fill_layout(topology: Topology) -> int:
    """Give every unplaced object a place (in ``topology.layout.places``); returns how many were added."""
    places = topology.layout.places
    auto, container = _auto(topology)
    added = 0
    final: dict[str, tuple[float, float]] = {}

    def resolve(oid: str) -> tuple[float, float]:
        if oid in final:
            return final[oid]
        if oid in places:
            final[oid] = (places[oid].x, places[oid].y)
        else:
            ax, ay = auto[oid]
            parent = container.get(oid)
            if parent:
                px, py = resolve(parent)
                bx, by = auto[parent]
                ax, ay = ax + px - bx, ay + py - by
            final[oid] = (ax, ay)
        return final[oid]

    for oid in auto:
        if oid not in places:
            x, y = resolve(oid)
            places[oid] = Place(float(x), float(y))
            added += 1
    return added
