"""What of issue 23's fabric the local lab cannot emulate yet, said plainly so a deploy refuses the design
instead of wiring something the prediction does not answer for.

The lab wires each segment through the uplink of the explicit failover order. It therefore emulates a
switch without a teaming policy (or with the explicit failover order) and a VLAN-filtering Linux bridge (a
bridge per VLAN, as it emulates vSwitches). It does not emulate a run-time uplink choice (port ID, MAC hash,
load-based, IP hash), a vNIC pinned to an uplink, a LAG, or private VLANs.
"""

from __future__ import annotations

from vnetbench.model import Topology
from vnetbench.model.objects import LoadBalancing


def unemulated(design: Topology) -> list[str]:
    """One sentence per construct of ``design`` the local lab cannot emulate (empty: it can)."""
    out = []
    for sw in design.switches:
        policies = [(sw.name, sw.teaming)] + [(f"{sw.name}/{pg.name}", pg.teaming) for pg in sw.portgroups]
        for where, policy in policies:
            if policy is not None and (policy.load_balancing is not LoadBalancing.FAILOVER_ORDER or policy.lag):
                out.append(f"{where} balances by {policy.load_balancing.value}"
                           + (f" over LAG {policy.lag}" if policy.lag else "")
                           + ", which the local lab cannot emulate: it sends every VM through the first working "
                             "uplink (explicit failover order)")
        if sw.lags:
            out.append(f"switch {sw.name!r} has LACP LAGs, which the local lab cannot emulate")
        if sw.pvlans or any(pg.pvlan is not None for pg in sw.portgroups):
            out.append(f"switch {sw.name!r} has private VLANs, which the local lab cannot emulate yet")
    out += [f"{vm.name}/{nic.name} is pinned to an uplink, which the local lab cannot emulate yet"
            for vm in design.vms for nic in vm.vnics if nic.uplink]
    return out
