"""The physical side of the lab: physical routers and hosts as namespaces on their switch ports, each pNIC
as veths into the physical switch (one per VLAN) behind an ifb + tbf shaper at its speed, and trunk links."""

from __future__ import annotations

from typing import Any

from vnetbench.model.families import FAMILIES, family, gateway_of
from vnetbench.model.forwarding import PER_GUEST, Switching, shares_embedded_switch, trunk_vlan

from .desired_base import BuilderBase, EndpointInfo, default_route, static_routes, veth_end
from .names import guest_ifname, ifname


class PhysicalParts(BuilderBase):
    """Physical routers and hosts, pNIC uplinks and trunk links."""

    def physical_router(self, rt: Any) -> None:
        ns = self.netns("r", rt.id, f"router {rt.name}", forward=True)
        taken: set[str] = set()
        devs = {}
        for i, itf in enumerate(rt.interfaces):
            name = guest_ifname(itf.name, i, taken)
            taken.add(name)
            devs[itf.name] = devs[itf.id] = name
            addrs = self.forwarding_addrs(self._addrs(itf, f"router {rt.name} interface {itf.name} ip"), itf.id)
            self.attach_to_port(ns, name, itf.id, itf.vlan, addrs, rt.name, rt.id, rt.switch)
        if rt.routes:
            self.routes[ns] = static_routes(rt.routes, devs=devs)

    def physical_host(self, ph: Any) -> None:
        ns = self.netns("p", ph.id, f"physical host {ph.name}")
        taken: set[str] = set()
        addresses, addresses6 = {}, {}
        defaults: dict[int, list[list[str]]] = {}        # family -> the default route of its first gateway
        for i, nic in enumerate(ph.nics):
            name = guest_ifname(nic.name, i, taken)
            taken.add(name)
            addrs = self._addrs(nic, f"physical host {ph.name} NIC {nic.name} ip")
            addr = next((a for a in addrs if family(a) == 4), None)      # endpoints are reached at IPv4
            if addr:
                addresses[nic.id] = addr
            if (addr6 := self.global6(addrs)) is not None:
                addresses6[nic.id] = addr6
            self.attach_to_port(ns, name, nic.id, nic.vlan, addrs, ph.name, ph.id)
            for fam in FAMILIES:
                own, gateway = next((a for a in addrs if family(a) == fam), None), gateway_of(nic, fam)
                if own and gateway and fam not in defaults:
                    defaults[fam] = default_route(own, gateway, name)
        if defaults:
            self.routes[ns] = [r for fam in FAMILIES for r in defaults.get(fam, [])]
        self.endpoints[ph.id] = EndpointInfo(ns, addresses, addresses6)

    def uplinks(self) -> None:
        """Each segment's bridge reaches the physical switch VLAN its wire lands in (``Fabric.segment_wire``).

        An SR-IOV embedded switch joins the segment of the same pNIC and VLAN directly (a veth inside the host,
        as the NIC switches between its VFs and its own traffic) and reaches the wire through it.
        """
        wires = {key: self.fabric.segment_wire(key) for key in self.segments}
        wires = {key: w for key, w in wires.items() if w is not None and w.pnic is not None}
        for key, wire in wires.items():
            seg = self.segments[key]
            if key.switching is Switching.EMBEDDED:
                partner = next((self.segments[k] for k, w in wires.items() if k.switching is Switching.VIRTUAL
                                and shares_embedded_switch(wire, w)), None)
                if partner is not None:
                    self.veth(veth_end(seg.ns, ifname("e", seg.bridge), seg.bridge),
                              veth_end(partner.ns, ifname("e", partner.bridge, seg.bridge), partner.bridge),
                              f"{self.ix.get(key.switch).name} embedded switch - {partner.bridge}", key.switch)
                    continue
            guests = seg.switch is not None and seg.switch.kind in PER_GUEST
            self.groups.setdefault((wire.pnic, wire.vlan), []).append((seg.bridge, seg.ns, guests))
        shaped: dict[tuple[str, str, bool], list[str]] = {}     # (ns, pNIC, inbound) -> veth ends
        for (pnic_id, phys), members in self.groups.items():
            pnic, port = self.ix.get(pnic_id), self.fabric.port_of(pnic_id)
            host_ns = members[0][1]
            mtu = min(pnic.mtu, port.mtu)    # the pNIC and its port, as the cable between them
            ps_ns, ps_br = self.ps_bridge(self.ix.parent(port.id).id, phys)
            shared = len(members) > 1 or members[0][2]
            if not shared:
                top = members[0][0]
            else:
                # Several in-host domains behind one (port, VLAN), or macvtap guests: a pNIC bridge that does
                # not learn, so every frame from a member goes up and only the switch's hairpin brings it back.
                top = next((br for br, _, is_q in members if is_q), None) or self.bridge(
                    host_ns, ifname("q", pnic_id, phys), f"{pnic.name} VLAN {phys}", pnic_id)
                for br, ns, _ in members:
                    if br != top:
                        self.veth(veth_end(ns, ifname("g", pnic_id, phys, br), br),
                                  veth_end(ns, ifname("k", pnic_id, phys, br), top, isolated=True, learning=False),
                                  f"{pnic.name}: segment {br} onto the pNIC", pnic_id, mtu)
            up, down = ifname("u", pnic_id, phys), ifname("p", pnic_id, phys)
            self.veth(veth_end(host_ns, up, top, learning=not shared),
                      veth_end(ps_ns, down, ps_br, hairpin=shared and port.hairpin),
                      f"{pnic.name} VLAN {phys} to {port.name}", pnic_id, mtu)
            shaped.setdefault((host_ns, pnic_id, False), []).append(up)
            shaped.setdefault((ps_ns, pnic_id, True), []).append(down)
            if pnic_id in self.private_macs:
                macs = ", ".join(sorted(set(self.private_macs[pnic_id])))
                self.bridge_rules.setdefault(host_ns, []).append(
                    f'iifname "{up}" ether saddr {{ {macs} }} drop comment "macvtap private {pnic.name}"')
        for (ns, pnic_id, inbound), members in shaped.items():
            pnic = self.ix.get(pnic_id)
            self.shaper(ns, ifname("j" if inbound else "i", pnic_id), pnic.speed_mbps, members,
                        f"{pnic.name} {'inbound' if inbound else 'outbound'}", pnic_id)

    def trunks(self) -> None:
        """Veths between physical switches, one per VLAN the trunk carries and some switch uses."""
        trunks = []
        for link in self.d.links:
            if self.ix.kind(link.a) == "port" and self.ix.kind(link.b) == "port":
                trunks.append((self.ix.get(link.a), self.ix.get(link.b), link))
        changed = True
        while changed:
            changed = False
            for pa, pb, _ in trunks:
                for src, dst in ((pa, pb), (pb, pa)):
                    sa, sb = self.ix.parent(src.id).id, self.ix.parent(dst.id).id
                    for vlan in sorted(self.ps_used.get(sa, set())):
                        other = trunk_vlan(src, dst, vlan)
                        if other is not None and other not in self.ps_used.get(sb, set()):
                            self.ps_bridge(sb, other)
                            changed = True
        shaped: dict[tuple[str, str], list[str]] = {}      # (ns, link) -> veth ends of a trunk with a speed
        for pa, pb, link in trunks:
            sa, sb = self.ix.parent(pa.id), self.ix.parent(pb.id)
            for vlan in sorted(self.ps_used.get(sa.id, set())):
                other = trunk_vlan(pa, pb, vlan)
                if other is None:
                    continue
                ns_a, br_a = self.ps_bridge(sa.id, vlan)
                ns_b, br_b = self.ps_bridge(sb.id, other)
                ends = (ifname("t", link.id, vlan, "a"), ifname("t", link.id, vlan, "b"))
                self.veth(veth_end(ns_a, ends[0], br_a),       # no hairpin: two reflecting
                          veth_end(ns_b, ends[1], br_b),       # ends would loop frames
                          f"trunk {sa.name} {pa.name} - {sb.name} {pb.name} VLAN {vlan}", link.id,
                          min(pa.mtu, pb.mtu))
                if link.speed_mbps:
                    shaped.setdefault((ns_a, link.id), []).append(ends[0])
                    shaped.setdefault((ns_b, link.id), []).append(ends[1])
        for (ns, link_id), members in shaped.items():
            self.shaper(ns, ifname("i", link_id, ns), self.ix.get(link_id).speed_mbps, members,
                        f"trunk {link_id}", link_id)
