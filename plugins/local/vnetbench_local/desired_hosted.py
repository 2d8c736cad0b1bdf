"""Hosted networks and KVM patches in the lab: a NAT network as a masquerading namespace, a patch as a veth
between two switches' bridges."""

from __future__ import annotations

import ipaddress
from typing import Any

from vnetbench.backends import nftables as nft
from vnetbench.backends.addresses import interface_address
from vnetbench.backends.planning import Want
from vnetbench.model import SwitchKind
from vnetbench.model.families import address_of, gateway_of
from vnetbench.model.forwarding import patch_problem

from .desired_base import BuilderBase, veth_end
from .names import ifname


def ipv4_of(part: Any) -> str | None:
    """An interface's IPv4 ``address/prefix`` (NAT translates IPv4 only), None without a well-formed one."""
    text = address_of(part, 4)
    try:
        return str(ipaddress.IPv4Interface(text)) if text and "/" in text else None
    except ValueError:
        return None


class HostedParts(BuilderBase):
    """KVM patches and hosted NAT networks."""

    def patches(self) -> None:
        """A KVM patch (OVS patch port, veth between bridges) between two switches of one host: a veth between
        the bridges of each segment pair it joins (``Fabric.patched_segments``: every VLAN in use crosses an
        untagged OVS patch, as each VLAN is its own bridge here)."""
        for link in self.d.links:
            if self.ix.kind(link.a) != "switch" or self.ix.kind(link.b) != "switch":
                continue
            a, b = self.ix.get(link.a), self.ix.get(link.b)
            problem = patch_problem(link.id, a, b)
            if problem:
                self.reasons.append(problem)
        links = {(lk.a, lk.b): lk.id for lk in self.d.links}
        for ka, kb in self.fabric.patched_segments(list(self.segments)):
            sa, sb = self.bridge_of(ka), self.bridge_of(kb)
            link_id = links.get((ka.switch, kb.switch)) or links[(kb.switch, ka.switch)]
            if sa and sb:
                vlan = () if ka.vlan is None else (ka.vlan,)
                self.veth(veth_end(sa.ns, ifname("c", link_id, "a", *vlan), sa.bridge),
                          veth_end(sb.ns, ifname("c", link_id, "b", *vlan), sb.bridge),
                          f"patch {self.ix.get(ka.switch).name} - {self.ix.get(kb.switch).name}"
                          + (f" VLAN {ka.vlan}" if ka.vlan is not None else ""), link_id)

    def hosted_nat(self, sw: Any) -> None:
        """A hosted hypervisor's NAT service: a namespace that masquerades the NAT network onto the host's LAN.

        It sends from the host OS's own address on the NAT's pNIC and routes through the host's gateway, where
        the design gives them (``PNic.ip``/``gateway``). Without them the service borrows, in every subnet of
        the physical network's endpoints, the highest address nobody uses, and routes through the gateway most
        LAN endpoints use. A destination not on the LAN stays unreachable, and nothing outside reaches in but
        through its port forwards (nftables dnat at the host's address), as SEMANTICS.md describes. NAT
        translates IPv4 only, as in the model: the service takes the IPv4 addresses and gateways, and the NAT
        network's IPv6 stays on it (its guests and the host's own adapter meet there).
        """
        if not sw.host or not sw.nat_gateway:
            return
        seg, why = self.switch_segment(sw.host, sw.id, f"switch {sw.name}")
        if seg is None:
            self.reasons.append(why or f"switch {sw.name}: no NAT network")
            return
        gateway = ipaddress.IPv4Address(sw.nat_gateway.split("/")[0])
        nets = [ipaddress.IPv4Interface(a).network for v in self.d.vms for n in v.vnics
                if n.network == sw.id and (a := ipv4_of(n))]
        inside = next((n for n in nets if gateway in n), ipaddress.IPv4Network(f"{gateway}/24", strict=False))
        ns = self.netns("n", sw.id, f"NAT of {sw.name}", True)
        self.veth(veth_end(ns, "inside", addrs=(f"{gateway}/{inside.prefixlen}",)),
                  veth_end(seg.ns, ifname("a", sw.id), seg.bridge), f"{sw.name} NAT inside", sw.id)
        wire = self.fabric.nat_wire(sw)
        if wire.pnic is None:
            return
        own = self.ix.get(wire.pnic)
        lan = [*(n for ph in self.d.physical_hosts for n in ph.nics),
               *(i for rt in self.d.physical_routers for i in rt.interfaces),
               *(n for v in self.d.vms for n in v.vnics if self.ix.kind(n.network) == "switch"
                 and self.ix.get(n.network).kind is SwitchKind.HOSTED_BRIDGED)]
        lan4 = [ipaddress.IPv4Interface(a) for x in lan if (a := ipv4_of(x))]
        used = {a.ip for a in lan4}
        borrowed = []
        for net in sorted({a.network for a in lan4} - {inside}):
            free = next((a for a in reversed(list(net.hosts())[-64:]) if a not in used), None)
            if free is not None:
                borrowed.append(f"{free}/{net.prefixlen}")
        gateways = [g for x in lan if (g := gateway_of(x, 4))]
        address = interface_address(address_of(own, 4), f"{self.ix.parent(own.id).name}/{own.name} ip",
                                    self.reasons)
        if address:
            borrowed, gateways = [address], [g for g in [gateway_of(own, 4)] if g]
        hv = self.hv(sw.host)
        br = self.bridge(hv, ifname("w", sw.id), f"{sw.name} NAT outside", sw.id)
        self.veth(veth_end(ns, "outside", addrs=tuple(borrowed)), veth_end(hv, ifname("e", sw.id), br),
                  f"{sw.name} NAT outside", sw.id)
        self.groups.setdefault((wire.pnic, wire.vlan), []).append((br, hv, False))
        if gateways:
            self.routes[ns] = [["default", max(set(gateways), key=gateways.count)]]
        forwards = [(str(pf.proto), pf.host_port, pf.guest, pf.guest_port) for pf in sw.port_forwards]
        self._add(Want("nft", f"nft/{ns}/ip", {"ns": ns, "family": "ip", "text": nft.nat_ruleset("outside", forwards)},
                       f"NAT of {sw.name} (masquerade, in from outside only "
                       + (f"through {len(forwards)} port forward(s))" if forwards else "the replies)"), sw.id,
                       (f"netns/{ns}",)))
