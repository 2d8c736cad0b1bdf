"""What of issue 23's fabric the local lab cannot emulate, said plainly so a deploy refuses the design instead of
wiring something the prediction does not answer for.

The lab has no bonding or team driver and no 802.1q devices: it wires each vNIC through one uplink, the one
the design determines (``desired_team``): the vNIC's pin, else the explicit failover order's first working
uplink. It therefore emulates pins, the explicit failover order, any policy where only one uplink works, a
VLAN-filtering Linux bridge (a bridge per VLAN, as it emulates vSwitches) and private VLANs
(``desired_pvlan``). It does not emulate an uplink the platform chooses per vNIC at run time (port ID, MAC
hash, load-based: the prediction answers for the worst of the uplinks, one wiring cannot), IP hash (an
uplink per pair of addresses), or a LAG (LACP needs a bonding driver).
"""

from __future__ import annotations

from vnetbench.model import Index, Topology
from vnetbench.model.forwarding import Fabric, UplinkChooser


def unemulated(design: Topology, fabric: Fabric | None = None) -> list[str]:
    """One sentence per construct of ``design`` the local lab cannot emulate (empty: it can)."""
    fabric = fabric or Fabric(design, Index(design))
    out = [f"switch {sw.name!r} has LACP LAGs, which the local lab cannot emulate (it has no bonding driver)"
           for sw in design.switches if sw.lags]
    for vm in design.vms:
        for nic in vm.vnics:
            place = fabric.place(vm, nic)
            if place.segment is None or not fabric.may_choose_uplink(vm, nic, place):
                continue
            choice = fabric.vnic_uplinks(vm, nic, place)
            if choice.lag is not None:
                continue      # (said once for its switch)
            if choice.chooser in (UplinkChooser.RUN_TIME, UplinkChooser.ADDRESS_HASH):
                sw = fabric.switch[place.segment.switch]
                pg = fabric.index.get(place.portgroup) if place.portgroup else None
                policy = (pg.teaming if pg is not None and pg.teaming else sw.teaming)
                how = policy.load_balancing.value if policy is not None else "its policy"
                out.append(f"{vm.name}/{nic.name} is not pinned, and {sw.name} balances by {how} over "
                           f"{len(choice.uplinks)} working uplinks, which the local lab cannot emulate (it wires "
                           f"one uplink per vNIC); pin the vNIC to an uplink, or use the explicit failover order")
    return out
