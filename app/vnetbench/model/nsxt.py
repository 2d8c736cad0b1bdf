"""NSX-T routing tiers as the model holds them (SEMANTICS.md section 9).

An NSX-T gateway is an ``nsx.dlrs`` entry with a ``tier``: its distributed router (DR) has an instance in every
transport node's kernel, like NSX-V's DLR, and routes on the source host; its service router (SR) runs on an edge
node (``service_router``: a VM of role nsx-edge on some host) and holds what cannot be distributed: a Tier-0's
uplinks to the physical routers, NAT, the gateway firewall. A Tier-1 reaches its Tier-0 over a router link (a
segment both have an interface on), a DR its SR over the intra-tier transit segment. Prediction, validation and
the explanations read the tiers through here.
"""

from __future__ import annotations

from .objects import VM, Dlr, Topology, VmRole

#: The tiers NSX-T has: 0 (provider, north-south to the physical routers) and 1 (tenant).
TIERS = (0, 1)


def gateway_kind(dlr: Dlr) -> str:
    """What a distributed router is, in words: an NSX-V DLR, or an NSX-T Tier-N gateway."""
    return "DLR" if dlr.tier is None else f"Tier-{dlr.tier} gateway"


def served_gateways(topo: Topology, vm_id: str) -> list[Dlr]:
    """The NSX-T gateways whose service router runs on this edge node VM."""
    return [d for d in topo.nsx.dlrs if d.service_router == vm_id]


def is_edge_node(vm: VM) -> bool:
    """Whether a VM can run a gateway's service router: an NSX edge."""
    return vm.role is VmRole.NSX_EDGE


def shared_networks(topo: Topology, dlr: Dlr, vm: VM) -> set[str]:
    """The networks (portgroup or switch ids) where a gateway's DR and its SR edge node both have an interface:
    the transit the DR hands north-south traffic to the SR over."""
    return {i.network for i in dlr.interfaces} & {n.network for n in vm.vnics if n.network is not None}


def internal_addresses(topo: Topology) -> list[str]:
    """The interface addresses (``address/prefix``) of NSX-T's internal links: the intra-tier transits between a
    gateway's distributed and service routers and the router links between Tier-1 and Tier-0. NSX-T advertises
    neither, and no guest sends from them, so no router needs a route back to them."""
    tier0 = {i.network for d in topo.nsx.dlrs if d.tier == 0 for i in d.interfaces}
    vms = {vm.id: vm for vm in topo.vms}
    out: list[str] = []
    for dlr in topo.nsx.dlrs:
        sr = vms.get(dlr.service_router or "")
        transit = shared_networks(topo, dlr, sr) if sr is not None else set()
        links = tier0 if dlr.tier == 1 else set()
        out += [i.ip for i in dlr.interfaces if i.network in transit | links]
    return out
