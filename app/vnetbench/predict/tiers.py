"""How the explanations name NSX routing tiers (SEMANTICS.md section 9): a distributed router by its gateway's
tier, an edge node by the service routers it runs, so a path says which tier routed each hop."""

from __future__ import annotations

from ..model.nsxt import gateway_kind, served_gateways
from ..model.objects import Topology
from .kinds import DeviceKind
from .network import Device


def title(topo: Topology, device: Device) -> str:
    """The device's name, with the tier it routes for when it is part of an NSX-T gateway."""
    if device.kind is DeviceKind.DLR:
        dlr = next((d for d in topo.nsx.dlrs if d.id == device.id), None)
        if dlr is not None and dlr.tier is not None:
            return f"{device.name} (the {gateway_kind(dlr)}'s distributed router)"
    elif device.kind is DeviceKind.EDGE:
        served = served_gateways(topo, device.id)
        if served:
            names = " and ".join(f"{d.name}'s {gateway_kind(d).removesuffix(' gateway')} service router"
                                 for d in served)
            return f"edge node {device.name} (running {names})"
    return device.name


def instances(topo: Topology, device: Device) -> str:
    """Why a distributed router routes where the frame is: it has an instance on every host."""
    dlr = next((d for d in topo.nsx.dlrs if d.id == device.id), None)
    if dlr is not None and dlr.tier is not None:
        return "an NSX-T gateway's distributed router has an instance in every transport node"
    return "a DLR has an instance on every member host"
