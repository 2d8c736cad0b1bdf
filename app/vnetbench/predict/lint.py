"""Lint that needs the prediction: what only a design's layer-2 domains and routes reveal.

``check(topology)`` is what ``vnetbench validate`` and the Problems dock show: the model's validation
(references, VLAN notation, cabling, adapter types, gateways nobody owns, VLANs an uplink drops, the overlay's
transport MTU...) plus these lints, each with its place in the file and its fix:

- two addresses colliding in one L2 domain (validation already catches them within one segment);
- a VM whose subnet differs from the rest of its L2 domain;
- a route whose next hop is unreachable from the router;
- a router with no route back to a network another router forwards to it (``routetables``);
- a flow whose two directions pass different routers (asymmetric) when a stateful one sees only one of them,
  as a warning;
- a jumbo VM and a physical host (a NAS) in one subnet with a smaller MTU on the way (its switch port);
- tunnel endpoints that cannot reach each other, or a tunnel path that cannot carry a 1500-byte guest packet;
- overlapping SNAT rules: one that an earlier rule hides, or one translated address two NATs claim; and a DNAT
  rule that an earlier one hides (same outside address, protocol and port).
"""

from __future__ import annotations

import ipaddress
from collections import Counter

from ..model.forwarding import STANDARD_MTU
from ..model import dnat
from ..model.nat import overlaps
from ..model.nsxt import internal_addresses
from ..model.objects import Topology, VmRole
from ..model.validate import ERROR, WARNING, Problem, run_alone, validate
from . import teps
from .engine import Engine
from .kinds import ROUTING_KINDS, DeviceKind
from .network import Network, Point, parse_if
from .routetables import missing_routes_back, route_field, segments_of

#: At most this many groups of endpoints (same domain, subnet and gateway) are walked pairwise for asymmetry.
MAX_ROUTE_GROUPS = 60


def check(topology: Topology) -> list[Problem]:
    """Validation plus the prediction's lint, errors first. The lint needs a design whose references hold
    (no id used twice, none pointing at nothing or at the wrong kind): with such errors, validation's own
    report is the answer. Each check runs alone (``run_alone``): one that fails is one problem saying so,
    and the others still report."""
    structure: list[Problem] = []
    problems = validate(topology, structure)
    if not structure:
        run_alone(lambda: problems.extend(lint(topology)), problems, "the prediction's lint")  # the engine too
    return sorted(problems, key=lambda p: p.severity != ERROR)


def lint(topology: Topology) -> list[Problem]:
    """The prediction's warnings about a design: colliding addresses, odd subnets, next hops, asymmetry, jumbo frames."""
    return _Linter(Engine(topology)).run()


