"""The host OS of a hosted hypervisor as an endpoint's interfaces (seed 003, ``model.hostos``): its own address
on each host-only or NAT network (``Switch.host_address``, the host's virtual adapter)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model.forwarding import SegmentKey
from ..model.hostos import HOST_ADAPTER_SWITCHES
from ..model.objects import Host

if TYPE_CHECKING:
    from .network import Network, Point


def points(net: Network, host: Host) -> list[Point]:
    """The host OS's interfaces: its virtual adapter on each host-only or NAT network."""
    from .network import Point, parse_if

    out = []
    for sw in net.topology.switches:
        if sw.host == host.id and sw.host_address and sw.kind in HOST_ADAPTER_SWITCHES:
            seg = net.switch_segment(SegmentKey(sw.id, host.id, None))
            out.append(Point(seg, parse_if(sw.host_address), None, host.id, f"{sw.id}:host",
                             f"{host.name}/{sw.name}"))
    return out
