"""IPv4 and IPv6 side by side: which family an address is, an interface's addresses and gateway of one family,
and a design seen through one family (``project``).

An interface holds ``ip`` plus ``addresses`` (either family, several per family) and a gateway per family
(``gateway``, and ``gateway6`` beside an IPv4 one). Prediction answers one family at a time: ``project``
gives the design as that family sees it, each interface with its first address of the family (its first
global one: link-local addresses only name next hops), each gateway and route of the family, so the one
decision core, the walk and the matrix run unchanged on it. A design with one family projects onto itself.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from .objects import Route, Topology

Family = Literal[4, 6]
FAMILIES: tuple[Family, ...] = (4, 6)
#: Where an interface keeps its addresses and gateways.
ADDRESS_LISTS = ("ip", "addresses")
GATEWAYS = ("gateway", "gateway6")
#: A route's ``default`` per family.
DEFAULT_NETWORK = {4: "0.0.0.0/0", 6: "::/0"}
#: The minimum link MTU of IPv6 (RFC 8200 section 5): every link an IPv6 packet crosses carries 1280 bytes.
IPV6_MIN_MTU = 1280


def _packed(text: str | None) -> bytes | None:
    """The address of an address, ``address/prefix``, network or ``fe80::1%eth0`` as bytes (4 or 16; read by
    the C library: designs hold tens of thousands); None for anything else."""
    if not isinstance(text, str):
        return None
    value = text.strip().split("/", 1)[0].split("%", 1)[0]
    try:
        return socket.inet_pton(socket.AF_INET6 if ":" in value else socket.AF_INET, value)
    except (OSError, ValueError):
        return None


def family(text: str | None) -> Family | None:
    """4 or 6 for an address, ``address/prefix``, network or ``fe80::1%eth0``; None for anything else."""
    packed = _packed(text)
    return None if packed is None else 6 if len(packed) == 16 else 4


def tep_family(topology: Topology) -> Family | None:
    """The family the design's NSX tunnel endpoints speak (their first address's), None when none has one:
    the underlay keeps it whichever family the overlay's guests are predicted in."""
    return next((f for h in topology.hosts if h.tep is not None and (f := family(h.tep.ip)) is not None), None)


def other(fam: int) -> Family:
    """The other family."""
    return 6 if fam == 4 else 4


def link_local(text: str | None) -> bool:
    """Whether an address (with or without prefix or scope) is an IPv6 link-local one (fe80::/10)."""
    packed = _packed(text)
    return packed is not None and len(packed) == 16 and packed[0] == 0xFE and packed[1] & 0xC0 == 0x80


def addresses(part: Any) -> list[str]:
    """Every address of an interface (vNIC, router or DLR interface, host NIC, pNIC), ``ip`` first."""
    out = [getattr(part, "ip", None)] + list(getattr(part, "addresses", None) or [])
    return [a for a in out if isinstance(a, str) and a.strip()]


def shown(part: Any) -> list[str]:
    """An interface's addresses as pictures and tables show them: ``ip``, then its other global ones (a
    link-local address only names a next hop)."""
    return [a for i, a in enumerate(addresses(part)) if i == 0 or not link_local(a)]


def address_of(part: Any, fam: Family) -> str | None:
    """An interface's address of one family: its first global one, else its first link-local one."""
    mine = [a for a in addresses(part) if family(a) == fam]
    return next((a for a in mine if not link_local(a)), mine[0] if mine else None)


def gateway_of(part: Any, fam: Family) -> str | None:
    """An interface's gateway of one family (``gateway`` or ``gateway6``)."""
    return next((g for g in (getattr(part, n, None) for n in GATEWAYS) if family(g) == fam), None)


def route_family(route: Route) -> Family | None:
    """A route's family: its prefix's, or (``default``) its next hop's."""
    return family(route.prefix) or family(route.via)


def interfaces(topology: Topology) -> Iterator[Any]:
    """Every part of a design that holds interface addresses (not NSX tunnel endpoints: the underlay)."""
    for vm in topology.vms:
        yield from vm.vnics
    for router in topology.physical_routers:
        yield from router.interfaces
    for physical in topology.physical_hosts:
        yield from physical.nics
    for host in topology.hosts:
        yield from host.pnics
    for dlr in topology.nsx.dlrs:
        yield from dlr.interfaces


def families_in(topology: Topology) -> list[Family]:
    """The families the design's interfaces use, in order (IPv4 first); [4] for a design with no address."""
    used = {family(a) for part in interfaces(topology) for a in addresses(part)}
    return [f for f in FAMILIES if f in used] or [4]


def _route_owners(topology: Topology) -> Iterable[tuple[Any, list[Any]]]:
    """Every route table with the interfaces its routes leave by."""
    for router in topology.physical_routers:
        yield router, router.interfaces
    for dlr in topology.nsx.dlrs:
        yield dlr, dlr.interfaces
    for vm in topology.vms:
        yield vm.forwarding, vm.vnics