class _Linter:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.net: Network = engine.network
        self.problems: list[Problem] = []

    def run(self) -> list[Problem]:
        points = [p for pts in self.net.points.values() for p in pts if p.segment is not None and p.iface]
        points += [p for d in self.net.devices if d.kind is DeviceKind.ROUTER for p in d.points
                   if p.segment is not None and p.iface]
        for what, lint_check in (("addresses colliding", lambda: self.collisions(points)),
                                 ("subnets in a layer-2 domain", lambda: self.subnets(points)),
                                 ("route next hops", self.next_hops), ("routes back", self.routes_back),
                                 ("asymmetric paths", self.asymmetry),
                                 ("jumbo packets", self.jumbo), ("tunnel endpoints", self.tunnel_endpoints),
                                 ("overlapping NAT rules", self.nat_overlaps)):
            run_alone(lint_check, self.problems, f"the lint of {what}")
        return self.problems

    def tunnel_endpoints(self) -> None:
        """Transport nodes whose tunnel endpoints cannot reach each other, or whose tunnel path cannot carry a
        standard guest packet (``teps.lint``)."""
        for host_id, field, message, hint in teps.lint(self.net):
            self.add(WARNING, host_id, field, message, hint)

    def nat_overlaps(self) -> None:
        """NAT rules that overlap (``model.nat.overlaps``, ``model.dnat.overlaps``): a rule another hides, or one
        address two SNATs claim."""
        vms = {vm.id: i for i, vm in enumerate(self.net.topology.vms)}
        for vm_a, a, vm_b, b, why in overlaps(self.net.topology):
            label = f"{vm_b.name}'s SNAT rule {b.rule.name or b.index + 1}"
            other = f"{vm_a.name}'s rule {a.rule.name or a.index + 1}"
            self.problems.append(Problem(WARNING, f"vms[{vms[vm_b.id]}].forwarding.snat[{b.index}]", vm_b.id,
                                         f"{label} overlaps {other}: {why}",
                                         "give each rule its own sources and each NAT its own translated address"))
        for vm, first, later, why in dnat.overlaps(self.net.topology):
            self.problems.append(Problem(WARNING, f"vms[{vms[vm.id]}].forwarding.dnat[{later.index}]", vm.id,
                                         f"{vm.name}'s {later.label().removeprefix('its ')} overlaps its "
                                         f"{first.label().removeprefix('its ')}: {why}",
                                         "give each DNAT rule its own outside address or port"))

    def add(self, severity: str, point_or_id: Point | str, field: str, message: str, hint: str) -> None:
        obj_id = point_or_id.nic if isinstance(point_or_id, Point) else point_or_id
        entry = self.net.index.entries.get(obj_id)
        path = f"{entry.path}.{field}" if entry is not None and field else (entry.path if entry else "")
        self.problems.append(Problem(severity, path, obj_id, message, hint))

    def domain(self, point: Point) -> int:
        return self.net.segment_of(point).domain

    def collisions(self, points: list[Point]) -> None:
        seen: dict[tuple[int, ipaddress.IPv4Address | None], Point] = {}
        for p in points:
            first = seen.setdefault((self.domain(p), p.ip), p)
            if first is not p and first.segment != p.segment:  # one segment: validation says so already
                self.add(ERROR, p, "ip", f"{p.name} has the address {p.ip}, which {first.name} has too, in the "
                         f"same layer-2 domain ({self.net.segment_of(first).name} and "
                         f"{self.net.segment_of(p).name} are joined)",
                         "give each interface in a layer-2 domain its own address")

    def subnets(self, points: list[Point]) -> None:
        by_domain: dict[int, list[Point]] = {}
        for p in points:
            by_domain.setdefault(self.domain(p), []).append(p)
        for members in by_domain.values():
            counts = Counter(p.subnet for p in members)
            if len(counts) < 2:
                continue
            (usual, n), (_, runner_up) = counts.most_common(2)
            if n == runner_up:
                continue  # no clear majority: several subnets on one VLAN may be on purpose
            for p in members:
                if p.subnet != usual and self.net.typed(p.owner, "vm") is not None:
                    self.add(WARNING, p, "ip", f"{p.name} is in {p.subnet}, but the rest of its layer-2 "
                             f"domain ({self.net.segment_of(p).name}) is in {usual}, so it reaches them only "
                             f"through a router", f"give it an address in {usual}, or move it to the VLAN of "
                             f"{p.subnet}")

    def next_hops(self) -> None:
        """A router's route must point at an address it reaches on one of its own networks. A router VM's
        one route is its vNIC gateway: a gateway nothing owns (an upstream router not drawn yet, a normal
        sketch) is validation's to report; one that is owned but out of reach is reported on the vNIC."""
        for device in self.net.devices:
            if device.kind not in ROUTING_KINDS:
                continue
            router = self.net.typed(device.id, "physical_router")
            static = len(device.routes) - (router is None and any(p.gateway for p in device.points))
            for k, (prefix, via) in enumerate(device.routes):
                if k >= static and device.kind is not DeviceKind.ROUTER:
                    continue  # a firewall's or edge's vNIC gateway: validation's (as before routes)
                out = next((p for p in device.points if p.iface is not None and via in p.iface.network), None)
                owners = self.net.by_address.get(via, []) + [
                    (None, p) for pts in self.net.points.values() for p in pts if p.ip == via]
                reached = out is not None and any(
                    self.engine.walker.l2_code(a, b) for a in segments_of(self.net, device, out)
                    for owner, p in owners for b in segments_of(self.net, owner, p))
                if reached:
                    continue
                where: Point | str
                if k < static:
                    where, field = device.id, f"{route_field(self.net, device)}[{k}].via"
                else:
                    nic = next((p for p in device.points if p.gateway == via), None)
                    if nic is None or not owners:
                        continue
                    where, field = nic, "gateway"
                if out is None:
                    why = f"none of {device.name}'s interfaces is in {via}'s subnet"
                elif not owners:
                    why = f"nothing in the design has the address {via}"
                else:
                    why = f"{via} ({owners[0][1].name}) is not in {out.name}'s layer-2 domain"
                self.add(WARNING, where, field, f"{device.name}'s route to {prefix} points at "
                         f"{via}, which it cannot reach: {why}", f"point the route at a router {device.name} "
                         "reaches directly, or cable and address that next hop")

    def routes_back(self) -> None:
        """A router that another router forwards to must route the networks that traffic comes from, or
        their replies are lost (the classic DLR/ESG mistake: the DLR's default route points at the edge,
        but the edge has no route to the DLR's networks)."""
        internal = {iface.network for text in internal_addresses(self.net.topology) if (iface := parse_if(text))}
        for miss in missing_routes_back(self.net, self.engine.walker):
            if miss.network in internal:
                continue
            back, device = miss.back, miss.device
            fix = f" via {miss.via}" if miss.via is not None else ""
            self.add(WARNING, back.id, route_field(self.net, back),
                     f"{back.name} has no route back to {miss.network}: {device.name} forwards traffic from there "
                     f"to {back.name} ({device.name}'s {miss.why.removeprefix('its ')}), and {back.name} cannot "
                     "send the replies", f"add a route on {back.name} to {miss.network}{fix}")

    def asymmetry(self) -> None:
        """Pairs whose request and reply pass different routers: one per group of endpoints that sit alike."""
        groups: dict[tuple, str] = {}
        for vm in self.net.topology.vms:
            if vm.role is not VmRole.VM:
                continue
            key = tuple((self.domain(p), p.iface.network, p.gateway) for p in self.net.points[vm.id]
                        if p.segment is not None and p.iface is not None)
            if key:
                groups.setdefault(key, vm.id)
        reps = list(groups.values())[:MAX_ROUTE_GROUPS]
        walker, reported = self.engine.walker, set()
        stateful = {d.name for d in self.net.devices if d.stateful}
        for i, a in enumerate(reps):
            for b in reps[i + 1:]:
                p = walker.flow(a, b, "udp", None)
                there, home = p.forward.routed_by, p.reverse.routed_by
                if not (p.forward.verdict.delivered and p.reverse.verdict.delivered) or \
                        not (set(there) ^ set(home)) & stateful:   # only a stateful device seeing one side drops
                    continue
                if (there, home) in reported:
                    continue
                reported.add((there, home))
                name_a, name_b = self.net.name_of(a), self.net.name_of(b)
                self.add(WARNING, a, "", f"traffic from {name_a} to {name_b} passes {', '.join(there) or 'no router'}"
                         f", but the reply passes {', '.join(home) or 'no router'}: an asymmetric path, which a "
                         "stateful firewall on one side drops", f"give {name_a} and {name_b} gateways that route "
                         "both ways through the same routers")

    def jumbo(self) -> None:
        """The classic storage mistake: a VM with jumbo frames and a physical host (a NAS) in one subnet, with a
        smaller MTU on the layer-2 path between them, often the host's switch port. No router is in between to
        answer "too big" (RFC 1191), so the larger packets vanish."""
        hosts = [(ph.id, p) for ph in self.net.topology.physical_hosts for p in self.net.points.get(ph.id, ())
                 if p.segment is not None and p.iface is not None]
        walker = self.engine.walker
        for vm in self.net.topology.vms:
            for nic in self.net.points.get(vm.id, ()):
                if nic.segment is None or nic.iface is None or nic.mtu is None or nic.mtu <= STANDARD_MTU:
                    continue
                for host_id, host in hosts:
                    if host.subnet != nic.iface.network or self.domain(host) != self.domain(nic):
                        continue
                    mtu, at = walker.flow(vm.id, host_id, "icmp", None).mtu
                    if mtu is not None and mtu < nic.mtu:
                        at = at.removesuffix(f" (MTU {mtu})")
                        self.add(WARNING, nic, "mtu", f"{nic.name} sends jumbo packets of up to {nic.mtu} bytes to "
                                 f"{self.net.name_of(host_id)} in its own subnet {nic.iface.network}, but only {mtu} "
                                 f"get through {at}: with no router in between to say the packet is too big, "
                                 "larger ones vanish", f"give the whole path one MTU: raise {at} to "
                                 f"{nic.mtu}, or lower {nic.name}'s MTU to {mtu}")
                        break
