"""L2 delivery between two segments (a ``Leg``): the hops, pNICs, trunks, overlay tunnels and bridged firewalls on
the way, with their MTUs, capacities and latencies."""

from __future__ import annotations

from ..model.forwarding import inner_mtu, overlay_overhead
from ..model.objects import Encapsulation
from . import graph as nx  # networkx's API for the graphs Network keeps, without networkx
from . import decide
from .capacity import CapacityWalker
from .decide import IN_HOST, PHYSICAL, judges
from .kinds import EdgeKind
from .l2reasons import L2Reasons
from .result import Hop, HopKind
from .rules import Party
from .walkrecord import Leg, blocks, filtered, limit


class LegWalker(L2Reasons, CapacityWalker):
    """Walks one L2 leg over the segment graph."""

    def leg(self, a: int, b: int, src: Party, dst: Party, proto: str | None, port: int | None,
            reply: bool = False) -> Leg:
        """L2 delivery from segment ``a`` to ``b``: the shortest way over the segment graph, with what it crosses."""
        net = self.net
        sa = net.segments[a]
        code = self.l2_code(a, b)
        if a == b and code:   # (one segment: only private VLAN roles keep its ports apart)
            return Leg(True, IN_HOST, hops=[self._seg_hop(a)], segments=[sa.name], limits=self._seg_limit(a),
                       latency=self.cal.latency("switch"), path=[a])
        if code == 0 and not (sa.has_bridge and sa.domain == net.segments[b].domain):
            return Leg(False, reason=self._l2_reason(a, b))
        try:
            path = self.l2_path(a, b)
        except nx.NetworkXNoPath:
            return Leg(False, reason=self._l2_reason(a, b))
        leg = Leg(True, path=path)
        entered: dict[int, tuple[str, bool]] = {}
        for i, node in enumerate(path):
            seg = net.segments[node]
            if not seg.name.endswith("overlay"):
                leg.hops.append(self._seg_hop(node))
                leg.segments.append(seg.name)
                leg.limits += self._seg_limit(node)
                leg.latency += self.cal.latency("physical_switch" if seg.physical else "switch")
            if i + 1 == len(path):
                break
            nxt = path[i + 1]
            data = net.graph.edges[node, nxt]
            kind = data["kind"]
            if kind is EdgeKind.UPLINK:
                pnic = net.pnic[data["pnic"]]
                port_obj = net.port[data["port"]]
                pnic_hop = Hop(HopKind.PNIC, pnic.id, f"{net.host_name(net.host_of_pnic[pnic.id])}/{pnic.name}",
                               f"{pnic.speed_mbps} Mbit/s")
                port_hop = Hop(HopKind.PORT, port_obj.id, f"{net.port_switch[port_obj.id].name} {port_obj.name}",
                               "hairpin" if port_obj.hairpin else "")
                going_out = not seg.physical
                leg.hops += [pnic_hop, port_hop] if going_out else [port_hop, pnic_hop]
                limits = [limit(pnic.mtu, pnic_hop.name), limit(port_obj.mtu, net.fabric.port_label(port_obj))]
                leg.limits += limits if going_out else limits[::-1]
                leg.pnics.append(pnic.id)
                leg.capacity.append((pnic.speed_mbps * self.cal.pnic_efficiency, pnic_hop.name, None, pnic.id))
                leg.latency += self.cal.latency("pnic")
                if going_out:
                    entered[nxt] = (port_obj.id, data["hairpin"])
                elif entered.get(node) == (port_obj.id, False):
                    leg.ok = False
                    leg.reason = (f"{port_obj.name} of {net.port_switch[port_obj.id].name} would have to send the "
                                  f"frame back out of the port it came in on, and it has no hairpin")
                    return leg
            elif kind is EdgeKind.TRUNK:
                pa, pb = (net.port[p] for p in data["ports"])
                if net.port_switch[pa.id].id != seg.object_id:
                    pa, pb = pb, pa
                leg.hops += [Hop(HopKind.PORT, pa.id, f"{net.port_switch[pa.id].name} {pa.name}", "trunk"),
                             Hop(HopKind.PORT, pb.id, f"{net.port_switch[pb.id].name} {pb.name}", "trunk")]
                leg.limits += [limit(pa.mtu, net.fabric.port_label(pa)), limit(pb.mtu, net.fabric.port_label(pb))]
                if data.get("speed"):
                    leg.capacity.append((data["speed"] * self.cal.pnic_efficiency, f"trunk {pa.name}/{pb.name}", None,
                                         pa.id))
            elif kind is EdgeKind.OVERLAY:
                pnic = net.pnic[data["pnic"]]
                name = f"{net.host_name(net.host_of_pnic[pnic.id])}/{pnic.name}"
                leg.hops.append(Hop(HopKind.PNIC, pnic.id, name, "overlay transport"))
                if not seg.name.endswith("overlay"):
                    sw = net.typed(seg.object_id, "switch")
                    leg.hops.append(Hop(HopKind.OVERLAY, seg.object_id, f"{net.segments[nxt].name} tunnel",
                                        (sw.encapsulation or Encapsulation.GENEVE).label))
                else:  # arriving: the tunnel's inner limit is known once both hosts are
                    leg.limits.append(self._overlay_limit(net.segments[path[i - 1]], net.segments[nxt]))
                leg.pnics.append(pnic.id)
                leg.capacity.append((pnic.speed_mbps * self.cal.pnic_efficiency, name, None, pnic.id))
                leg.latency += self.cal.latency("pnic") + self.cal.latency("overlay")
            elif kind is EdgeKind.BRIDGE:
                bridge = net.bridges[data["bridge"]]
                vm = bridge.vm
                leg.hops.append(Hop(HopKind.FIREWALL, vm.id, vm.name, "bridged"))
                leg.limits += [limit(n.mtu, f"{vm.name}/{n.name}") for n in vm.vnics]
                leg.latency += self.cal.latency("firewall")
                leg.capacity.append((self._forwarding_capacity([str(n.type) for n in vm.vnics]), vm.name, None, vm.id))
                if not bridge.security_ok:
                    leg.blocked = True
                    leg.reason = bridge.security_problem
                    return leg
                fwd = vm.forwarding
                if fwd.stateful:
                    leg.stateful.append(vm.id)
                if not judges(True, fwd.stateful, reply):
                    leg.checks[data["bridge"]] = filtered(leg.steps, vm.id, vm.name, "bridged", None)
                    continue  # a reply passes a stateful firewall on the connection's state
                decision = self.judge(vm.id, fwd.rules, fwd.default_policy, src, dst, proto, port)
                leg.rules.append(f"{vm.name}: {decision.which}")
                leg.checks[data["bridge"]] = filtered(leg.steps, vm.id, vm.name, "bridged", decision)
                if not decision.allowed:
                    leg.blocked, leg.refused = True, decide.refuses(decision.action)
                    leg.reason = f"bridged firewall {vm.name} {blocks(decision)} it ({decision.which})"
                    return leg
        leg.code = PHYSICAL if leg.pnics else IN_HOST
        return leg

    def _seg_hop(self, seg_id: int) -> Hop:
        seg = self.net.segments[seg_id]
        if seg.physical:
            return Hop(HopKind.PHYSICAL_SWITCH, seg.object_id, seg.name)
        if seg.object_id in self.net.pnic:
            return Hop(HopKind.EMBEDDED_SWITCH, seg.object_id, seg.name, "SR-IOV, past the vSwitch")
        return Hop(HopKind.SWITCH, seg.object_id, seg.name)

    def _seg_limit(self, seg_id: int) -> list[tuple[int, str]]:
        """A virtual switch's MTU (physical switches limit at their ports; a pNIC's own switch at the pNIC)."""
        seg = self.net.segments[seg_id]
        sw = None if seg.physical else self.net.typed(seg.object_id, "switch")
        return [(sw.mtu, f"{seg.name} (switch MTU)")] if sw is not None else []

    def _overlay_limit(self, sa, sb) -> tuple[int, str]:
        """The largest guest packet an NSX tunnel between two hosts carries: the transport path's MTU (transport
        pNICs and every port between them) less the encapsulation's bytes."""
        sw = self.net.typed(sa.object_id, "switch")
        mtu, where = self.net.transport_mtu(sa.host, sb.host)
        enc = (sw.encapsulation or Encapsulation.GENEVE).label
        return inner_mtu(sw, mtu), (f"the NSX overlay of {sw.name}: the transport path takes {mtu} bytes at {where}, "
                                    f"and {enc} adds {overlay_overhead(sw)}")
