"""Source NAT in the walk and the matrix (SEMANTICS.md section 9): the rule a router or edge VM translates a
packet's source by as it routes it out (``model.nat``), and which endpoints the matrix must walk pair by pair
because their packets may be translated."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from ..model.nat import SnatRule, snat_rules, translation
from .kinds import APPLIANCES
from .network import Device, Network, Point


def translate(net: Network, device: Device, source: ipaddress.IPv4Address | None, out: Point) -> SnatRule | None:
    """The SNAT rule ``device`` translates a packet from ``source`` by as it leaves by ``out``, if any."""
    if device.kind not in APPLIANCES or source is None:
        return None
    vm = net.typed(device.id, "vm")
    return translation(vm, source, out.nic) if vm is not None and vm.forwarding.snat else None


def behind(net: Network, points: Iterable[Point]) -> bool:
    """Whether some SNAT rule of the design may translate packets from one of these interfaces: such an
    endpoint's replies come back to the translated address (the walk mirrors them), so the matrix walks it
    pair by pair."""
    sources = net.memo.get("snat")
    if sources is None:
        sources = net.memo["snat"] = [r.source for vm in net.topology.vms for r in snat_rules(vm)]
    return bool(sources) and any(p.ip is not None and any(p.ip in s for s in sources) for p in points)
