"""Checks of single values: MTUs, VLAN ids, addresses, gateways, and the match and port of a firewall rule."""

from __future__ import annotations

import ipaddress
from typing import Any

from ..families import family, link_local
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

    def check_address(self, path: str, obj_id: str | None, value: str, label: str, only: int | None = None) -> bool:
        """A plain IPv4 or IPv6 address (no prefix; an IPv6 link-local one may name its interface,
        ``fe80::1%eth0``), of family ``only`` when given; report and return False otherwise."""
        if only == 4:
            try:
                ipaddress.IPv4Address(value)
            except ValueError:
                self.error(path, obj_id, f"{label} is {value!r}, which is not an IPv4 address",
                           "write a plain address like 10.0.1.1 (no prefix)")
                return False
            return True
        try:
            ipaddress.ip_address(value.split("%", 1)[0] if link_local(value) else value)
        except ValueError:
            self.error(path, obj_id, f"{label} is {value!r}, which is not an IPv4 or IPv6 address",
                       "write a plain address like 10.0.1.1 or 2001:db8:1::1 (no prefix)")
            return False
        return True

    def check_interface_address(self, path: str, obj_id: str, value: str, label: str) -> bool:
        """``address/prefix`` of either family with a usable host address; report and return False otherwise."""
        try:
            itf = ipaddress.ip_interface(value)
        except ValueError:
            itf = None
        if itf is None or "/" not in value:
            self.error(path, obj_id, f"{label} has the address {value!r}, which is not in address/prefix form",
                       "write it like 10.0.1.10/24 (IPv4) or 2001:db8:1::10/64 (IPv6)")
            return False
        net = itf.network
        if net.version == 4 and net.prefixlen <= 30 and itf.ip in (net.network_address, net.broadcast_address):
            what = "network" if itf.ip == net.network_address else "broadcast"
            self.error(path, obj_id, f"{label} has {itf.ip}, which is the {what} address of {net}",
                       "pick a host address inside the subnet")
            return False
        if net.version == 6 and net.prefixlen < 127 and itf.ip == net.network_address:
            self.error(path, obj_id, f"{label} has {itf.ip}, which is the subnet-router anycast address of {net}",
                       "pick a host address inside the prefix, like ::10")
            return False
        if net.version == 6 and value.strip() != str(itf):
            self.warn(path, obj_id, f"{label} has the IPv6 address {value!r} in a long form",
                      f"write it in its short form (RFC 5952): {itf}")
        return True

    def check_more_addresses(self, path: str, obj_id: str, part: Any, label: str) -> None:
        """A router or DLR interface's further ``addresses``, each ``address/prefix`` of either family."""
        for k, value in enumerate(getattr(part, "addresses", None) or []):
            self.check_interface_address(f"{path}.addresses[{k}]", obj_id, value, label)

    def check_ip_and_gateway(self, path: str, obj_id: str, ip: str | None, gateway: str | None, label: str,
                             part: Any = None) -> None:
        """An interface's addresses (``ip``, then ``addresses``), each valid, and per family a gateway inside
        one of its on-link prefixes of that family that is not one of its own addresses (an IPv6 link-local
        gateway is on-link by definition). ``part`` (the interface) adds its ``addresses`` and ``gateway6``."""
        listed = [("ip", ip)] + [(f"addresses[{k}]", a) for k, a in enumerate(getattr(part, "addresses", None) or [])]
        mine = [ipaddress.ip_interface(a) for field, a in listed
                if a is not None and self.check_interface_address(f"{path}.{field}", obj_id, a, label)]
        gateways = [("gateway", gateway), ("gateway6", getattr(part, "gateway6", None))]
        for field, gw in gateways:
            if gw is None or not self.check_address(f"{path}.{field}", obj_id, gw, f"{label}'s gateway"):
                continue
            fam = family(gw)
            if field == "gateway6" and fam != 6:
                self.error(f"{path}.gateway6", obj_id, f"{label} has the IPv4 address {gw} as IPv6 gateway",
                           "put an IPv4 gateway in gateway, and an IPv6 one (or fe80::1%eth0) in gateway6")
                continue
            same = [m for m in mine if m.version == fam]
            if not same:
                if len(mine) < len([a for _, a in listed if a is not None]):
                    continue   # an address that is wrong is reported on its own
                if not mine:
                    self.warn(f"{path}.{field}", obj_id, f"{label} has a gateway but no address",
                              "give it an address/prefix in the gateway's subnet")
                else:
                    self.error(f"{path}.{field}", obj_id, f"{label} has the IPv{fam} gateway {gw} but no IPv{fam} "
                               "address", f"give it an IPv{fam} address/prefix, or remove the gateway")
                continue
            if link_local(gw):
                continue
            address = ipaddress.ip_address(gw)
            if address in {m.ip for m in same}:
                self.error(f"{path}.{field}", obj_id, f"{label} has its own address {gw} as gateway",
                           "use the router's address")
            elif not any(address in m.network for m in same):
                nets = ", ".join(str(m.network) for m in same)
                self.error(f"{path}.{field}", obj_id, f"{label} has the gateway {gw}, which is outside its "
                           f"subnet {nets}", f"use a gateway inside {nets}, or fix the prefix")
        if len([g for _, g in gateways if g is not None and family(g) is not None]) == 2 and \
                family(gateway) == family(gateways[1][1]):
            self.error(f"{path}.gateway6", obj_id, f"{label} has two IPv6 gateways",
                       "keep one IPv6 gateway, in gateway6, and put the IPv4 one in gateway")

    def check_rule_match(self, path: str, owner: str | None, value: str, label: str) -> None:
        """A rule's source or destination: any, an address, a network or an object id."""
        if value.strip().lower() == "any" or value in self.index:
            return
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError:
            self.error(path, owner, f"{label} matches {value!r}, which is neither an address, a network nor "
                       "an object id", "write any, an address, a network like 10.0.1.0/24 or 2001:db8:1::/64, or an object's id")

    def check_rule_port(self, path: str, owner: str | None, port: int | str | None, label: str) -> None:
        """A port is a number 1..65535 or a range ``1000-2000``."""
        if port is None:
            return
        lo_text, _, hi_text = str(port).strip().partition("-")
        bounds = [int(t) for t in (lo_text, hi_text or lo_text) if t.isdigit()]
        if len(bounds) != 2 or not 1 <= bounds[0] <= bounds[1] <= 65535:
            self.error(path, owner, f"{label} matches port {port!r}, which is not a port or a port range",
                       "write a port from 1 to 65535, or a range like 5201-5210")
