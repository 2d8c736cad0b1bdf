"""The physical switch port each pNIC is cabled to, as CDP or LLDP told the host (``QueryNetworkHint``).

vCenter answers ``HostNetworkSystem.QueryNetworkHint`` per host with one hint per pNIC: the CDP neighbour
(``connectedSwitchPort``: the switch's device id, the port id, the port's native VLAN, MTU, platform) when the
physical switch speaks CDP and the vSwitch listens (a vSS listens by default; a vDS when its discovery
protocol is CDP), the LLDP neighbour (``lldpInfo``: chassis id, port id and TLVs such as "System Name") when a
vDS listens for LLDP, and the VLANs the host has seen traffic on (``subnet``/``network``, each with a
``vlanId``). Import turns them into physical switches, ports and cables, so an imported design predicts paths
through the physical network without hand work.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from pyVmomi import vmodl

from .inventory import Inventory

log = logging.getLogger("vnetbench.vsphere")
_MAC = re.compile(r"^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$")


@dataclass(frozen=True)
class Neighbour:
    host: str  # the host's managed object id
    pnic: str  # like vmnic0
    switch: str  # what the switch calls itself (CDP device id, LLDP system name or chassis id)
    port: str  # like GigabitEthernet1/0/7
    native_vlan: int | None
    #: Tagged VLANs the host saw on this pNIC: what the port carries at least.
    vlans: tuple[int, ...]
    protocol: str  # "CDP" or "LLDP"


def _vlan(value: Any) -> int | None:
    text = str(value or "").strip()
    return int(text) if text.isdigit() and 1 <= int(text) <= 4094 else None


def neighbour(host: str, hint: Any) -> Neighbour | None:
    """One pNIC's hint as a ``Neighbour``; None when neither CDP nor LLDP named a switch port."""
    seen = tuple(sorted({v for v in (_vlan(x.vlanId) for x in [*(hint.subnet or []), *(hint.network or [])]) if v}))
    cdp = hint.connectedSwitchPort
    if cdp is not None and (cdp.devId or cdp.systemName) and cdp.portId:
        return Neighbour(host, hint.device, cdp.devId or cdp.systemName, cdp.portId, _vlan(cdp.vlan), seen, "CDP")
    lldp = hint.lldpInfo
    if lldp is not None and lldp.portId and lldp.chassisId:
        tlv = {str(p.key).lower(): p.value for p in lldp.parameter or []}
        name = str(tlv.get("system name") or lldp.chassisId)
        # A port id of the MAC subtype says little to an admin; the port description names the interface.
        port = str(tlv.get("port description") or lldp.portId) if _MAC.match(lldp.portId) else lldp.portId
        native = _vlan(tlv.get("port vlan id") or tlv.get("vlan id"))
        return Neighbour(host, hint.device, name, port, native, seen, "LLDP")
    return None


def read_hints(inv: Inventory) -> list[Neighbour]:
    """Every host's neighbours (one call per host); a host that cannot answer (disconnected) gives none."""
    out = []
    for host in inv.hosts:
        if host.network_system is None:
            continue
        try:
            hints = host.network_system.QueryNetworkHint()
        except vmodl.MethodFault as exc:
            log.info("no CDP/LLDP hints from %s: %s", host.name, type(exc).__name__)
            continue
        out.extend(n for n in (neighbour(host.moid, h) for h in hints or []) if n is not None)
    return out
