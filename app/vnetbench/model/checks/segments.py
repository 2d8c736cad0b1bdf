"""Checks across the design: NSX DLRs and DFW rules, one address per segment, gateways that something routes."""

from __future__ import annotations

import ipaddress

from ..families import GATEWAYS, addresses, link_local
from ..objects import HostNic, VNic, VmRole
from .values import ValueChecks


class SegmentChecks(ValueChecks):
    """NSX objects, duplicate addresses within a segment, and gateways."""

    def check_nsx(self) -> None:
        """DLR interfaces and DFW rules: their networks, targets, matches and ports."""
        for i, dlr in enumerate(self.t.nsx.dlrs):
            for j, itf in enumerate(dlr.interfaces):
                path = f"nsx.dlrs[{i}].interfaces[{j}]"
                self.ref(f"{path}.network", itf.id, itf.network, ["portgroup", "switch"], "network")
                self.check_interface_address(f"{path}.ip", itf.id, itf.ip, f"{dlr.name}/{itf.name}")
                self.check_more_addresses(path, itf.id, itf, f"{dlr.name}/{itf.name}")
        for i, rule in enumerate(self.t.nsx.dfw.rules):
            path = f"nsx.dfw.rules[{i}]"
            label = f"the DFW rule {rule.name or i + 1}"
            for k, target in enumerate(rule.applied_to):
                if target not in self.index:
                    self.broken(f"{path}.applied_to[{k}]", None, f"{label} is applied to {target!r}, which does "
                               "not exist", "apply it to existing VMs, vNICs, portgroups or switches")
                elif self.index.kind(target) not in ("vm", "vnic", "portgroup", "switch"):
                    self.broken(f"{path}.applied_to[{k}]", target, f"{label} is applied to {self.name(target)}, "
                               "which has no vNICs", "apply it to VMs, vNICs, portgroups or switches")
            for side in ("src", "dst"):
                self.check_rule_match(f"{path}.{side}", None, getattr(rule, side), label)
            self.check_rule_port(f"{path}.port", None, rule.port, label)

    def check_segments(self) -> None:
        """Duplicate IPs and MACs in one segment (the prediction's lint finds them across an L2 domain)."""
        ips: dict[tuple, tuple[str, str]] = {}
        macs: dict[tuple, tuple[str, str]] = {}
        for i, vm in enumerate(self.t.vms):
            for j, nic in enumerate(vm.vnics):
                seg = self.fabric.place(vm, nic).segment if vm.host in self.index else None
                if seg is None:
                    continue
                label, path = f"{vm.name}/{nic.name}", f"vms[{i}].vnics[{j}]"
                for field, text in _fields(nic):
                    address = _address(text)
                    if address is not None and not link_local(address):
                        self.once(ips, (seg, address), f"{path}.{field}", nic.id, label, f"the address {address}")
                if nic.mac:
                    self.once(macs, (seg, nic.mac.lower()), path + ".mac", nic.id, label, f"the MAC {nic.mac}")
        for i, dlr in enumerate(self.t.nsx.dlrs):
            for j, itf in enumerate(dlr.interfaces):
                sw = self.index.parent(itf.network) if self.index.kind(itf.network) == "portgroup" else \
                    self.index.get(itf.network)
                address = _address(itf.ip)
                if address is None or self.index.kind(getattr(sw, "id", None)) != "switch":
                    continue
                for host in self.switch_hosts(sw):
                    seg, _ = self.fabric.network_segment(itf.network, host, itf.name)
                    if seg is not None:
                        self.once(ips, (seg, address), f"nsx.dlrs[{i}].interfaces[{j}].ip", itf.id,
                                  f"{dlr.name}/{itf.name}", f"the address {address}")

    def check_gateways(self) -> None:
        """A gateway that nothing in the design owns, or that something owns which does not route."""
        routers = {_address(a) for rt in self.t.physical_routers for p in rt.interfaces for a in addresses(p)}
        routers |= {_address(a) for vm in self.t.vms if vm.role is not VmRole.VM for n in vm.vnics
                    for a in addresses(n)}
        routers |= {_address(a) for dlr in self.t.nsx.dlrs for i in dlr.interfaces for a in addresses(i)}
        routers |= {sw.nat_gateway.strip() for sw in self.t.switches if sw.nat_gateway}
        hosts = {_address(sw.host_address): self.name(sw.host) for sw in self.t.switches if sw.host_address}
        hosts |= {_address(p.ip): self.name(p.id) for h in self.t.hosts for p in h.pnics if p.ip}
        others = {_address(a): self.name(n.id) for vm in self.t.vms if vm.role is VmRole.VM for n in vm.vnics
                  for a in addresses(n)}
        others |= {_address(a): self.name(n.id) for ph in self.t.physical_hosts for n in ph.nics for a in addresses(n)}
        nics: list[tuple[str, VNic | HostNic, str]] = [(f"vms[{i}].vnics[{j}]", n, f"{vm.name}/{n.name}") for i, vm in enumerate(self.t.vms)
                for j, n in enumerate(vm.vnics)]
        nics += [(f"physical_hosts[{i}].nics[{j}]", n, f"{ph.name}/{n.name}")
                 for i, ph in enumerate(self.t.physical_hosts) for j, n in enumerate(ph.nics)]
        for (path, nic, label), field in ((n, f) for n in nics for f in GATEWAYS):
            text = getattr(nic, field)
            gateway = _address(text) if text and not link_local(text) else None
            if gateway is None or gateway in routers or not any(_inside(gateway, a) for a in addresses(nic)):
                continue  # (a gateway outside the subnet, or without an address, is reported on its own)
            owner = hosts.get(gateway) or others.get(gateway)
            if owner is not None:
                self.warn(f"{path}.{field}", nic.id, f"{label}'s gateway {gateway} is {owner}'s address, which "
                          "does not route", "point it at a router, a firewall or router VM, a DLR or a NAT service")
            else:
                self.warn(f"{path}.{field}", nic.id, f"nothing in the design owns {label}'s gateway {gateway}, so "
                          "its traffic to other subnets goes nowhere",
                          f"give a router interface the address {gateway}, or correct the gateway")


def _inside(address: str, ip: str | None) -> bool:
    try:
        return ip is not None and ipaddress.ip_address(address) in ipaddress.ip_interface(ip).network
    except (ValueError, TypeError):
        return False


def _address(ip: str | None) -> str | None:
    try:
        return str(ipaddress.ip_interface(ip).ip) if ip else None
    except ValueError:
        return None


def _fields(nic: VNic) -> list[tuple[str, str]]:
    """A vNIC's address fields with where they sit: ``ip``, then ``addresses[k]``."""
    out = [("ip", nic.ip)] if nic.ip else []
    return out + [(f"addresses[{k}]", a) for k, a in enumerate(nic.addresses)]
