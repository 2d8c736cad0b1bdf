"""Checks of NSX-T gateways: a tier NSX-T has, a service router that is an edge node with a leg on the transit,
a Tier-1 linked to a Tier-0 only; tunnel endpoints' addresses (SEMANTICS.md section 9)."""

from __future__ import annotations

import ipaddress

from ..nsxt import TIERS, is_edge_node, shared_networks
from .values import ValueChecks


class NsxtChecks(ValueChecks):
    """NSX-T Tier-0 / Tier-1 gateways and transport nodes' tunnel endpoints."""

    def check_teps(self) -> None:
        """A tunnel endpoint's address, and a gateway inside its subnet."""
        for i, host in enumerate(self.t.hosts):
            tep, path = host.tep, f"hosts[{i}].tep"
            if tep is None:
                continue
            label = f"{host.name}'s tunnel endpoint"
            if not self.check_interface_address(f"{path}.ip", host.id, tep.ip, label) or tep.gateway is None:
                continue
            if self.check_address(f"{path}.gateway", host.id, tep.gateway, f"{label}'s gateway"):
                subnet = ipaddress.IPv4Interface(tep.ip).network
                if ipaddress.IPv4Address(tep.gateway) not in subnet:
                    self.error(f"{path}.gateway", host.id, f"{label}'s gateway {tep.gateway} is outside its subnet "
                               f"{subnet}", f"give a gateway in {subnet} (the router's address in the TEP VLAN)")

    def check_gateways_tiers(self) -> None:
        """Each gateway's tier, its service router, and what its router links join."""
        dlrs = self.t.nsx.dlrs
        for i, dlr in enumerate(dlrs):
            path = f"nsx.dlrs[{i}]"
            if dlr.tier is not None and dlr.tier not in TIERS:
                self.error(f"{path}.tier", dlr.id, f"{dlr.name} has tier {dlr.tier}, which NSX-T has not",
                           "write tier 1 (a tenant gateway) or tier 0 (the gateway to the physical routers), or "
                           "leave it out for an NSX-V DLR")
            if dlr.service_router is None:
                continue
            if dlr.tier is None:
                self.error(f"{path}.service_router", dlr.id, f"{dlr.name} is an NSX-V DLR, which has no service "
                           "router (its edge is an ESG of its own)", "give it a tier (1 or 0), or remove "
                           "service_router and route to the ESG instead")
                continue
            vm = self.ref(f"{path}.service_router", dlr.id, dlr.service_router, ["vm"], "edge node VM")
            if vm is None:
                continue
            if not is_edge_node(vm):
                self.error(f"{path}.service_router", dlr.id, f"{dlr.name}'s service router {vm.name} is a VM of "
                           f"role {vm.role}, not an edge node", f"set {vm.name}'s role to nsx-edge, or name an "
                           "edge node")
            elif not shared_networks(self.t, dlr, vm):
                self.warn(f"{path}.service_router", dlr.id, f"{dlr.name}'s service router {vm.name} has no leg on "
                          f"any segment {dlr.name}'s distributed router has an interface on, so north-south "
                          f"traffic cannot reach it", f"put a vNIC of {vm.name} and an interface of {dlr.name} on "
                          "one transit segment")
        tier0_networks = {i.network for d in dlrs if d.tier == 0 for i in d.interfaces}
        for i, dlr in enumerate(dlrs):
            if dlr.tier != 1:
                continue
            for j, itf in enumerate(dlr.interfaces):
                peers = [d for d in dlrs if d is not dlr and d.tier == 1
                         and any(o.network == itf.network for o in d.interfaces)]
                if peers and itf.network not in tier0_networks:
                    self.error(f"nsx.dlrs[{i}].interfaces[{j}].network", dlr.id,
                               f"Tier-1 gateways {dlr.name} and {peers[0].name} share {self.name(itf.network)}, but "
                               "NSX-T links a Tier-1 only to a Tier-0", "connect each Tier-1 to a Tier-0 gateway "
                               "(its router link), and let the Tier-0 route between them")
