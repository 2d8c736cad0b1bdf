"""Tunnel endpoints over the physical network (SEMANTICS.md section 9): whether two transport nodes' TEPs reach
each other, switched in one transport VLAN or routed by the physical routers between per-rack TEP subnets, the
way they take and the smallest MTU on it, and the lint of both.

The overlay joins two hosts' instances of a segment only where their TEPs reach each other both ways
(``Network._overlays`` asks ``groups``). A router forwards tunnel packets by its one longest-prefix table
(``decide.RouteTable``), as it forwards any packet. A host without a TEP address (``Host.tep``) meets the others
at L2 only, as before routed transports were drawn.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model.forwarding import STANDARD_MTU, inner_mtu, overlay_overhead
from ..model.objects import SwitchKind
from . import decide, graph
from .kinds import DeviceKind, EdgeKind

if TYPE_CHECKING:
    from .network import Device, Iface, Network, Point

#: A tunnel packet routed by more routers than this is in a routing loop.
MAX_HOPS = 16


@dataclass
class TepPath:
    """The way from one tunnel endpoint to another: its L2 legs (segment paths) and the routers between them,
    with the interfaces they take it in and send it out of; ``problem`` says where it breaks ("" when whole)."""

    legs: list[list[int]] = field(default_factory=list)
    routers: list[Device] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    problem: str = ""

    @property
    def ok(self) -> bool:
        """Whether the tunnel endpoints reach each other (else ``problem`` says where it breaks)."""
        return not self.problem


def address(net: Network, host_id: str | None) -> Iface | None:
    """A transport node's TEP address, when the design gives one."""
    from .network import parse_if

    host = net.typed(host_id, "host")
    return parse_if(host.tep.ip) if host is not None and host.tep is not None else None


def _gateway(net: Network, host_id: str) -> ipaddress.IPv4Address | None:
    from .network import parse_addr

    host = net.typed(host_id, "host")
    return parse_addr(host.tep.gateway) if host is not None and host.tep is not None else None


def _l2(net: Network, a: int, b: int) -> list[int] | None:
    try:
        return graph.shortest_path(net.graph, a, b)
    except (graph.NetworkXNoPath, graph.NodeNotFound):
        return None


def tep_path(net: Network, host_a: str, host_b: str) -> TepPath:
    """How host_a's tunnel endpoint reaches host_b's: at L2 in one subnet (or where neither has an address),
    else to its gateway and from router to router by their route tables."""
    sa, sb = net.tep_segment(host_a), net.tep_segment(host_b)
    name_a, name_b = net.host_name(host_a), net.host_name(host_b)
    if sa is None or sb is None:
        return TepPath(problem=f"{name_a if sa is None else name_b} has no tunnel endpoint")
    ia, ib = address(net, host_a), address(net, host_b)
    if ia is None or ib is None or ib.ip in ia.network:
        leg = _l2(net, sa, sb)
        if leg is None:
            return TepPath(problem=f"no L2 path joins {net.segments[sa].name} and {net.segments[sb].name}")
        return TepPath([leg])
    out = TepPath()
    via = _gateway(net, host_a)
    if via is None:
        out.problem = (f"{name_a}'s tunnel endpoint {ia} has no gateway, and {name_b}'s endpoint {ib.ip} is in "
                       f"another subnet")
        return out
    at_seg, at_name = sa, f"{name_a}'s tunnel endpoint"
    for _ in range(MAX_HOPS):
        found = None
        for device, point in net.by_address.get(via, []):
            if device.kind is DeviceKind.ROUTER and point.segment is not None:
                leg = _l2(net, at_seg, point.segment)
                if leg is not None:
                    found = device, point, leg
                    break
        if found is None:
            out.problem = f"{at_name} does not reach its next hop {via} (no router owns it in reach at L2)"
            return out
        device, point, leg = found
        out.legs.append(leg)
        out.routers.append(device)
        out.points.append(point)
        table = decide.RouteTable([p.iface.network if p.iface is not None else None for p in device.points],
                                  device.routes, device.route_out, device.route_keys)
        itf, route = table.lookup(int(ib.ip), lambda i: device.points[i].iface is not None
                                  and device.points[i].segment is not None)
        if itf < 0:
            out.problem = f"{device.name} has no route to {name_b}'s tunnel endpoint {ib.ip}"
            return out
        leaving = device.points[itf]
        assert leaving.segment is not None   # (only interfaces on a segment are usable above)
        out.points.append(leaving)
        if route < 0:
            leg = _l2(net, leaving.segment, sb)
            if leg is None:
                out.problem = (f"{leaving.name} is in {ib.network}, but {name_b}'s tunnel endpoint is not in "
                               f"reach at L2 from it")
                return out
            out.legs.append(leg)
            return out
        at_seg, at_name, via = leaving.segment, device.name, device.routes[route][1]
    out.problem = f"the tunnel packets pass more than {MAX_HOPS} routers (a routing loop)"
    return out


def routed_problem(net: Network, host_a: str, host_b: str) -> str | None:
    """Where the tunnel between two hosts whose endpoints sit in different subnets breaks ("" when it holds
    both ways); None when they meet at L2 (the L2 words say why not)."""
    ia, ib = address(net, host_a), address(net, host_b)
    if ia is None or ib is None or ib.ip in ia.network:
        return None
    for x, y in ((host_a, host_b), (host_b, host_a)):
        path = tep_path(net, x, y)
        if not path.ok:
            return f"from {net.host_name(x)} to {net.host_name(y)}, {path.problem}"
    return ""


