"""Which address an endpoint is reached at: shared by the backends' ``Endpoint.address`` implementations."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from .contract import BackendError


def endpoint_address(name: str, addresses: Mapping[str, str], vnic_id: str | None = None) -> str:
    """The IPv4 address of ``vnic_id`` (or of the first addressed vNIC) among ``addresses`` (id -> ip/prefix)."""
    if vnic_id is not None:
        if vnic_id not in addresses:
            raise BackendError(f"{name} has no address on {vnic_id!r}",
                               f"give it an ip, or use one of {', '.join(addresses) or 'none'}")
        return str(ipaddress.IPv4Interface(addresses[vnic_id]).ip)
    if not addresses:
        raise BackendError(f"{name} has no IPv4 address", "give one of its vNICs an ip")
    return str(ipaddress.IPv4Interface(next(iter(addresses.values()))).ip)
