"""NSX in the lab: a distributed router as one routing namespace per host, each overlay segment as per-host
bridges joined by real VXLAN between tunnel endpoints, and the distributed firewall on every guest port."""

from __future__ import annotations

import ipaddress
from typing import Any

from vnetbench.backends import nftables as nft
from vnetbench.backends.planning import Want
from vnetbench.model import Action, Forwarding, ForwardMode
from vnetbench.model.families import FAMILIES, addresses, family
from vnetbench.model.forwarding import BYPASS_TYPES, inner_mtu

from .desired_base import VTEP_NET, BuilderBase, Segment, static_routes, veth_end
from .names import guest_ifname, ifname, mac_for


class NsxParts(BuilderBase):
    """Distributed routers, overlay segments and the distributed firewall."""

    def dlr(self, dlr: Any) -> None:
        """An NSX DLR: one instance per host, each with the same addresses on the local segments.

        The instance on the source host routes (SEMANTICS 4.3), in both families. As in NSX, where the
        controller knows every guest's IP and MAC, each instance gets static neighbour entries and needs no ARP
        or neighbour discovery of its own; bridge rules keep the DLR's answers inside each host
        (``local_dlr_rules``), so a guest always finds its local instance.
        """
        per_host: dict[str, list[tuple[Any, Segment]]] = {}
        for itf in dlr.interfaces:
            net = self.ix.get(itf.network)
            sw = self.ix.parent(itf.network) if self.ix.kind(itf.network) == "portgroup" else net
            if sw is None or self.ix.kind(sw.id) != "switch":
                self.reasons.append(f"DLR {dlr.name} interface {itf.name}: network {itf.network!r} is not a "
                                    "portgroup or switch")
                continue
            for host in self.fabric.switch_hosts(sw):
                seg, why = self.switch_segment(host, itf.network, f"DLR {dlr.name} interface {itf.name}")
                if why:
                    self.reasons.append(why)
                if seg:
                    per_host.setdefault(host, []).append((itf, seg))
        addrs_of = {i.id: self.forwarding_addrs(self._addrs(i, f"DLR {dlr.name} interface {i.name} ip"), i.id)
                    for i in dlr.interfaces}
        for host, items in per_host.items():
            ns = self.netns("d", dlr.id, f"DLR {dlr.name} on {self.ix.get(host).name}", True, host)
            taken: set[str] = set()
            devs: dict[str, str] = {}
            for i, (itf, seg) in enumerate(items):
                name = guest_ifname(itf.name, i, taken)
                taken.add(name)
                devs[itf.name] = devs[itf.id] = name
                self.veth(veth_end(ns, name, mac=mac_for(self.tag, itf.id, host), addrs=tuple(addrs_of[itf.id])),
                          veth_end(seg.ns, ifname("d", itf.id, host), seg.bridge),
                          f"DLR {dlr.name} {itf.name} on {self.ix.get(host).name}", dlr.id, seg.mtu)
                self.neighbours.setdefault(ns, []).extend(self.guest_neighbours(itf.network, addrs_of[itf.id], name))
                self.local_dlr_rules(dlr.name, seg.ns, [a for addrs in addrs_of.values() for a in addrs])
            if dlr.routes:
                self.routes[ns] = static_routes(dlr.routes, devs=devs)
            if not self.neighbours[ns]:
                del self.neighbours[ns]

    def guest_neighbours(self, network: str, addrs: list[str], dev: str) -> list[list[str]]:
        """Static neighbour entries (``[ip, mac, dev]``) for every guest address on ``network`` inside one of a
        DLR interface's subnets ``addrs`` (both families), as NSX's controller gives each instance."""
        nets = [ipaddress.ip_interface(a).network for a in addrs]
        out = []
        for vm in self.d.vms:
            for nic in vm.vnics:
                if nic.network != network:
                    continue
                for text in addresses(nic):
                    try:
                        ip = ipaddress.ip_interface(text).ip
                    except ValueError:
                        continue      # (the vNIC's own reason says why)
                    if any(ip in net for net in nets):
                        out.append([str(ip), nic.mac or mac_for(self.tag, nic.id), dev])
        return out

    def local_dlr_rules(self, name: str, hv: str, addrs: list[str]) -> None:
        """Keep a DLR's address resolution inside each host, so a guest always finds its local instance: its
        ARP and (IPv6) neighbour discovery reach guests ("n") and the other distributed routers' instances on
        this host ("d": a Tier-1 asks its Tier-0 over the router link), nothing over the overlay."""
        rules = self.bridge_rules.setdefault(hv, [])
        ips = {fam: "{ " + ", ".join(sorted({str(ipaddress.ip_interface(a).ip) for a in addrs
                                             if family(a) == fam})) + " }" for fam in FAMILIES}
        wanted = []
        if any(family(a) == 4 for a in addrs):
            wanted += [f'arp daddr ip {ips[4]} iifname != "n*" iifname != "d*" drop comment "{name} ARP stays local"',
                       f'arp saddr ip {ips[4]} oifname != "n*" oifname != "d*" drop comment "{name} ARP stays local"']
        if any(family(a) == 6 for a in addrs):
            wanted.append(f'ip6 saddr {ips[6]} icmpv6 type {{ nd-neighbor-solicit, nd-neighbor-advert }} '
                          f'oifname != "n*" oifname != "d*" drop comment "{name} neighbour discovery stays local"')
        rules.extend(r for r in wanted if r not in rules)

    def overlay(self) -> None:
        """NSX segments: a bridge per member host, joined by VXLAN between the hosts' tunnel endpoints.

        Each host with NSX segments gets a transport bridge holding its VTEP address; it reaches the physical
        network through the host's transport pNIC in the transport VLAN (``Fabric.transport``) like any segment,
        so the tunnels really cross the pNICs, and only where the physical network carries that VLAN. The VXLAN
        device takes guest frames up to the smallest transport MTU of its hosts less the overlay's bytes
        (``inner_mtu``: VXLAN 50, Geneve 54, which the lab's VXLAN emulates), so a limit on one host holds both
        ways, and the physical ports on the way drop encapsulated frames larger than their own MTU, as real ones
        do.
        """
        if not self.overlay_members:
            return
        vteps: dict[str, str] = {}
        gateways: dict[str, tuple[str, ipaddress.IPv4Network, str]] = {}
        transport_mtu: dict[str, int] = {}
        for host_id in sorted({seg.host for segs in self.overlay_members.values() for seg in segs}):
            wire = self.fabric.transport(host_id)
            if wire.pnic is None:
                continue
            ns = self.hv(host_id)
            index = next(i for i, h in enumerate(self.d.hosts) if h.id == host_id)
            tep = self.ix.get(host_id).tep   # the design's endpoint address (routed transports), else one of ours
            address = tep.ip if tep is not None else f"{VTEP_NET[index + 1]}/{VTEP_NET.prefixlen}"
            vteps[host_id] = address.split("/")[0]
            if tep is not None and tep.gateway:
                gateways[host_id] = (ns, ipaddress.IPv4Interface(tep.ip).network, tep.gateway)
            transport_mtu[host_id] = min(self.ix.get(wire.pnic).mtu, wire.port.mtu)
            br = self.bridge(ns, ifname("x", host_id), "NSX transport", host_id, transport_mtu[host_id],
                             (address,))
            self.groups.setdefault((wire.pnic, wire.vlan), []).append((br, ns, False))
        for ns, subnet, gateway in gateways.values():   # endpoints in other subnets: through the TEP gateway
            self.routes.setdefault(ns, []).extend([f"{ip}/32", gateway] for ip in sorted(set(vteps.values()))
                                                  if ipaddress.IPv4Address(ip) not in subnet)
        for n, (sw_id, segs) in enumerate(self.overlay_members.items()):
            sw = self.ix.get(sw_id)
            vni = sw.vni or 5000 + n
            for seg in segs:
                if seg.host not in vteps:
                    continue
                peers = [s.host for s in segs if s.host != seg.host and s.host in vteps]
                remotes = sorted(vteps[h] for h in peers)
                # as NSX's controller does, each guest's MAC points at its own host's endpoint, so a frame for
                # a guest elsewhere crosses only the two hosts' transport pNICs (no flooding to every endpoint)
                macs = sorted((nic.mac or mac_for(self.tag, nic.id), vteps[vm.host]) for vm in self.d.vms
                              if vm.host in peers for nic in vm.vnics
                              if nic.network == sw_id or self.ix.parent(nic.network) is sw)
                # one device reaches every peer: the smallest transport MTU of any path limits it, both ways
                transport = min(transport_mtu[h] for h in [seg.host, *peers])
                name = ifname("o", sw_id)
                self._add(Want("vxlan", f"vxlan/{seg.ns}/{name}",
                                   {"ns": seg.ns, "name": name, "vni": vni, "local": vteps[seg.host],
                                    "remotes": remotes, "macs": macs, "master": seg.bridge,
                                    "mtu": min(sw.mtu, inner_mtu(sw, transport))},
                                   f"VXLAN {vni} of {sw.name} on {self.ix.get(seg.host).name}", sw_id,
                                   (f"netns/{seg.ns}", f"bridge/{seg.ns}/{seg.bridge}",
                                    f"bridge/{seg.ns}/{ifname('x', seg.host)}")))

    def dfw(self) -> None:
        """The NSX distributed firewall: its rules filter each guest port of every host, both directions (not an
        SR-IOV or DirectPath adapter's: it bypasses the virtual switch the DFW sits in)."""
        dfw = self.d.nsx.dfw
        if not dfw.rules and dfw.default_policy is Action.ALLOW:
            return
        chains: dict[tuple[str, tuple[int, ...]], str] = {}
        for ns, port, vm, nic in self.vm_ports:
            if nic.type in BYPASS_TYPES:
                continue
            picked = tuple(i for i, r in enumerate(dfw.rules)
                           if not r.applied_to or nic.id in r.applied_to or vm.id in r.applied_to)
            if (ns, picked) not in chains:
                name = chains[(ns, picked)] = f"dfw{sum(1 for k in chains if k[0] == ns)}"
                fw = Forwarding(ForwardMode.BRIDGED, dfw.stateful, dfw.default_policy,
                                [dfw.rules[i] for i in picked])
                try:
                    body = nft.chain_body(fw, self.address_of, "DFW", conntrack=False)
                except nft.RuleError as exc:
                    self.reasons.append(str(exc))
                    return
                verdict = "accept" if dfw.default_policy is Action.ALLOW else "drop"
                self.bridge_chains.setdefault(ns, []).append((name, [*body, f'{verdict} comment "DFW default"']))
                if len(self.bridge_chains[ns]) == 1:
                    self.bridge_rules.setdefault(ns, []).append("ether type arp accept")
            chain = chains[(ns, picked)]
            self.bridge_rules.setdefault(ns, []).extend([f'iifname "{port}" jump {chain}',
                                                         f'oifname "{port}" jump {chain}'])
