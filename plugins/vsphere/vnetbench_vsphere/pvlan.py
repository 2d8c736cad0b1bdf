"""Private VLANs on a distributed switch as vSphere holds them: the switch's map (``pvlanConfig``, changed with
``VMwareDVSPvlanConfigSpec`` entries to add and remove) and a portgroup's ``PvlanSpec`` naming its secondary."""

from __future__ import annotations

from typing import Any

from pyVmomi import vim
from vnetbench.model import Pvlan, PvlanType

DVS = vim.dvs.VmwareDistributedVirtualSwitch


def pvlan_data(pvlans: list[Pvlan]) -> list[list[Any]]:
    """A map as plan data: [primary, secondary, type], sorted."""
    return sorted([e.primary, e.secondary, e.type.value] for e in pvlans)


def read_pvlans(entries: Any) -> list[Pvlan]:
    """A switch's ``pvlanConfig`` as the model's map (entries of a type vnetbench does not know are left out)."""
    out = []
    for e in entries or []:
        try:
            out.append(Pvlan(int(e.primaryVlanId), int(e.secondaryVlanId), PvlanType(e.pvlanType)))
        except ValueError:
            continue
    return sorted(out, key=lambda e: (e.primary, e.secondary))


def pvlan_changes(want: list[list[Any]], have: list[Pvlan]) -> list[Any]:
    """The ``VMwareDVSPvlanConfigSpec`` entries that turn the map ``have`` into ``want`` (removals first)."""
    held = pvlan_data(have)

    def entry(op: str, primary: int, secondary: int, kind: str) -> Any:
        return DVS.PvlanConfigSpec(operation=op, pvlanEntry=DVS.PvlanMapEntry(
            primaryVlanId=primary, secondaryVlanId=secondary, pvlanType=kind))
    return [entry("remove", *e) for e in held if e not in want] + [entry("add", *e) for e in want if e not in held]


def pvlan_spec(secondary: int) -> Any:
    """A distributed portgroup's VLAN setting for a private VLAN port."""
    return DVS.PvlanSpec(inherited=False, pvlanId=secondary)
