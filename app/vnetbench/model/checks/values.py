"""Checks of single values: MTUs, VLAN ids, addresses, gateways, and the match and port of a firewall rule."""

from __future__ import annotations

import ipaddress

from ..vlan import MAX_VLAN
from .base import CheckerBase

MIN_MTU, MAX_MTU = 68, 9216


class ValueChecks(CheckerBase):
    """Checks of one field's value, called by the checks of every part of the design."""

    def check_mtu(self, path: str, obj_id: str, value: int, label: str) -> None:
        """An MTU the platforms accept."""
        if not MIN_MTU <= value <= MAX_MTU:
            self.error(path, obj_id, f"{label} has MTU {value}, which is out of range",
                       f"use an MTU from {MIN_MTU} to {MAX_MTU} (1500 standard, 9000 jumbo)")

    def check_vlan_id(self, path: str, obj_id: str, value: int | None, label: str) -> None:
        """A VLAN id from 1 to 4094."""
        if value is not None and not 1 <= value <= MAX_VLAN:
            self.error(path, obj_id, f"{label} has VLAN {value}, which is out of range",
                       f"use a VLAN id from 1 to {MAX_VLAN}")

    def check_address(self, path: str, obj_id: str | None, value: str, label: str) -> bool:
        """A plain IPv4 address (no prefix); report and return False otherwise."""
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            self.error(path, obj_id, f"{label} is {value!r}, which is not an IPv4 address",
                       "write a plain address like 10.0.1.1 (no prefix)")
            return False
        return True

    def check_interface_address(self, path: str, obj_id: str, value: str, label: str) -> bool:
        """``address/prefix`` with a usable host address; report and return False otherwise."""
        try:
            itf = ipaddress.IPv4Interface(value)
        except ValueError:
            itf = None
        if itf is None or "/" not in value:
            self.error(path, obj_id, f"{label} has the address {value!r}, which is not in address/prefix form",
                       "write it like 10.0.1.10/24")
            return False
        net = itf.network
        if net.prefixlen <= 30 and itf.ip in (net.network_address, net.broadcast_address):
            what = "network" if itf.ip == net.network_address else "broadcast"
            self.error(path, obj_id, f"{label} has {itf.ip}, which is the {what} address of {net}",
                       "pick a host address inside the subnet")
            return False
        return True

    def check_ip_and_gateway(self, path: str, obj_id: str, ip: str | None, gateway: str | None, label: str) -> None:
        """An interface address and a gateway inside its subnet that is not the address itself."""
        ok = ip is not None and self.check_interface_address(f"{path}.ip", obj_id, ip, label)
        if gateway is None or not self.check_address(f"{path}.gateway", obj_id, gateway, f"{label}'s gateway"):
            return
        if ok:
            itf = ipaddress.IPv4Interface(ip)
            if ipaddress.IPv4Address(gateway) not in itf.network:
                self.error(f"{path}.gateway", obj_id, f"{label} has the gateway {gateway}, which is outside its "
                           f"subnet {itf.network}", f"use a gateway inside {itf.network}, or fix the prefix")
            elif ipaddress.IPv4Address(gateway) == itf.ip:
                self.error(f"{path}.gateway", obj_id, f"{label} has its own address {gateway} as gateway",
                           "use the router's address")
        elif ip is None:
            self.warn(f"{path}.gateway", obj_id, f"{label} has a gateway but no address",
                      "give it an address/prefix in the gateway's subnet")

    def check_rule_match(self, path: str, owner: str | None, value: str, label: str) -> None:
        """A rule's source or destination: any, an address, a network or an object id."""
        if value.strip().lower() == "any" or value in self.index:
            return
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError:
            self.error(path, owner, f"{label} matches {value!r}, which is neither an address, a network nor "
                       "an object id", "write any, an address, a network like 10.0.1.0/24, or an object's id")

    def check_rule_port(self, path: str, owner: str | None, port: int | str | None, label: str) -> None:
        """A port is a number 1..65535 or a range ``1000-2000``."""
        if port is None:
            return
        lo_text, _, hi_text = str(port).strip().partition("-")
        bounds = [int(t) for t in (lo_text, hi_text or lo_text) if t.isdigit()]
        if len(bounds) != 2 or not 1 <= bounds[0] <= bounds[1] <= 65535:
            self.error(path, owner, f"{label} matches port {port!r}, which is not a port or a port range",
                       "write a port from 1 to 65535, or a range like 5201-5210")