def groups(net: Network, hosts: list[str]) -> dict[str, int]:
    """The overlay groups of these transport nodes: hosts whose tunnel endpoints reach each other both ways
    (hosts alike in L2 domain, TEP subnet and gateway are answered once)."""
    component: dict[int, int] = {}
    keys: dict[str, tuple] = {}
    for host in hosts:
        tep = net.tep_segment(host)
        assert tep is not None   # (the caller passes hosts with a working endpoint)
        if tep not in component:
            nodes = graph.node_connected_component(net.graph, tep)
            first = min(nodes)
            component.update((n, first) for n in nodes)
        itf = address(net, host)
        keys[host] = (component[tep], itf.network if itf else None, _gateway(net, host))
    reps = {k: h for h, k in reversed(list(keys.items()))}
    parent = {k: k for k in reps}

    def root(k: tuple) -> tuple:
        while parent[k] != k:
            k = parent[k]
        return k
    order = list(reps)
    for i, k1 in enumerate(order):
        for k2 in order[i + 1:]:
            if root(k1) == root(k2):
                continue
            (c1, n1, _), (c2, n2, _) = k1, k2
            if n1 is None or n2 is None or n1 == n2:   # they meet at L2 or not at all: one L2 domain decides
                if c1 == c2:
                    parent[root(k2)] = root(k1)
                continue
            a, b = reps[k1], reps[k2]
            if tep_path(net, a, b).ok and tep_path(net, b, a).ok:
                parent[root(k2)] = root(k1)
    labels: dict[tuple, int] = {}
    return {h: labels.setdefault(root(k), len(labels)) for h, k in keys.items()}


def path_mtu(net: Network, path: TepPath) -> tuple[int, str]:
    """The largest packet a tunnel path carries (its pNICs, every port and router interface on the way), and
    where it is smallest."""
    limits: list[tuple[int, str]] = []
    for leg in path.legs:
        for x, y in zip(leg, leg[1:]):
            data = net.graph.edges[x, y]
            if data["kind"] is EdgeKind.UPLINK:
                port = net.port[data["port"]]
                limits += [(net.pnic[data["pnic"]].mtu, net.fabric.pnic_label(data["pnic"])),
                           (port.mtu, net.fabric.port_label(port))]
            elif data["kind"] is EdgeKind.TRUNK:
                limits += [(net.port[p].mtu, net.fabric.port_label(net.port[p])) for p in data["ports"]]
    limits += [(p.mtu, p.mtu_at or p.name) for p in path.points if p.mtu is not None]
    return min(limits, key=lambda m: m[0]) if limits else (STANDARD_MTU, "")


def routed_clause(net: Network, host_a: str | None, host_b: str | None) -> str:
    """`` (the tunnel from A's endpoint to B's is routed by R)`` where a routed transport carries it, else ""."""
    if host_a is None or host_b is None:
        return ""
    ia, ib = address(net, host_a), address(net, host_b)
    if ia is None or ib is None or ib.ip in ia.network:   # met at L2: nothing routes the tunnel
        return ""
    path = tep_path(net, host_a, host_b)
    if not path.ok or not path.routers:
        return ""
    names = " and ".join(dict.fromkeys(d.name for d in path.routers))
    return f" (the tunnel from {net.host_name(host_a)}'s endpoint {ia.ip} to {ib.ip} is routed by {names})"


def _first_hops(net: Network, *hosts: str) -> set[str]:
    """The transport pNICs of these hosts and their switch ports: validation already warns of a small MTU there
    (``check_transport_mtu``)."""
    out: set[str] = set()
    for host in hosts:
        wire = net.transports[host]
        if wire.pnic is not None and wire.port is not None:
            out |= {net.fabric.pnic_label(wire.pnic), net.fabric.port_label(wire.port)}
    return out


def lint(net: Network) -> list[tuple[str, str, str, str]]:
    """(host id, field, message, hint) for every pair of transport nodes sharing an NSX segment whose tunnel
    endpoints cannot reach each other, or whose tunnel path cannot carry a standard guest packet."""
    out: list[tuple[str, str, str, str]] = []
    seen: set[tuple[str, ...]] = set()
    for sw in net.topology.switches:
        if sw.kind is not SwitchKind.NSX_SEGMENT:
            continue
        hosts = [h for h in dict.fromkeys(sw.members) if net.tep_segment(h) is not None
                 and net.transports[h].pnic is not None]
        for i, a in enumerate(hosts):
            for b in hosts[i + 1:]:
                for x, y in ((a, b), (b, a)):
                    path = tep_path(net, x, y)
                    if not path.ok and (x, y) not in seen:
                        seen.add((x, y))
                        out.append((x, "tep", f"the tunnel endpoints of {net.host_name(x)} and "
                                    f"{net.host_name(y)} cannot reach each other: {path.problem}, so NSX segments "
                                    f"({sw.name}) do not join them", "carry the transport VLAN between them, or give "
                                    "each endpoint a gateway and the routers routes to the other endpoints' subnets"))
                    elif path.ok and (x, y, "mtu") not in seen:
                        seen.add((x, y, "mtu"))
                        mtu, where = path_mtu(net, path)
                        if inner_mtu(sw, mtu) < STANDARD_MTU and where not in _first_hops(net, x, y):
                            need = STANDARD_MTU + overlay_overhead(sw)
                            out.append((x, "tep", f"the tunnel path from {net.host_name(x)} to {net.host_name(y)} "
                                        f"takes packets of at most {mtu} bytes ({where}), and "
                                        f"{sw.encapsulation or 'geneve'} adds {overlay_overhead(sw)}, so it cannot "
                                        f"carry a {STANDARD_MTU}-byte guest packet",
                                        f"raise the MTU of every pNIC, port and router interface on the way to {need}"
                                        " or more (1600 is usual)"))
    return out
