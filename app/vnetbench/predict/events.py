"""The walk's decisions as typed events, recorded only when a person asks about one pair; ``explain.Narrator``
words them afterwards, so a sentence can look at the event after it."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .network import Device, Point
from .result import FilterDetail

if TYPE_CHECKING:
    from .walkrecord import Leg


@dataclass(frozen=True)
class FromEndpoint:
    """A leg's sender: the flow's source itself (so a guest on a trunk portgroup chose its VLAN)."""

    point: Point


@dataclass(frozen=True)
class FromGateway:
    """A leg's sender: a gateway forwarding the packet."""


@dataclass(frozen=True)
class ToGateway:
    """A leg's receiver: the gateway at ``address`` (``first``: the sender's own gateway, else a next hop)."""

    device: Device
    point: Point
    address: ipaddress.IPv4Address | None
    first: bool


@dataclass(frozen=True)
class ToDestination:
    """A leg's receiver: the flow's destination."""

    point: Point


@dataclass(frozen=True)
class L3Choice:
    """The sender's L3 decision: the destination is ``inside`` its subnet, or it goes to the gateway."""

    src: Point
    dst: Point
    inside: bool
    gateway: ipaddress.IPv4Address | None = None   # where a packet for another subnet goes: the vNIC gateway, or
                                                   # for a router with routes, its route's next hop


@dataclass(frozen=True)
class LegWalked:
    """An L2 delivery from ``sender`` to ``receiver``, delivered or not."""

    leg: Leg
    sender: FromEndpoint | FromGateway
    receiver: ToGateway | ToDestination


@dataclass(frozen=True)
class Routed:
    """A gateway routed the packet; ``check``: how its rules judged it (None without rules); ``prefix``: the static
    route that chose the next hop."""

    device: Device
    in_point: Point
    in_seg: int
    out_point: Point
    out_seg: int
    next_hop: ipaddress.IPv4Address | None
    check: FilterDetail | None
    prefix: ipaddress.IPv4Network | None
    translated: str = ""      # the SNAT rule that rewrote the source on the way out, in words ("" for none)


@dataclass(frozen=True)
class Received:
    """The packet was addressed to the gateway itself, which receives it."""

    device: Device
    point: Point


@dataclass(frozen=True)
class DfwChecked:
    """The NSX distributed firewall judged the packet at a vNIC."""

    point: Point
    check: FilterDetail


#: One decision of the walk.
Event = L3Choice | LegWalked | Routed | Received | DfwChecked