def _resolve_link_local(topology: Topology, gateway: str, own: str | None) -> str:
    """A link-local next hop (``fe80::1%eth0``) as the global address of the interface that holds it on
    the sender's link (the one whose subnet holds ``own``, the sender's address); unchanged when none does."""
    wanted = ipaddress.IPv6Address(gateway.split("%", 1)[0])
    mine = ipaddress.ip_interface(own).network if own and family(own) == 6 and "/" in own else None
    for part in interfaces(topology):
        if any(link_local(a) and ipaddress.IPv6Address(a.split("/", 1)[0]) == wanted for a in addresses(part)):
            there = address_of(part, 6)
            if there is not None and not link_local(there) and (
                    mine is None or ipaddress.ip_interface(there).ip in mine):
                return str(ipaddress.ip_interface(there).ip)
    return gateway


#: Fields a projection rewrites: an edit of one makes the projection anew.
PROJECTED_FIELDS = frozenset({"ip", "addresses", "gateway", "gateway6", "prefix", "via", "interface", "source",
                              "host_address", "port_forwards", "dnat"})
#: List fields whose items a copy of the design copies too (an edit that adds or removes one needs a new copy).
COPIED_LISTS = frozenset({"vms", "hosts", "switches", "physical_routers", "physical_hosts", "vnics", "pnics",
                          "interfaces", "routes", "nics", "snat", "dlrs", "rules", "forwarding", "nsx", "dfw"})


class Clone:
    """A copy of a design in which every part that holds addresses and routes (and, with ``rules``, rules
    and the switches' NAT addresses) is a copy of its own while the rest is shared: what ``project`` and the
    matrix's relabelling rewrite, without the cost of a deep copy of ten thousand VMs. ``copies`` maps each
    original part (by ``id``) to its copy, so an edit of the design can be made on the copy too."""

    def __init__(self, topology: Topology, rules: bool = True) -> None:
        self.copies: dict[int, Any] = {}
        self.rules = rules
        t = self.topology = self._one(topology)
        t.vms = [self._vm(v) for v in topology.vms]
        t.hosts = [self._with(h, "pnics") for h in topology.hosts]
        t.physical_routers = [self._with(r, "interfaces", "routes") for r in topology.physical_routers]
        t.physical_hosts = [self._with(h, "nics") for h in topology.physical_hosts]
        t.nsx = self._one(topology.nsx)
        t.nsx.dlrs = [self._with(d, "interfaces", "routes") for d in topology.nsx.dlrs]
        if rules:
            t.switches = [self._one(s) for s in topology.switches]
            t.nsx.dfw = self._with(topology.nsx.dfw, "rules")

    def _one(self, obj: Any) -> Any:
        out = object.__new__(type(obj))   # a shallow copy of a plain dataclass, several times copy.copy's speed
        out.__dict__.update(obj.__dict__)
        self.copies[id(obj)] = out
        return out

    def _with(self, obj: Any, *lists: str) -> Any:
        out = self._one(obj)
        for name in lists:
            setattr(out, name, [self._one(x) for x in getattr(obj, name)])
        return out

    def _vm(self, vm: Any) -> Any:
        out = self._with(vm, "vnics")
        out.forwarding = self._with(vm.forwarding, "routes", "snat", *(("rules",) if self.rules else ()))
        return out


def clone_addressing(topology: Topology) -> Topology:
    """``Clone(topology).topology``: a copy whose addresses, routes and rules can be rewritten."""
    return Clone(topology).topology


def project(topology: Topology, fam: Family) -> Topology:
    """The design as one family sees it (see the module's docstring); the design itself when it uses no other
    family and no extra address, so a plain IPv4 design predicts exactly as before."""
    clone = projection(topology, fam)
    return clone.topology if clone is not None else topology


def projection(topology: Topology, fam: Family) -> Clone | None:
    """``project`` as the clone it makes, which knows each part's copy (its rules are the design's own: a
    projection rewrites none); None when the design is its own projection."""
    if not any(a for part in interfaces(topology) for a in addresses(part)[1:]) and \
            not any(getattr(part, "gateway6", None) for part in interfaces(topology)) and \
            families_in(topology) == [fam]:
        return None
    clone = Clone(topology, rules=False)
    out = clone.topology
    for part in interfaces(out):
        own = address_of(part, fam)
        part.ip = own
        part.addresses = []
        if hasattr(part, "gateway"):
            gateway = gateway_of(part, fam)
            if gateway is not None and link_local(gateway):
                gateway = _resolve_link_local(topology, gateway, own)
            part.gateway, part.gateway6 = gateway, None
    for (owner, legs), (_, original) in zip(_route_owners(out), _route_owners(topology)):
        kept = [r for r in owner.routes if route_family(r) == fam]
        for route in kept:
            if route.prefix.strip().lower() == "default":
                route.prefix = DEFAULT_NETWORK[fam]
            if link_local(route.via):
                scope = route.via.partition("%")[2] or route.interface
                leg = next((p for p in original if scope in (p.id, p.name)), None)
                route.via = _resolve_link_local(topology, route.via, address_of(leg, 6) if leg else None)
        owner.routes[:] = kept
        if hasattr(owner, "snat"):
            owner.snat[:] = [s for s in owner.snat if family(s.source) == fam]
            if fam != 4:
                owner.dnat = []   # NAT translates IPv4 only
    # a hosted host's own adapter is an endpoint only in its address's family; port forwards are IPv4 NAT
    out.switches = [clone._one(sw) for sw in out.switches]
    for sw in out.switches:
        if sw.host_address and family(sw.host_address) != fam:
            sw.host_address = None
        if fam != 4:
            sw.port_forwards = []
    return clone
