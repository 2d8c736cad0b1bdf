"""Checks of static routes, on every router that holds them: physical routers, router, firewall and edge VMs,
and NSX DLRs."""

from __future__ import annotations

from ..families import family
from ..routing import route_owners, route_prefix
from .values import ValueChecks


class RouteChecks(ValueChecks):
    """Every router's static routes."""

    def check_routes(self) -> None:
        """Every router's static routes: a network (or ``default``), a next-hop address, an interface it has."""
        for owner in route_owners(self.t):
            for j, route in enumerate(owner.routes):
                rpath, oid = f"{owner.path}.routes[{j}]", owner.obj.id
                if route_prefix(route.prefix) is None:
                    self.error(f"{rpath}.prefix", oid, f"{owner.name} has a route to {route.prefix!r}, which is "
                               "not a network", "write the network like 10.20.0.0/16 or 2001:db8:20::/48 (host "
                               "bits zero), or default")
                if self.check_address(f"{rpath}.via", oid, route.via, f"{owner.name}'s next hop") and \
                        route.prefix.strip().lower() != "default" and family(route.prefix) not in (None, family(route.via)):
                    self.error(f"{rpath}.via", oid, f"{owner.name}'s route to {route.prefix} goes to {route.via}, "
                               "an address of the other family", f"give an IPv{family(route.prefix)} next hop")
                if route.interface is not None and owner.interface(route.interface) is None:
                    names = ", ".join(itf[1] for itf in owner.interfaces) or "none"
                    self.error(f"{rpath}.interface", oid, f"{owner.name}'s route to {route.prefix} leaves by "
                               f"{route.interface!r}, which is not one of its interfaces ({names})",
                               "name one of its interfaces, or leave interface empty")
