"""Destination NAT in the walk and the matrix (SEMANTICS.md section 9): a flow to an endpoint that a router or
edge VM publishes (``model.dnat``) goes to the rule's outside address and port; that VM translates the
destination to the inside address and routes it on; replies come back through the translation (the walk
mirrors them, as for SNAT).

The walk tries the direct way first; the published ways only when it does not deliver, so a sender that
reaches the inside address itself is not sent round through the NAT."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from ..model.dnat import DnatRule, dnat_rules, forwards, port_forwards
from ..model.objects import Proto
from .kinds import DeviceKind
from .network import Device, Network, Point
from .result import Hop, HopKind
from .rules import Party
from .walkrecord import Walk


@dataclass
class Via:
    """A walk's way to its destination through one DNAT rule: the VM that holds it, its outside point, the
    destination as rules see it once translated, and the flow's port inside (``done`` once translated)."""

    device: str
    point: Point
    rule: DnatRule
    party: Party
    port: int | None
    done: bool = False

    @property
    def outside_port(self) -> int | None:
        """The port the sender connects to."""
        return self.rule.rule.port if self.rule.rule.port is not None else self.port


def _by_inside(net: Network) -> dict[ipaddress.IPv4Address, list[tuple[str, Point, DnatRule]]]:
    """Every DNAT rule and port forward of the design whose outside address the compiled network holds, by the
    inside address it translates to: (the VM or NAT service that translates, its outside point, the rule).
    Worked out once per compiled network (a failed walk asks for every destination)."""
    found = net.memo.get("dnat")
    if found is None:
        found = net.memo["dnat"] = {}
        for vm in net.topology.vms:
            for rule in dnat_rules(vm):
                point = next((p for p in net.points.get(vm.id, []) if p.ip == rule.address and p.segment is not None),
                             None)
                if point is not None:
                    found.setdefault(rule.to, []).append((vm.id, point, rule))
        for device in net.devices:
            sw = net.typed(device.id, "switch") if device.kind is DeviceKind.NAT else None
            outside = device.points[1] if sw is not None and len(device.points) > 1 else None
            if sw is not None and outside is not None and outside.ip is not None and outside.segment is not None:
                for rule in port_forwards(sw, outside.ip):
                    found.setdefault(rule.to, []).append((device.id, outside, rule))
    return found


def published(net: Network, points: Iterable[Point]) -> bool:
    """Whether some DNAT rule or port forward of the design translates to one of these interfaces: the matrix
    walks such an endpoint pair by pair (its replies return through the translation)."""
    inside = _by_inside(net)
    return bool(inside) and any(p.ip in inside for p in points if p.ip is not None)


def holds(net: Network, eid: str) -> bool:
    """Whether the endpoint is a VM with DNAT rules: a flow to an address they forward on does not reach it
    there (``taken``), so the matrix walks it pair by pair."""
    vm = net.typed(eid, "vm")
    return vm is not None and bool(dnat_rules(vm))


def ways(net: Network, dst_point: Point, party: Party, port: int | None) -> list[Via]:
    """The DNAT ways to ``dst_point``: each rule and port forward translating to its address."""
    if dst_point.ip is None:
        return []
    return [Via(owner, point, rule, party, port) for owner, point, rule in _by_inside(net).get(dst_point.ip, [])]


def taken(net: Network, point: Point, proto: str | None, port: int | None) -> bool:
    """Whether a DNAT rule of the interface's own VM forwards a flow of ``proto`` to ``port`` at its address
    elsewhere, so the VM itself is not reached there."""
    vm = net.typed(point.owner, "vm")
    if vm is None or not vm.forwarding.dnat or point.ip is None:
        return False
    return any(r.address == point.ip and (r.rule.proto is Proto.ANY or str(r.rule.proto) == proto)
               and (r.rule.port is None or r.rule.port == port) for r in dnat_rules(vm))


def enter(walk: Walk, device: Device, proto: str | None) -> tuple[ipaddress.IPv4Address, Party, int | None] | None:
    """The VM holding ``walk.via`` receives the packet at its outside address: the new destination (address,
    party, port) when its rule forwards the flow, else None with the reason."""
    via = walk.via
    assert via is not None
    if not forwards(via.rule, proto, via.port):
        what = f"{proto} port {via.port}" if proto and via.port else (proto or "a flow without a protocol")
        walk.reasons.append(f"{device.name}'s {via.rule.label().removeprefix('its ')} forwards only "
                            f"{via.rule.what()} there, not {what}")
        return None
    via.done = True
    walk.nat = True
    walk.hops.append(Hop(HopKind.NAT, device.id, device.name, f"translates the destination to {via.rule.to}"))
    return via.rule.to, via.party, via.port


def words(walk: Walk, device: Device) -> str:
    """The translation ``device`` made on this hop, in words ("" when it made none)."""
    via = walk.via
    if via is None or not via.done or via.device != device.id:
        return ""
    return via.rule.describe(device.name, via.port)
