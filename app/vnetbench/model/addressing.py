"""Free addresses in a design: a pasted or duplicated VM (or router, or host) takes the next address nobody uses
in its segment's subnet, instead of a copy of its original's, which would clash on the first ping."""

from __future__ import annotations

import ipaddress
from typing import Any

from .index import Index

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: Fields that hold an address (``ip`` and ``host_address`` with their prefix, the others without one).
ADDRESS_FIELDS = ("ip", "host_address", "gateway", "nat_gateway", "via")
#: The parts of an object that carry their own address.
ADDRESSED_PARTS = ("vnics", "interfaces", "nics")
#: How many addresses to try before giving up on a crowded IPv6 subnet (the copy keeps its address then).
MOST_TRIED = 65_536


def _address(value: Any) -> IPAddress | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return ipaddress.ip_address(value.split("/", 1)[0].strip())
    except ValueError:
        return None


def used_addresses(index: Index) -> set[IPAddress]:
    """Every address the design gives to something: interfaces, gateways, next hops."""
    used = set()
    for entry in index.entries.values():
        for field in ADDRESS_FIELDS:
            address = _address(getattr(entry.obj, field, None))
            if address is not None:
                used.add(address)
    return used


def next_free(ip: str, used: set[IPAddress]) -> str:
    """The first address after ``ip``'s in its subnet (wrapping round, never the network or broadcast address)
    that is not in ``used``, with ``ip``'s prefix; ``ip`` itself when the subnet has none left."""
    try:
        interface = ipaddress.ip_interface(ip.strip())
    except ValueError:
        return ip  # not an address: validation says so, a copy changes nothing
    network = interface.network
    first, last = int(network.network_address), int(network.broadcast_address)
    if network.version == 4 and network.prefixlen < 31:
        first, last = first + 1, last - 1
    span = last - first + 1
    start = int(interface.ip)
    for step in range(1, min(span, MOST_TRIED) + 1):
        candidate = type(interface.ip)(first + (start - first + step) % span)
        if candidate not in used:
            return f"{candidate}/{network.prefixlen}"
    return ip


def readdress(obj: Any, used: set[IPAddress]) -> None:
    """Give ``obj`` and its addressed parts (vNICs, interfaces, NICs) the next free address each, in place;
    the addresses taken join ``used``."""
    for part in [obj, *(p for name in ADDRESSED_PARTS for p in getattr(obj, name, None) or [])]:
        ip = getattr(part, "ip", None)
        if isinstance(ip, str) and ip:
            part.ip = next_free(ip, used)
            taken = _address(part.ip)
            if taken is not None:
                used.add(taken)
