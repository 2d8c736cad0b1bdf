"""Checks of the physical network and the cables: switch ports, routers, physical hosts, links and patches."""

from __future__ import annotations


from ..forwarding import patchable
from ..objects import HostKind, PortMode, Switch
from ..vlan import ALL_VLANS
from .base import KIND_WORDS
from .values import ValueChecks

#: Link endpoint kinds that are one physical socket: each takes at most one cable.
SINGLE_CABLE = frozenset({"pnic", "port", "router_interface", "host_nic"})
#: Allowed cable pairs (unordered) besides switch-switch patches.
LINKABLE = frozenset({frozenset({"pnic", "port"}), frozenset({"port"}), frozenset({"router_interface", "port"}),
                      frozenset({"host_nic", "port"})})


class PhysicalChecks(ValueChecks):
    """Physical switches, routers and hosts, and the links between sockets."""

    def check_physical(self) -> None:
        """Physical switch ports, routers' interfaces and physical hosts' NICs (routes: ``RouteChecks``)."""
        for i, ps in enumerate(self.t.physical_switches):
            for j, port in enumerate(ps.ports):
                path = f"physical_switches[{i}].ports[{j}]"
                label = f"{ps.name}/{port.name}"
                self.check_vlan_id(f"{path}.access_vlan", port.id, port.access_vlan, label)
                self.check_vlan_id(f"{path}.native_vlan", port.id, port.native_vlan, label)
                self.check_mtu(f"{path}.mtu", port.id, port.mtu, label)
                if not port.allowed.valid:
                    self.error(f"{path}.allowed", port.id, f"{label} allows {port.allowed.text!r}: "
                               f"{port.allowed.error}", port.allowed.hint)
                if port.mode == PortMode.ACCESS and port.allowed.ranges != ALL_VLANS:
                    self.warn(f"{path}.allowed", port.id, f"{label} is an access port, so its allowed VLAN list "
                              "has no effect", "make it a trunk, or remove allowed")
        for i, rt in enumerate(self.t.physical_routers):
            path = f"physical_routers[{i}]"
            self.ref(f"{path}.switch", rt.id, rt.switch, ["physical_switch"], "physical switch")
            for j, itf in enumerate(rt.interfaces):
                label = f"{rt.name}/{itf.name}"
                self.check_vlan_id(f"{path}.interfaces[{j}].vlan", itf.id, itf.vlan, label)
                if itf.ip is not None:
                    self.check_interface_address(f"{path}.interfaces[{j}].ip", itf.id, itf.ip, label)
                self.check_more_addresses(f"{path}.interfaces[{j}]", itf.id, itf, label)
        for i, ph in enumerate(self.t.physical_hosts):
            for j, nic in enumerate(ph.nics):
                path = f"physical_hosts[{i}].nics[{j}]"
                label = f"{ph.name}/{nic.name}"
                self.check_vlan_id(f"{path}.vlan", nic.id, nic.vlan, label)
                self.check_ip_and_gateway(path, nic.id, nic.ip, nic.gateway, label, nic)

    def check_links(self) -> None:
        """Cables: both ends exist, can be cabled together, and each socket takes one cable."""
        used: dict[str, str] = {}
        for i, link in enumerate(self.t.links):
            path = f"links[{i}]"
            ka, kb = self.index.kind(link.a), self.index.kind(link.b)
            for side, ref, kind in (("a", link.a, ka), ("b", link.b, kb)):
                if kind is None:
                    self.broken(f"{path}.{side}", link.id, f"link {link.id} ends at {ref!r}, which does not exist",
                               "point both ends at existing objects, or remove the link")
            if ka is None or kb is None:
                continue
            if link.a == link.b:
                self.error(path, link.id, f"link {link.id} joins {self.name(link.a)} to itself",
                           "connect it to something else")
                continue
            if link.speed_mbps is not None and not (ka == kb == "port" and link.speed_mbps > 0):
                self.error(f"{path}.speed_mbps", link.id, f"link {link.id} has speed {link.speed_mbps} Mbit/s",
                           "a speed belongs to a trunk between two switch ports and is a positive number, like 10000")
            if ka == kb == "switch":
                self.check_patch(path, link.id, self.index.get(link.a), self.index.get(link.b))
            elif frozenset({ka, kb}) not in LINKABLE:
                self.broken(path, link.id, f"link {link.id} joins {self.name(link.a)} ({KIND_WORDS.get(ka, ka)}) "
                           f"to {self.name(link.b)} ({KIND_WORDS.get(kb, kb)}), which cannot be cabled",
                           "cable a pNIC, router interface or physical host NIC to a switch port, or two switch "
                           "ports (a trunk)")
                continue
            for side, ref, kind in (("a", link.a, ka), ("b", link.b, kb)):
                if kind not in SINGLE_CABLE:
                    continue
                if ref in used:
                    self.error(f"{path}.{side}", link.id, f"{self.name(ref)} is plugged in twice (links "
                               f"{used[ref]} and {link.id})", "one socket takes one cable; remove a link")
                used.setdefault(ref, link.id)

    def check_patch(self, path: str, link_id: str, a: Switch, b: Switch) -> None:
        """A link between two virtual switches, which only OVS and Linux bridges on one KVM host allow."""
        if patchable(a, b):
            host = self.index.get(a.host)
            if host is not None and host.kind == HostKind.KVM:
                return
        self.error(path, link_id, f"link {link_id} joins the virtual switches {self.name(a.id)} and "
                   f"{self.name(b.id)} directly", "virtual switches do not connect to each other (ESXi has no such "
                   "link); join them through uplinks and a physical switch, or a router VM. Only OVS and Linux "
                   "bridges on one KVM host can be patched")
