"""The host OS of a hosted hypervisor as an endpoint (seed 003): which hosts are endpoints, and on which hosted
networks the host OS has a virtual adapter of its own. Prediction, the matrix, the lab and measure read it here."""

from __future__ import annotations

from .objects import Host, HostKind, SwitchKind, Topology

#: The hosted networks where the host OS has a virtual adapter of its own (``Switch.host_address``).
HOST_ADAPTER_SWITCHES = frozenset({SwitchKind.HOSTED_HOSTONLY, SwitchKind.HOSTED_NAT})


def endpoint_hosts(topology: Topology) -> list[Host]:
    """The hosted hypervisors whose host OS has a virtual adapter with an address (a host-only or NAT network's
    ``host_address``): they are endpoints there. (Its LAN address on a pNIC is the hosted NAT's outside, not
    an endpoint of its own.)"""
    return [h for h in topology.hosts if h.kind is HostKind.HOSTED and any(
        sw.host == h.id and sw.host_address and sw.kind in HOST_ADAPTER_SWITCHES for sw in topology.switches)]
