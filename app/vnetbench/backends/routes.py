"""Routes as ``ip route`` takes them, from a design's gateways and static routes (both families): what every
backend that configures guests or routers by ``ip route`` loads (the local lab's namespaces, KVM guests)."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any

from vnetbench.model.families import DEFAULT_NETWORK, family, link_local, route_family
from vnetbench.model.routing import route_prefix


def default_route(addr: str, gateway: str, dev: str | None = None) -> list[list[str]]:
    """The guest's default route of ``addr``'s family through the first interface that has an address, a
    segment and a gateway of that family (as the prediction chooses it); a gateway outside that interface's
    subnet gives no route (the OS refuses it). A link-local gateway (``fe80::1%eth0``) leaves by ``dev``."""
    fam = family(addr)
    if fam == 6 and link_local(gateway):
        return [[DEFAULT_NETWORK[6], gateway.split("%", 1)[0], dev]] if dev else []
    try:
        inside = ipaddress.ip_address(gateway) in ipaddress.ip_interface(addr).network
    except ValueError:
        inside = False
    return [["default" if fam == 4 else DEFAULT_NETWORK[6], gateway]] if inside else []


def static_routes(routes: list[Any], default: Sequence[Sequence[str]] = (),
                  devs: dict[str, str] | None = None) -> list[list[str]]:
    """A router's static routes of both families as ``ip route`` takes them (an IPv4 ``default`` stays
    ``default``, an IPv6 one is ``::/0``), then ``default`` (its vNIC gateways) of each family with no static
    default route: among equal prefixes the first listed wins, as the prediction's ``decide.RouteTable``
    decides. A route's interface is left to the kernel, which picks the one whose subnet holds the next hop;
    a link-local next hop (``fe80::1%eth0``, or with ``interface``) leaves by its interface's name in ``devs``."""
    out = []
    for r in routes:
        fam = route_family(r)
        if route_prefix(r.prefix) is None or fam is None:
            continue
        prefix = r.prefix.strip()
        if fam == 6 and prefix.lower() == "default":
            prefix = DEFAULT_NETWORK[6]
        via, _, scope = r.via.strip().partition("%")
        scope = scope or (r.interface or "")
        out.append([prefix, via, (devs or {}).get(scope, scope)] if link_local(via) and scope else [prefix, via])
    defaults = {family(p) or 4 for p, *_ in out if (net := route_prefix(p)) is not None and net.prefixlen == 0}
    out += [list(r) for r in default if (family(r[1].split("%")[0]) or 4) not in defaults]
    return out
