"""The forwarding facts this backend builds with, kept in one small file until the core's forwarding module
(``vnetbench.model.forwarding``, being written) holds them: which physical VLAN a frame lands in on a switch
port, which pNIC carries a switch's traffic, and whether a bridged firewall's portgroups let it bridge.
These are SEMANTICS.md sections 3 and 4.4; prediction applies the same rules.
"""

from __future__ import annotations

from typing import Any

from vnetbench.model import Index, PortMode, Topology, Uplink
from vnetbench.model.vlan import VlanError, parse_ranges


def cable_peers(design: Topology) -> dict[str, list[str]]:
    peers: dict[str, list[str]] = {}
    for link in design.links:
        peers.setdefault(link.a, []).append(link.b)
        peers.setdefault(link.b, []).append(link.a)
    return peers


def port_of(ix: Index, peers: dict[str, list[str]], obj_id: str) -> Any:
    """The physical switch port a pNIC (or NIC) is cabled to, or None."""
    return next((ix.get(o) for o in peers.get(obj_id, []) if ix.kind(o) == "port"), None)


def land(port: Any, tag: int | None) -> int | None:
    """The physical VLAN a frame tagged ``tag`` (None: untagged) joins on ``port``; None: the port drops it."""
    if port is None or not port.up:
        return None
    if port.mode is PortMode.ACCESS:
        return port.access_vlan if tag is None else None
    if tag is None:
        return port.native_vlan
    try:
        allowed = parse_ranges(port.allowed)
    except VlanError:
        return None
    return tag if any(lo <= tag <= hi for lo, hi in allowed) else None


def active_uplink(ix: Index, peers: dict[str, list[str]], uplinks: list[Uplink], host_id: str) -> Uplink | None:
    """The pNIC that carries a switch's traffic: the first working active uplink, else the first standby."""
    host = ix.get(host_id)
    mine = {p.id for p in host.pnics}
    for standby in (False, True):
        for up in uplinks:
            if up.standby != standby or up.pnic not in mine or not ix.get(up.pnic).up:
                continue
            port = port_of(ix, peers, up.pnic)
            if port is not None and port.up:
                return up
    return None


def bridging_allowed(security: list[Any]) -> bool:
    """A bridged firewall forwards only where every portgroup allows promiscuous mode and forged transmits."""
    return all(s.promiscuous and s.forged_transmits for s in security)
