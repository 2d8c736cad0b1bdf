"""Route tables seen as a whole: the words for a route that cannot be used, and the lint that finds a router
with no route back to a network another router forwards to it.

The lookup itself is ``decide.RouteTable`` (the walk and the matrix share it); this module only reads the
tables the walk builds.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from .kinds import APPLIANCES, ROUTING_KINDS, DeviceKind
from .network import Device, Network, Point



def unusable_route(device: Device, prefix: ipaddress.IPv4Network, via: ipaddress.IPv4Address,
                   pinned: int | None) -> str:
    """Why ``device`` cannot send by its route to ``prefix``: the next hop is on none of its interfaces (or
    not on the one the route names)."""
    if pinned is None:
        return f"{device.name}'s route to {prefix} points at {via}, which is on none of its interfaces"
    if pinned < 0:
        return f"{device.name}'s route to {prefix} names an interface {device.name} does not have"
    point = device.points[pinned]
    return (f"{device.name}'s route to {prefix} points at {via} out of {point.name}, which is not in {via}'s "
            f"subnet{'' if point.iface is None else f' ({point.iface.network})'} or is not connected")


@dataclass
class MissingRoute:
    """``back`` has no route to ``network``, although ``device`` forwards traffic from there to it."""

    device: Device
    back: Device
    network: ipaddress.IPv4Network
    why: str            # which route of ``device`` sends to ``back``
    via: ipaddress.IPv4Address | None    # ``device``'s own address on the way to ``back``, for the fix


def missing_routes_back(net: Network, walker: Any) -> list[MissingRoute]:
    """For each route of a router whose next hop is another router: the first router's connected networks
    that the next hop cannot route (neither connected nor by a route), so replies to them are lost."""
    out: list[MissingRoute] = []
    seen: set[tuple[str, ipaddress.IPv4Network]] = set()
    for device in net.devices:
        if device.kind not in ROUTING_KINDS:
            continue
        for prefix, via in device.routes:
            owners = [d for d, _ in net.by_address.get(via, []) if d.kind in ROUTING_KINDS and d.id != device.id]
            if not owners:
                continue
            back = owners[0]
            table = walker.route_table(back)
            mine = next((p.ip for p in device.points if p.iface is not None and via in p.iface.network), None)
            why = "its default route" if prefix.prefixlen == 0 else f"its route to {prefix}"
            for p in device.points:
                if p.iface is None or via in p.iface.network or (back.id, p.iface.network) in seen:
                    continue
                out_itf, _ = table.lookup(int(p.iface.network.network_address),
                                          lambda i: back.points[i].iface is not None)
                if out_itf < 0:
                    seen.add((back.id, p.iface.network))
                    out.append(MissingRoute(device, back, p.iface.network, why, mine))
    return out


def segments_of(net: Network, device: Device | None, point: Point) -> list[int]:
    """The segments a device's interface sits on: a DLR's on every host it has an instance on."""
    if device is not None and device.kind is DeviceKind.DLR:
        found = (net.dlr_segment(point, host.id) for host in net.topology.hosts)
        return [seg for seg in found if seg is not None]
    return [point.segment] if point.segment is not None else []


def routes_itself(net: Network, endpoint_id: str) -> Device | None:
    """The device of an endpoint that sends its own packets by a route table of static routes (a routed
    router, firewall or edge VM with routes), else None: such a sender picks its interface and next hop
    per destination, not by its first vNIC gateway, so the matrix walks its pairs one by one."""
    vm = net.typed(endpoint_id, "vm")
    if vm is None or not vm.forwarding.routes:
        return None
    device = net.device_by_id.get(endpoint_id)
    return device if device is not None and device.kind in APPLIANCES else None


def sender_route(walker: Any, device: Device,
                 dst_ip: ipaddress.IPv4Address | None) -> tuple[Point, ipaddress.IPv4Address | None] | None:
    """The interface a routing sender sends from towards ``dst_ip`` and the next hop (None: ``dst_ip`` is
    on that interface's subnet), by its route table; None when it has no way there."""
    if dst_ip is None:
        return None
    table = walker.route_table(device)
    i, r = table.lookup(int(dst_ip), lambda i: device.points[i].segment is not None)
    if i < 0:
        return None
    return device.points[i], table.routes[r][1] if r >= 0 else None


def route_field(net: Network, device: Device) -> str:
    """Where a device's static routes sit in the file, relative to its own entry."""
    return "forwarding.routes" if net.typed(device.id, "vm") is not None else "routes"
