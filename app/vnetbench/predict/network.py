"""Compile a design into what the walk needs: segments, the L2 graph, endpoints and L3 devices.

SEMANTICS.md section 2 and 3. A *segment* is one broadcast domain inside one switching instance (or, for the
physical network, one VLAN on one physical switch). Segments are joined by edges: uplinks (a pNIC into a
switch port), inter-switch trunks, NSX overlay tunnels, bridged firewall VMs, SR-IOV embedded switches and
explicit KVM patches. Which segment a vNIC joins, which uplink and port carry it and which VLANs a cable
extends are the forwarding facts of ``model.forwarding``; this module only assembles them into a graph.
Everything here is computed once per topology state; ``walk`` then only looks things up.

Reachability at L2 is decided from three precomputed labels per segment, so the single-pair walk and the
vectorised matrix agree by construction:

- ``local``: the in-host group (segments joined without crossing a pNIC: bridged firewalls, patches, an SR-IOV
  NIC's embedded switch);
- ``domain``: the L2 domain (groups joined through pNICs, the physical network, overlays);
- ``attachment``: the one (port, VLAN) a group reaches the physical network through, when it has exactly
  one and that port does not reflect frames (no hairpin). Two groups behind the same such attachment would
  need a u-turn on the port, which a switch refuses.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from dataclasses import dataclass, field, replace
from typing import Any, cast

from ..model.index import Index
from ..model.objects import (
    VM, Action, ForwardMode, PhysicalRouter, PhysicalSwitch, Port, Pvlan, Route, Rule, SwitchKind, Topology, VmRole,
)
from ..model.families import project, tep_family
from ..model.forwarding import (
    BYPASS_TYPES, LEAF_SWITCHES, RUN_TIME_UPLINK, TAGGING_SWITCHES, Fabric, SegmentKey, Switching, UplinkChoice, UplinkChooser,
    Wire, ingress, ingress_problem, pvlan_entry, pvlan_label, pvlan_segment_entry, pvlan_vlans, pvlan_wire_vlans,
    reflection_reaches_guests, returns_through, shares_embedded_switch, trunk_vlan,
)
from ..model.hostos import endpoint_hosts
from ..model.routing import route_prefix
from . import graph, hostos, teps
from .kinds import IN_HOST_EDGES, DeviceKind, EdgeKind



@dataclass(frozen=True)
class Iface:
    """An IPv4 address with its network (what ``ipaddress.IPv4Interface`` holds, built for a fraction of its
    cost: designs have thousands of addresses but few networks)."""

    ip: ipaddress.IPv4Address
    network: ipaddress.IPv4Network
    subnet_key: tuple[int, int, int]     # (version, first address, prefix length): the network as plain numbers

    def __str__(self) -> str:
        """``address/prefix``, worded once (the walk names an interface on every hop it routes)."""
        text = self.__dict__.get("_text")
        if text is None:
            text = f"{self.ip}/{self.network.prefixlen}"
            object.__setattr__(self, "_text", text)
        return text


_NETWORKS: dict[tuple[int, int, int], Any] = {}
#: Address width and classes per family (a design projected onto IPv6 holds IPv6 addresses: ``model.families``).
_FAMILY: dict[int, tuple[int, Any, Any]] = {4: (32, ipaddress.IPv4Address, ipaddress.IPv4Network), 6: (128, ipaddress.IPv6Address, ipaddress.IPv6Network)}


def make_iface(value: int, prefix: int, version: int = 4) -> Iface:
    """An interface from an address as a number and a prefix length, shared between equal ones (big designs hold many)."""
    bits, address, network_class = _FAMILY[version]
    full = (1 << bits) - 1
    mask = (full << (bits - prefix)) & full
    key = (value & mask, prefix, version)
    network = _NETWORKS.get(key)
    if network is None:
        network = _NETWORKS[key] = network_class(key[:2])
    return Iface(address(value), network, (version, *key[:2]))


@dataclass
class Segment:
    """One broadcast domain. ``host`` is None for physical segments."""

    id: int
    name: str
    host: str | None
    physical: bool
    object_id: str                 # the switch (virtual) or physical switch it lives in (a host: its tunnel endpoint)
    vlan: int | None = None
    local: int = -1                # in-host group id
    domain: int = -1               # L2 domain id
    attachment: int = -1           # the lone non-reflecting (port, VLAN) attachment of its group, or -1
    alternate: int = -1            # a second one its vNICs may be on (an uplink the platform chooses), or -1
    has_bridge: bool = False       # its domain holds a bridged firewall VM (the matrix walks such pairs)
    pvlan: int = -1                # its ports' private VLAN role (``forwarding.pvlan_label``), -1 outside one
    pvlan_col: int = -1            # the column of ``hears`` for the VLAN its ports send on (``Network.pvlan_cols``)
    hears: tuple[int, ...] = ()    # per private VLAN column: the L2 domain its host's switch takes that VLAN from
    problems: list[str] = field(default_factory=list)   # why frames from here do not reach the wire


@dataclass
class Point:
    """Where an interface sits: a segment plus its IPv4 address (vNIC, host NIC, router interface...)."""

    segment: int | None
    iface: Iface | None
    gateway: ipaddress.IPv4Address | None
    owner: str                      # VM, physical host, router or DLR id
    nic: str                        # the vNIC / host NIC / interface id
    name: str                       # "web1/eth0"
    nic_type: str | None = None     # vNIC type (estimates)
    portgroup: str | None = None
    problem: str | None = None      # why this interface has no segment
    mtu: int | None = None          # the largest packet the interface takes (None: its port decides)
    mtu_at: str = ""                # where that limit sits, when not the interface itself (its switch port)
    variants: tuple[int, ...] = ()  # its segment through each uplink teaming may put it on (``Network._teams``)
    choice: UplinkChoice | None = None   # those uplinks and who chooses among them
    ip: ipaddress.IPv4Address | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.ip = self.iface.ip if self.iface is not None else None

    @property
    def subnet(self) -> ipaddress.IPv4Network:
        """The subnet of an interface with an address; asking a point without one is a bug (ValueError)."""
        if self.iface is None:
            raise ValueError(f"{self.name} has no IPv4 address")
        return self.iface.network


@dataclass
class Device:
    """Something that routes: a physical router / L3 switch, a routed VM, an NSX DLR, a hosted NAT service."""

    id: str
    name: str
    kind: DeviceKind
    points: list[Point] = field(default_factory=list)
    routes: list[tuple[ipaddress.IPv4Network, ipaddress.IPv4Address]] = field(default_factory=list)
    route_out: list[int | None] = field(default_factory=list)   # per route: the point it must leave by, if named
    route_keys: list[tuple[int, int]] = field(default_factory=list)   # per route: (first address, prefix length)
    rules: list[Rule] = field(default_factory=list)
    default_policy: Action = Action.ALLOW
    stateful: bool = False
    host: str | None = None
    nic_types: tuple[str, ...] = ()


@dataclass
class Bridge:
    """A bridged firewall VM joining two segments at L2."""

    vm: VM
    a: int
    b: int
    security_ok: bool
    security_problem: str


@dataclass(frozen=True)
class _Placed:
    """Where a vNIC sits (``Network._place``): its portgroup, the segment (or why none), the segments of each
    uplink teaming may put it on, and who chooses among them; ``guest``: the vNIC alone in its segment."""

    portgroup: str | None
    problem: str | None = None
    segment: int | None = None
    variants: tuple[int, ...] = ()
    choice: UplinkChoice | None = None
    guest: str | None = None


def _placing(vm: VM, nic: Any) -> tuple | None:
    """What ``Fabric.place`` and the uplink choice read of a VM and its vNIC, but its names and id: vNICs alike
    in it sit alike. None for a vNIC with VLAN-filtering bridge VLANs of its own (placed alone)."""
    if nic.bridge_vlans is not None:
        return None
    bypass = nic.type if nic.type in BYPASS_TYPES else None   # (placing reads no other adapter type)
    return (vm.host, nic.network, nic.connected, bypass, nic.guest_vlan, nic.physical_function, nic.uplink)


def _quad(text: str) -> int | None:
    """A dotted quad as an int (strictly four decimal octets), else None."""
    try:
        return int.from_bytes(socket.inet_pton(socket.AF_INET, text), "big")
    except (OSError, ValueError):
        return None


def _hextets(text: str) -> int | None:
    """An IPv6 address (its ``%scope`` dropped) as an int, else None."""
    try:
        return int.from_bytes(socket.inet_pton(socket.AF_INET6, text.split("%", 1)[0]), "big")
    except (OSError, ValueError):
        return None


#: Parsed addresses are remembered: an edit that moves a thousand VMs parses their unchanged addresses again.
_PARSED = 1 << 17


@functools.lru_cache(maxsize=_PARSED)
def parse_if(text: str | None) -> Iface | None:
    """``address/prefix`` (prefix 32, or 128, when absent); None when it is not an IPv4 or IPv6 interface."""
    if not text:
        return None
    addr, _, prefix = text.strip().partition("/")
    if ":" in addr:
        value = _hextets(addr)
        if value is not None and (not prefix or (prefix.isdigit() and int(prefix) <= 128)):
            return make_iface(value, int(prefix or 128), 6)
        return None
    value = _quad(addr)
    mask = _quad(prefix) if "." in prefix else None
    if mask is not None:  # a dotted netmask (255.255.255.0) must be contiguous ones
        ones = bin(mask).count("1")
        prefix = str(ones) if mask == (0xFFFFFFFF << (32 - ones)) & 0xFFFFFFFF else "x"
    if value is not None and (not prefix or (prefix.isdigit() and int(prefix) <= 32)):
        return make_iface(value, int(prefix or 32))
    return None


@functools.lru_cache(maxsize=_PARSED)
def route_entry(text: str) -> tuple[ipaddress.IPv4Network, tuple[int, int]] | None:
    """A route's prefix as prediction takes it (``route_prefix``; host bits allowed; IPv6 in a projection)
    with its key (first address, prefix length), parsed once per text: routers in a large design repeat the
    same prefixes thousands of times, and are then compiled and tabled without reading an address object
    per route."""
    network = cast("ipaddress.IPv4Network | None", route_prefix(text, strict=False))
    return None if network is None else (network, (int(network.network_address), network.prefixlen))


@functools.lru_cache(maxsize=_PARSED)
def parse_addr(text: str | None) -> ipaddress.IPv4Address | None:
    """The address of ``a.b.c.d`` or ``a.b.c.d/len`` (or an IPv6 one); None for no text."""
    if not text:
        return None
    if ":" in text:
        six = _hextets(text.strip().split("/")[0])
        return ipaddress.IPv6Address(six) if six is not None else None  # type: ignore[return-value]
    value = _quad(text.strip().split("/")[0])
    return ipaddress.IPv4Address(value) if value is not None else None


class Network:
    """The compiled form of one topology state. The forwarding facts come from ``model.forwarding``."""

    def __init__(self, topology: Topology, underlay: Topology | None = None) -> None:
        self.topology = topology
        self._underlay = underlay            # the whole design, when ``topology`` is its view in another family
        self._tep_net: Network | None = None
        self.index = Index(topology)
        self.fabric = Fabric(topology, self.index)
        self.segments: list[Segment] = []
        self._seg_by_key: dict[Any, int] = {}
        self._key_of: dict[int, SegmentKey] = {}           # virtual segment id -> its key
        self.wires: dict[int, Wire] = {}                   # virtual segment id -> its way to the physical network
        self.graph = graph.Graph()
        self.switch_graph = graph.Graph()
        self.points: dict[str, list[Point]] = {}       # endpoint id (VM / physical host) -> its interfaces
        self.devices: list[Device] = []
        self.device_by_id: dict[str, Device] = {}       # a routing device by its object's id
        self.by_address: dict[ipaddress.IPv4Address, list[tuple[Device, Point]]] = {}
        self.bridges: list[Bridge] = []
        self.attachments: list[tuple[str, int]] = []    # attachment id -> (port id, VLAN)
        self._att_ids: dict[tuple[str, int], int] = {}
        # the fabric's lookups, under the names the walk and the narrator use
        self.host_of_pnic = self.fabric.host_of_pnic
        self.pnic = self.fabric.pnic
        self.port_switch = self.fabric.port_switch
        self.port = self.fabric.port
        self.peers = self.fabric.peers
        self.on_network: dict[str | None, set[str]] = {}   # portgroup / switch id -> VMs with a vNIC on it
        self._dlr_vlan: dict[str, int | None] = {}          # DLR interface id -> VLAN of its portgroup
        self.host_addresses: dict[ipaddress.IPv4Address, str] = {}  # host OS addresses on hosted networks
        self.memo: dict[str, Any] = {}    # what a module works out once per compiled network (``dnat``, ``snat``)
        self.transports: dict[str, Wire] = {}              # host id -> its NSX tunnel endpoint's wire
        self.teamed = False                                # segments differ by the uplink teaming gives them
        self._team_bases: dict[SegmentKey, list[int]] = {}  # the (switch, host, VLAN) keys teaming splits by
        #                                                     uplink -> the segments it joins, first the group's
        self.pvlan_cols: dict[int, int] = {}               # private VLAN map VLAN -> its column of ``Segment.hears``
        self._embedded_ids: list[int] = []                   # the segments of pNICs' embedded switches (SR-IOV)
        self._top_label: int | None = None                 # no segment's label is above it (``_fresh_label``)
        self.dfw_active = bool(topology.nsx.dfw.rules) or topology.nsx.dfw.default_policy is not Action.ALLOW
        self._compile()

    # --- segments ----------------------------------------------------------------------------------

    def segment(self, key: Any, name: str, host: str | None, physical: bool, object_id: str,
                vlan: int | None) -> int:
        """The id of the segment with this key, made on first use."""
        seg_id = self._seg_by_key.get(key)
        if seg_id is None:
            seg_id = len(self.segments)
            self.segments.append(Segment(seg_id, name, host, physical, object_id, vlan))
            self._seg_by_key[key] = seg_id
            self.graph.add_node(seg_id)
        return seg_id

    def segment_of(self, point: Point) -> Segment:
        """The segment a point sits on; asking for a point on none (it has a ``problem``) is a bug (ValueError)."""
        if point.segment is None:
            raise ValueError(f"{point.name} sits on no segment")
        return self.segments[point.segment]

    def phys_segment(self, ps: PhysicalSwitch, vlan: int) -> int:
        """The segment of one VLAN of a physical switch."""
        key = ("phys", ps.id, vlan)
        found = self._seg_by_key.get(key)   # (most exist: every new segment of an edit asks for its uplink's)
        return found if found is not None else self.segment(key, f"{ps.name} VLAN {vlan}", None, True, ps.id, vlan)

    def typed(self, obj_id: str | None, kind: str) -> Any:
        """The object with this id if it is of ``kind`` (ids can collide in an invalid design)."""
        return self.index.get(obj_id) if self.index.kind(obj_id) == kind else None

    def name_of(self, obj_id: str | None) -> str:
        """What a person calls an object: its name, else its id."""
        return self.fabric.name_of(obj_id)

    def host_name(self, host_id: str | None) -> str:
        """A host's name."""
        return self.name_of(host_id)

    def switch_segment(self, key: SegmentKey, extra_label: str = "") -> int:
        """The segment ``key`` (created on first use, with its way to the physical network)."""
        seg_id = self._seg_by_key.get(key)
        if seg_id is not None:
            return seg_id
        host, vlan = key.host, key.vlan
        if key.switching is Switching.VIRTUAL:
            sw = self.index.get(key.switch)
            label = f"{self.host_name(host)}/{sw.name}" if host else sw.name
            if vlan is not None:
                label += f" VLAN {vlan}"
            elif sw.kind in TAGGING_SWITCHES:
                label += " untagged"
        else:
            what = "embedded switch" if key.switching is Switching.EMBEDDED else "DirectPath"
            label = f"{self.fabric.pnic_label(key.switch)} {what}" + (f" VLAN {vlan}" if vlan is not None else "")
        if key.guest:
            label += f" ({extra_label or self.name_of(key.guest)})"
        if key.uplink == RUN_TIME_UPLINK:
            label += " (uplink chosen at run time)"
        elif key.uplink is not None:
            label += f" via {self.fabric.pnic_label(key.uplink)}"
        seg_id = self.segment(key, label, host, False, key.switch, vlan)
        self._key_of[seg_id] = key
        if key.switching is Switching.EMBEDDED:
            self._embedded_ids.append(seg_id)
        wire = self.fabric.segment_wire(key)
        if wire is not None:
            self.wires[seg_id] = wire
            self._attach(seg_id, wire, key)
        return seg_id

    def _attach(self, seg_id: int, wire: Wire, key: SegmentKey | None = None) -> None:
        """Join a segment to the physical switch VLAN its wire lands in (or record why it does not)."""
        if wire.pnic is None or wire.port is None or wire.vlan is None:   # (a wire with a pNIC has both)
            self.segments[seg_id].problems.extend(wire.problems)
            return
        port = wire.port
        reflect = True
        if key is not None and key.guest and key.switching is Switching.VIRTUAL:
            reflect = reflection_reaches_guests(self.index.get(key.switch))
        phys = self.phys_segment(self.port_switch[port.id], wire.vlan)
        att = self._att_ids.setdefault((port.id, wire.vlan), len(self._att_ids))
        if att == len(self.attachments):
            self.attachments.append((port.id, wire.vlan))
        self.graph.add_edge(seg_id, phys, kind=EdgeKind.UPLINK, pnic=wire.pnic, port=port.id, attachment=att,
                            tag=wire.tag, hairpin=returns_through(port) and reflect)

    # --- compile -----------------------------------------------------------------------------------

    def _compile(self) -> None:
        topo = self.topology
        placed: dict[tuple, _Placed] = {}
        for vm in topo.vms:
            self.points[vm.id] = [self._vnic_point(vm, nic, placed) for nic in vm.vnics]
            for nic in vm.vnics:
                self.on_network.setdefault(nic.network, set()).add(vm.id)
        for ph in topo.physical_hosts:
            self.points[ph.id] = [self._wire_point(ph.id, nic.id, f"{ph.name}/{nic.name}", nic.ip, nic.gateway, nic.vlan)
                                  for nic in ph.nics]
        for host in endpoint_hosts(topo):
            self.points[host.id] = hostos.points(self, host)
        for router in topo.physical_routers:
            self._router(router)
        for vm in topo.vms:
            if vm.role is not VmRole.VM:
                self._forwarding_vm(vm)
        for dlr in topo.nsx.dlrs:
            self._dlr(dlr)
        for sw in topo.switches:
            if sw.kind is SwitchKind.HOSTED_NAT and sw.nat_gateway:
                self._nat(sw)
            address = parse_addr(sw.host_address)
            if address is not None:
                self.host_addresses[address] = f"{self.host_name(sw.host)}'s own address on {sw.name}"
        for host in topo.hosts:
            for pnic in host.pnics:
                address = parse_addr(pnic.ip)
                if address is not None:
                    self.host_addresses[address] = f"{host.name}'s own address on {pnic.name}"
        self._pvlan_listeners()
        self._patches()
        self._embedded()
        self._transports()
        self._trunks()
        self._overlays()
        self._label()
        self._teams()
        self._pvlan_groups()

    def _vnic_point(self, vm: VM, nic: Any, placed: dict[tuple, _Placed] | None = None) -> Point:
        """A vNIC's interface. ``placed``: the placements made so far in this pass of the design (``_placing``),
        shared by the vNICs that sit alike (an edit moving a thousand VMs places each (portgroup, host) once)."""
        point = Point(None, parse_if(nic.ip), parse_addr(nic.gateway), vm.id, nic.id, f"{vm.name}/{nic.name}",
                      str(nic.type), mtu=nic.mtu)
        alike = _placing(vm, nic) if placed is not None else None
        found = placed.get(alike) if placed is not None and alike is not None else None
        if found is None:
            found = self._place(vm, nic)
            if placed is not None and alike is not None and found.segment is not None and found.guest is None:
                placed[alike] = found     # (a problem names the vNIC; a guest alone is its own segment)
        point.portgroup, point.problem = found.portgroup, found.problem
        point.segment, point.variants, point.choice = found.segment, found.variants, found.choice
        return point

    def _place(self, vm: VM, nic: Any) -> _Placed:
        """Where a vNIC sits: ``Fabric.place``, then the uplink teaming puts it on (segments made as needed)."""
        place = self.fabric.place(vm, nic)
        key = place.segment
        if key is None:
            return _Placed(place.portgroup, place.problem)
        if self.fabric.may_choose_uplink(vm, nic, place):
            choice = self.fabric.vnic_uplinks(vm, nic, place)
            if choice.chooser is UplinkChooser.PIN:
                key = replace(key, uplink=choice.uplinks[0].pnic)
            elif len(choice.uplinks) > 1:   # one segment per possible uplink; ``_teams`` picks once domains are known
                variants = tuple(self.switch_segment(replace(key, uplink=u.pnic)) for u in choice.uplinks)
                return _Placed(place.portgroup, None, variants[0], variants, choice, key.guest)
        return _Placed(place.portgroup, None, self.switch_segment(key, f"{vm.name}/{nic.name}"), guest=key.guest)

    def _wire_point(self, owner: str, nic_id: str, name: str, ip: str | None, gateway: str | None,
                    tag: int | None) -> Point:
        point = Point(None, parse_if(ip), parse_addr(gateway), owner, nic_id, name)
        port = self.fabric.port_of(nic_id)
        if port is None:
            point.problem = f"{name} is not cabled to a switch port"
        elif not port.up:
            point.problem = f"{self.fabric.port_label(port)} is down"
        elif (vlan := ingress(port, tag)) is None:
            point.problem = ingress_problem(port, tag, self.fabric.port_label(port))
        else:
            point.segment = self.phys_segment(self.port_switch[port.id], vlan)
            point.mtu, point.mtu_at = port.mtu, self.fabric.port_label(port)   # the NIC takes its port's MTU
        return point

    def _add_device(self, device: Device) -> None:
        self.devices.append(device)
        self.device_by_id.setdefault(device.id, device)   # the first, as a scan of devices finds it
        for point in device.points:
            if point.ip is not None:
                self.by_address.setdefault(point.ip, []).append((device, point))

    def _router(self, router: PhysicalRouter) -> None:
        device = Device(router.id, router.name, DeviceKind.ROUTER)
        l3sw = self.typed(router.switch, "physical_switch")
        for itf in router.interfaces:
            name = f"{router.name}/{itf.name}"
            if any(p in self.port for p in self.peers.get(itf.id, ())) or l3sw is None:
                point = self._wire_point(router.id, itf.id, name, itf.ip, None, itf.vlan)
            else:
                point = Point(self.phys_segment(l3sw, itf.vlan or 1), parse_if(itf.ip), None, router.id, itf.id, name)
            device.points.append(point)
        self._static_routes(device, router.routes)
        self._add_device(device)

    @staticmethod
    def _static_routes(device: Device, routes: list[Route]) -> None:
        """A router's static routes, in order, each with the point its interface names (None: any); routes
        whose prefix or next hop do not parse are validation's to report and route nothing."""
        for route in routes:
            entry, via = route_entry(route.prefix), parse_addr(route.via)
            if entry is None or via is None:
                continue
            out = None
            if route.interface is not None:
                out = next((i for i, p in enumerate(device.points)
                            if route.interface in (p.nic, p.name.removeprefix(f"{device.name}/"))), -1)
            device.routes.append((entry[0], via))
            device.route_out.append(out)
            device.route_keys.append(entry[1])

    def _forwarding_vm(self, vm: VM) -> None:
        fwd = vm.forwarding
        points = self.points[vm.id]
        if fwd.mode is ForwardMode.BRIDGED:
            legs = [(p.nic, p.segment) for p in points if p.segment is not None]
            if len(legs) < 2:
                return
            (a_nic, a), (b_nic, b) = legs[0], legs[1]
            problems = [p for nic in (a_nic, b_nic) for p in self.fabric.bridging_problems(vm, self.index.get(nic))]
            why = (f"security policy: {'; '.join(problems)}, so bridged {vm.name} cannot pass frames between "
                   f"its legs" if problems else "")
            bridge = Bridge(vm, a, b, not problems, why)
            self.bridges.append(bridge)
            if a != b:
                self.graph.add_edge(a, b, kind=EdgeKind.BRIDGE, bridge=len(self.bridges) - 1)
            return
        kind = DeviceKind.FIREWALL if vm.role is VmRole.FIREWALL else \
            DeviceKind.EDGE if vm.role is VmRole.NSX_EDGE else DeviceKind.ROUTER
        device = Device(vm.id, vm.name, kind, points=list(points), rules=list(fwd.rules),
                        default_policy=fwd.default_policy, stateful=fwd.stateful, host=vm.host,
                        nic_types=tuple(p.nic_type or "" for p in points))
        self._static_routes(device, fwd.routes)
        for p in points:
            if p.gateway is not None:
                device.routes.append((ipaddress.IPv4Network("0.0.0.0/0"), p.gateway))
                device.route_out.append(None)
                device.route_keys.append((0, 0))
                break
        self._add_device(device)

    def _dlr(self, dlr: Any) -> None:
        """A DLR's interfaces sit on every member host; the walk picks the instance on the frame's host."""
        device = Device(dlr.id, dlr.name, DeviceKind.DLR)
        for itf in dlr.interfaces:
            obj, kind = self.index.get(itf.network), self.index.kind(itf.network)
            sw = self.index.parent(itf.network) if kind == "portgroup" else obj
            point = Point(None, parse_if(itf.ip), None, dlr.id, itf.id, f"{dlr.name}/{itf.name}")
            if sw is None or self.index.kind(sw.id) != "switch":
                point.problem = f"DLR interface {itf.name} names no switch or portgroup"
            else:
                # a VLAN-backed interface on a distributed portgroup sits in the portgroup's VLAN
                point.portgroup = sw.id  # the logical switch; its per-host instance is chosen at walk time
                for host in self.fabric.switch_hosts(sw):
                    key, _ = self.fabric.network_segment(itf.network, host, point.name)
                    if key is not None:
                        self._dlr_vlan[itf.id] = key.vlan
                        self.switch_segment(key)
            device.points.append(point)
        self._static_routes(device, dlr.routes)
        self._add_device(device)

    def dlr_segment(self, point: Point, host: str | None) -> int | None:
        """The instance on ``host`` of the logical switch a DLR interface sits on."""
        sw = self.typed(point.portgroup, "switch")
        if sw is None or host is None:
            return None
        return self._seg_by_key.get(SegmentKey(sw.id, host, self._dlr_vlan.get(point.nic)))

    def _nat(self, sw: Any) -> None:
        host = sw.host
        inside_ip = parse_addr(sw.nat_gateway)
        if inside_ip is None or host is None:
            return
        inside_seg = self.switch_segment(SegmentKey(sw.id, host, None))
        net = None
        for pts in self.points.values():
            for p in pts:
                if p.segment == inside_seg and p.iface is not None and inside_ip in p.iface.network:
                    net = p.iface.network
        iface = make_iface(int(inside_ip), net.prefixlen if net else 24, inside_ip.version)
        device = Device(f"{sw.id}", f"{sw.name} NAT", DeviceKind.NAT, host=host)
        device.points.append(Point(inside_seg, iface, None, sw.id, sw.id, f"{sw.name} NAT inside"))
        wire = self.fabric.nat_wire(sw)
        pnic = self.pnic.get(wire.pnic) if wire.pnic else None
        out = Point(None, parse_if(pnic.ip) if pnic else None, parse_addr(pnic.gateway) if pnic else None, sw.id,
                    f"{sw.id}:outside", f"{self.host_name(host)} host network")
        if wire.pnic is None:
            out.problem = f"{self.host_name(host)} has no working pNIC for {sw.name}'s NAT"
        else:
            out.segment = self.segment(("nat-outside", sw.id), f"{self.host_name(host)} host network", host, False,
                                       sw.id, None)
            self._attach(out.segment, wire)
        self._add_device(device)
        device.points.append(out)  # after: the host's own address is no gateway (the NAT serves its guests)

    def _patches(self) -> None:
        """Explicit patches between KVM switches (OVS patch port, veth between bridges) join their segments,
        every VLAN in use crossing an untagged OVS patch (``Fabric.patched_segments``)."""
        patched = graph.Graph()
        for ka, kb in self.fabric.patched_segments(list(self._key_of.values())):
            patched.add_edge(self.switch_segment(ka), self.switch_segment(kb))
        for a, b in patched.edges():
            self.graph.add_edge(a, b, kind=EdgeKind.PATCH)
        for group in graph.connected_components(patched):   # why frames do not leave, whichever bridge holds the uplink
            problems = list(dict.fromkeys(p for s in sorted(group) for p in self.segments[s].problems))
            for s in group:
                self.segments[s].problems = list(problems)

    def _embedded(self) -> None:
        """SR-IOV: a pNIC's embedded switch joins its VFs with the segment it uplinks in the same VLAN."""
        for vf, vf_wire in self.wires.items():
            if self._key_of[vf].switching is not Switching.EMBEDDED:
                continue
            for other, wire in self.wires.items():
                if self._key_of[other].switching is Switching.VIRTUAL and shares_embedded_switch(vf_wire, wire):
                    self.graph.add_edge(vf, other, kind=EdgeKind.EMBEDDED, pnic=vf_wire.pnic)

    def _trunks(self) -> None:
        """Cables between physical switches extend the VLANs that cross them both ways (``trunk_vlan``),
        followed from every physical VLAN in use to the switches beyond. ``switch_graph`` keeps every
        inter-switch cable whatever it carries, to explain where a VLAN stops."""
        self._cables: dict[str, list[tuple[Port, Port, int | None]]] = {}
        for link in self.topology.links:
            pa, pb = self.port.get(link.a), self.port.get(link.b)
            if pa is None or pb is None or pa.id == pb.id:
                continue
            ends = (self.port_switch[pa.id].id, self.port_switch[pb.id].id)
            if ends[0] != ends[1]:
                self.switch_graph.add_edge(*ends, ports=(pa.id, pb.id))
            self._cables.setdefault(ends[0], []).append((pa, pb, link.speed_mbps))
            self._cables.setdefault(ends[1], []).append((pb, pa, link.speed_mbps))
        self._follow_trunks(self.segments)

    def _follow_trunks(self, starts: list[Segment]) -> None:
        """Join the physical VLANs of ``starts`` to the switches beyond their trunks, and those onwards."""
        todo = [(s.object_id, s.vlan) for s in starts if s.physical and s.vlan is not None]   # (physical: always)
        while todo:
            ps_id, vlan = todo.pop()
            for here, there, speed in self._cables.get(ps_id, ()):
                other = trunk_vlan(here, there, vlan)
                if other is None:
                    continue
                far = self.port_switch[there.id]
                known = ("phys", far.id, other) in self._seg_by_key   # then followed already, or to be
                self.graph.add_edge(self.phys_segment(self.port_switch[here.id], vlan), self.phys_segment(far, other),
                                    kind=EdgeKind.TRUNK, ports=(here.id, there.id), speed=speed)
                if not known:
                    todo.append((far.id, other))

    def _transports(self) -> None:
        """Each NSX member host's tunnel endpoint, wired to the physical network like a segment."""
        for sw in self.topology.switches:
            if sw.kind is not SwitchKind.NSX_SEGMENT:
                continue
            for host in sw.members:
                if host in self.transports:
                    continue
                wire = self.transports[host] = self.fabric.transport(host)
                tep = self.segment(("tep", host), f"{self.host_name(host)} tunnel endpoint", host, False, host,
                                   wire.vlan)
                self._attach(tep, wire)

    def tep_segment(self, host: str | None) -> int | None:
        """The segment of a host's NSX tunnel endpoint, if it has one."""
        return self._seg_by_key.get(("tep", host))

    @property
    def tep_net(self) -> Network:
        """The network the tunnel endpoints talk over: this one, or, when this is a design's view in a family
        its TEPs do not use (the IPv6 view of IPv4 tunnel endpoints), the view in theirs (compiled once, when
        a tunnel is first asked about). The overlay carries either family whatever the underlay's is."""
        if self._underlay is None:
            return self
        if self._tep_net is None:
            self._tep_net = Network(project(self._underlay, tep_family(self._underlay) or 4))
        return self._tep_net

    def transport_mtu(self, host_a: str | None, host_b: str | None) -> tuple[int, str]:
        """The largest packet the physical network carries between two hosts' tunnel endpoints (their transport
        pNICs and every port on the way), and where it is smallest."""
        assert host_a is not None and host_b is not None   # (an overlay crossing joins two hosts)
        net = self.tep_net
        return teps.path_mtu(net, teps.tep_path(net, host_a, host_b))

    def _overlays(self) -> None:
        """NSX segments: the instances whose hosts' tunnel endpoints reach each other over the physical network
        (the transport VLAN carried between their transport pNICs, or routed between TEP subnets: ``teps``) are
        joined by one tunnel hub."""
        working = [h for h, wire in self.transports.items() if wire.pnic is not None and self.tep_segment(h) is not None]
        group = teps.groups(self.tep_net, working)
        for sw in self.topology.switches:
            if sw.kind is not SwitchKind.NSX_SEGMENT:
                continue
            for s in list(self.segments):
                if s.object_id != sw.id or s.physical:
                    continue
                wire = self.transports.get(s.host) if s.host is not None else None
                tep = self.tep_segment(s.host)
                if s.host is None or wire is None or wire.pnic is None or tep is None:   # (a wire comes with its endpoint)
                    s.problems.extend(wire.problems if wire else ())
                    continue
                hub = self.segment(("overlay", sw.id, group[s.host]), f"{sw.name} overlay", None, False, sw.id, None)
                self.graph.add_edge(s.id, hub, kind=EdgeKind.OVERLAY, pnic=wire.pnic)

    def _teams(self) -> None:
        """Teaming (forwarding-rules.md "Teaming"): the segments of one (switch, host, VLAN) that differ only by
        the uplink their vNICs leave through are one in-host group (the vSwitch joins its ports whatever their
        uplinks), each reaching the network its own uplink leads to. A vNIC whose uplink the platform chooses
        among uplinks that lead to different networks is answered for the worst of them (``decide.across_uplinks``
        over L2 domains: none reaches beyond the host for every choice), on a segment of its own that says why."""
        self.teamed = False
        for points in self.points.values():
            for point in points:
                if point.variants:
                    point.segment = self._run_time_segment(point)
        groups: dict[SegmentKey, list[int]] = {}
        for key in self._key_of.values():
            if key.uplink is not None:
                base = replace(key, uplink=None)
                groups.setdefault(base, [])
        self._team_bases = groups
        if not groups:
            return
        self.teamed = True
        for seg_id, key in self._key_of.items():
            base = replace(key, uplink=None)
            if base in groups:
                groups[base].append(seg_id)
        parent: dict[int, int] = {}

        def root(label: int) -> int:
            while parent.get(label, label) != label:
                label = parent[label]
            return label
        for members in groups.values():
            first = members[0]
            for other in members[1:]:
                self.graph.add_edge(first, other, kind=EdgeKind.TEAM)
                a, b = root(self.segments[first].local), root(self.segments[other].local)
                if a != b:
                    parent[max(a, b)] = min(a, b)
        for seg in self.segments:
            seg.local = root(seg.local)

    def _run_time_segment(self, point: Point) -> int:
        """The segment of a vNIC whose uplink the platform chooses (``point.variants``): the one through its
        worst uplink when every uplink leads to the same L2 domain (the one behind a lone, hairpin-less port,
        when there is one: it cannot reach what sits behind that port), else one that reaches no further than the host, with the outcome per uplink as its problem. (IP hash
        fixes the uplink per pair of addresses, but one label per vNIC cannot: it is answered like a run-time
        choice, the worst over its uplinks, and the explanation names the uplink the hash gives the pair.)"""
        variants = [self.segments[v] for v in point.variants]
        lone = sorted({v.attachment for v in variants} - {-1})
        one_domain = len({v.domain for v in variants}) == 1
        if one_domain and len(lone) <= 1:
            # the uplink behind a lone port (if any) is the one that cannot u-turn, the worst
            return next((v.id for v in variants if v.attachment in lone), point.variants[0])
        key = replace(self._key_of[point.variants[0]], uplink=RUN_TIME_UPLINK)
        seg_id = self._seg_by_key.get(key)
        if seg_id is not None:
            return seg_id
        seg_id = self.switch_segment(key)
        seg = self.segments[seg_id]
        seg.local = variants[0].local
        if one_domain and len(lone) == 2:   # two lone ports of one domain: reaches what is behind neither
            seg.domain, seg.attachment, seg.alternate = variants[0].domain, lone[0], lone[1]
            return seg_id
        seg.domain = self._fresh_label()
        choice = point.choice
        assert choice is not None, "a vNIC with variants has its uplink choice"
        ways = "; ".join(f"through {self.fabric.pnic_label(u.pnic)} it reaches "
                         + (self._reach(v) if not v.problems else "nothing (" + "; ".join(v.problems) + ")")
                         for u, v in zip(choice.uplinks, variants))
        who = "route based on IP hash" if choice.chooser is UplinkChooser.ADDRESS_HASH else \
            "the platform, at run time"
        seg.problems.append(f"the uplink of {variants[0].name.split(' via ')[0]} is chosen by {who}, and the "
                            f"uplinks do not reach the same places ({ways}), so the answer depends on the "
                            f"uplink chosen; pin the vNIC to an uplink, or make every active uplink's switch port "
                            f"carry the same VLANs")
        return seg_id

    def _pvlan_listeners(self) -> None:
        """Private VLANs (forwarding-rules.md "Private VLANs"): a vDS (or OVS switch) takes every VLAN of a private VLAN on its
        uplinks, so each host with a port in one gets a segment per VLAN of its map, wired like any other: the
        L2 domains they land in say which of the VLANs the physical network carries between which hosts."""
        for key in list(self._key_of.values()):
            sw = self.switch_of(key)
            entry = pvlan_segment_entry(sw, key.vlan)
            if entry is None:
                continue
            for vlan in pvlan_vlans(sw.pvlans, entry.primary):
                self.pvlan_cols.setdefault(vlan, len(self.pvlan_cols))
                self.switch_segment(SegmentKey(key.switch, key.host, vlan))
        for ps in self.topology.physical_switches:
            for e in ps.pvlans:
                self.pvlan_cols.setdefault(e.secondary, len(self.pvlan_cols))

    def segment_id(self, key: SegmentKey) -> int | None:
        """The id of the segment with this key, if the design has it."""
        return self._seg_by_key.get(key)

    def switch_of(self, key: SegmentKey) -> Any:
        """The virtual switch of a segment key, or None (an embedded switch, DirectPath, a per-guest segment)."""
        if key.switching is not Switching.VIRTUAL or key.guest is not None:
            return None
        return self.fabric.switch.get(key.switch)

    def _pvlan_groups(self) -> None:
        """The segments of one private VLAN on one host's vDS or OVS switch are one in-host group (it joins its ports, and
        the decision core applies the roles, ``decide.pvlan_l2``); each takes its role, the column of the VLAN
        its ports send on, and what its host's switch hears on every column (the natural L2 domain of that VLAN's
        segment there: ``decide`` compares it with the sender's to tell whether the physical network carries
        the VLAN between the two hosts). A PVLAN edge joins the group in the graph, for the walk's hops."""
        if not self.pvlan_cols:
            return
        groups: dict[tuple[str, str | None, int], list[int]] = {}
        for seg_id, key in self._key_of.items():
            sw = self.switch_of(key)
            entry = pvlan_segment_entry(sw, key.vlan)
            if entry is None:
                continue
            seg = self.segments[seg_id]
            seg.pvlan = pvlan_label(entry)
            seg.pvlan_col = self.pvlan_cols[pvlan_wire_vlans(entry)[0]]
            groups.setdefault((key.switch, key.host, entry.primary), []).append(seg_id)
        parent: dict[int, int] = {}

        def root(label: int) -> int:
            while parent.get(label, label) != label:
                label = parent[label]
            return label
        for (switch, host, _), members in groups.items():
            row = [-2] * len(self.pvlan_cols)       # -2: no domain (a VLAN this switch's map lacks)
            for vlan, col in self.pvlan_cols.items():
                listener = self._seg_by_key.get(SegmentKey(switch, host, vlan))
                if listener is not None:
                    row[col] = self.segments[listener].domain
            hears = tuple(row)
            for k, m in enumerate(members):
                self.segments[m].hears = hears
                for other in members[:k]:     # every pair: a frame crosses the vDS in one step (a handful of VLANs)
                    if m not in self.graph[other]:      # (a TEAM edge between one VLAN's uplinks stays)
                        self.graph.add_edge(other, m, kind=EdgeKind.PVLAN)
                if k:
                    a, b = root(self.segments[members[0]].local), root(self.segments[m].local)
                    if a != b:
                        parent[max(a, b)] = min(a, b)
        for seg in self.segments:
            seg.local = root(seg.local)
        self._physical_pvlan_roles()

    def _physical_pvlan_roles(self) -> None:
        """A physical switch with a private VLAN map enforces it on its own ports (forwarding-rules.md "Private
        VLANs"): each of its VLAN segments in the map takes that VLAN's role, its sending column, and what the
        switch hears on every column (its own segments of the map's VLANs), as a vDS's ports do; the map's
        segments are one in-host group (the switch delivers between its own ports)."""
        for ps in self.topology.physical_switches:
            row = [-2] * len(self.pvlan_cols)
            for vlan, col in self.pvlan_cols.items():
                seg_id = self._seg_by_key.get(("phys", ps.id, vlan))
                if seg_id is not None:
                    row[col] = self.segments[seg_id].domain
            groups: dict[int, list[int]] = {}
            for e in ps.pvlans:
                seg_id = self._seg_by_key.get(("phys", ps.id, e.secondary))
                if seg_id is not None:
                    seg = self.segments[seg_id]
                    seg.pvlan, seg.pvlan_col, seg.hears = (pvlan_label(e), self.pvlan_cols[pvlan_wire_vlans(e)[0]],
                                                           tuple(row))
                    groups.setdefault(e.primary, []).append(seg_id)
            for members in groups.values():        # the switch joins its map's VLANs: one in-host group, as a vDS's
                for k, m in enumerate(members):
                    for other in members[:k]:
                        if m not in self.graph[other]:
                            self.graph.add_edge(other, m, kind=EdgeKind.PVLAN)
                olds = {self.segments[m].local for m in members}
                for seg in self.segments:
                    if seg.local in olds:
                        seg.local = min(olds)

    def pvlan_entry_of(self, seg: Segment) -> Pvlan | None:
        """The private VLAN role of a segment's ports: its vDS's or OVS switch's map entry, or its PVLAN-aware
        physical switch's."""
        if seg.physical:
            ps = self.typed(seg.object_id, "physical_switch")
            return pvlan_entry(ps.pvlans, seg.vlan) if ps is not None else None
        return pvlan_segment_entry(self.typed(seg.object_id, "switch"), seg.vlan)

    def pvlan_peer(self, seg: Segment, vlan: int) -> int | None:
        """The segment of ``seg``'s switch (on its host) that carries ``vlan``, if there is one."""
        if seg.physical:
            return self._seg_by_key.get(("phys", seg.object_id, vlan))
        return self.segment_id(SegmentKey(seg.object_id, seg.host, vlan))

    def pvlan_owner_name(self, seg: Segment) -> str:
        """The switch that holds a segment's private VLAN map, by name."""
        owner = self.typed(seg.object_id, "physical_switch" if seg.physical else "switch")
        return owner.name if owner is not None else seg.name

    def _reach(self, seg: Segment) -> str:
        """The physical VLAN a segment's uplink lands in, in words."""
        for _, peer, data in self.graph.edges(seg.id, data=True):
            if data["kind"] is EdgeKind.UPLINK:
                return self.segments[peer].name
        return "no physical network"

    def refresh(self, vm_ids: set[str]) -> bool:
        """Recompute these VMs' interfaces after an edit that moved only them (a portgroup's VLAN, a vNIC's
        network). New segments (with any physical VLAN new to a switch, followed over the trunks) hang off the
        existing graph and take their labels from the one L2 domain they join, if any. False when the edit
        reaches further (a forwarding VM, new segments joining domains that were apart, a switch kind whose
        segments are not plain leaves, a new segment sharing a pNIC's embedded switch with SR-IOV VFs): then
        the caller recompiles. Moves onto teamed segments are taken in place (a vNIC whose uplink teaming
        chooses gets its run-time segment, new segments split by uplink join their team: ``_team_new``); one
        onto a private VLAN's new segments recompiles."""
        before = len(self.segments)
        choosing: list[Point] = []     # vNICs whose uplink teaming chooses among several
        placed: dict[tuple, _Placed] = {}
        for vm_id in vm_ids:   # (one pass over the VMs: a refresh that returns False is followed by a compile)
            vm = self.typed(vm_id, "vm")
            if vm is None or vm.role is not VmRole.VM:
                return False
            if any(nic.network is not None and self.index.get(nic.network) is None for nic in vm.vnics):
                return False
            points = self.points[vm_id] = [self._vnic_point(vm, nic, placed) for nic in vm.vnics]
            for point, nic in zip(points, vm.vnics):
                if point.variants:
                    choosing.append(point)
                on = self.on_network.get(nic.network)
                if on is None:
                    on = self.on_network[nic.network] = set()
                on.add(vm_id)
        new = self.segments[before:]
        if any(seg.physical and self.pvlan_entry_of(seg) is not None for seg in new):
            return False
        keys = [key for key in (self._key_of.get(seg.id) for seg in new) if key is not None]
        if any(pvlan_segment_entry(self.switch_of(key), key.vlan) for key in keys):
            return False
        vfs = [self.wires[seg] for seg in self._embedded_ids if seg in self.wires]
        patched = {sw.id for pair in self.fabric.patches() for sw in pair}
        for seg in new:
            sw = self.typed(seg.object_id, "switch")
            if not seg.physical and (sw is None or sw.kind not in LEAF_SWITCHES or sw.id in patched):
                return False
            wire = self.wires.get(seg.id)
            if wire is not None and any(shares_embedded_switch(vf, wire) for vf in vfs):
                return False
        self._follow_trunks(new)
        if not self._label_new(before):
            return False
        for point in choosing:   # as ``_teams`` does, once the new segments' domains are known
            point.segment = self._run_time_segment(point)
        self._team_new(before)
        return True

    def _team_new(self, before: int) -> None:
        """``_teams`` for the segments from ``before`` on: each one teaming splits by uplink (or of a key it
        splits) joins its (switch, host, VLAN) group, taking the group's in-host label (a group new to the
        design starts from the segment of its key without an uplink, if there is one)."""
        joining: dict[SegmentKey, list[int]] = {}
        for seg_id in range(before, len(self.segments)):
            key = self._key_of.get(seg_id)
            if key is None or (key.uplink is None and key not in self._team_bases):
                continue
            joining.setdefault(replace(key, uplink=None), []).append(seg_id)
        for base, new in joining.items():
            members = self._team_bases.get(base)
            if members is None:
                plain = self._seg_by_key.get(base)
                members = self._team_bases[base] = [plain] if plain is not None and plain < before else []
                new = sorted(set(new) | ({plain} if plain is not None and plain >= before else set()))
            self.teamed = True
            for seg_id in new:
                if members:
                    self.graph.add_edge(members[0], seg_id, kind=EdgeKind.TEAM)
                    self.segments[seg_id].local = self.segments[members[0]].local
                members.append(seg_id)

    def _label_new(self, before: int) -> bool:
        """Labels for the segments from ``before`` on, which only hang off the graph: each alone in its host
        group, attached through its one uplink, in the domain of the old segments it reaches (a new one when
        none). False when one group of them reaches two old domains (which then become one)."""
        new = range(before, len(self.segments))
        for seg_id in new:
            seg = self.segments[seg_id]
            seg.local = self._fresh_label()
            uplinks = [d for _, _, d in self.graph.edges(seg_id, data=True) if d["kind"] is EdgeKind.UPLINK]
            seg.attachment = -1 if seg.physical or len(uplinks) != 1 or uplinks[0]["hairpin"] else uplinks[0]["attachment"]
        for group in graph.connected_components(self.graph.subgraph(new)):   # (in id order, as they were made)
            old = {self.segments[peer].id for s in group for peer in self.graph[s] if peer < before}
            domains = {self.segments[peer].domain for peer in old}
            if len(domains) > 1:
                return False
            if domains:
                peer = self.segments[min(old)]
                domain, bridged = peer.domain, peer.has_bridge
            else:
                domain, bridged = self._fresh_label(), False
            for s in group:
                self.segments[s].domain, self.segments[s].has_bridge = domain, bridged
        return True

    def _fresh_label(self) -> int:
        """An in-host group or L2 domain label no segment has, for segments labelled after ``_label``."""
        if self._top_label is None:
            self._top_label = max((max(s.local, s.domain) for s in self.segments), default=0)
        self._top_label += 1
        return self._top_label

    def _label(self) -> None:
        """Compute the in-host groups, L2 domains and lone attachments (see the module docstring)."""
        local_graph = graph.Graph()
        local_graph.add_nodes_from(range(len(self.segments)))
        for a, b, data in self.graph.edges(data=True):
            if data["kind"] in IN_HOST_EDGES:
                local_graph.add_edge(a, b)
        for gid, comp in enumerate(graph.connected_components(local_graph)):
            atts = set()
            hairpin = False
            for s in comp:
                self.segments[s].local = gid
                if self.segments[s].physical:
                    hairpin = True  # a physical segment is the switch itself, not something behind a port
                for _, peer, data in self.graph.edges(s, data=True):
                    if data["kind"] is EdgeKind.UPLINK:
                        atts.add(data["attachment"])
                        hairpin |= data["hairpin"]
            att = next(iter(atts)) if len(atts) == 1 and not hairpin else -1
            for s in comp:
                self.segments[s].attachment = att
        for did, comp in enumerate(graph.connected_components(self.graph)):
            bridged = any(d["kind"] is EdgeKind.BRIDGE for _, _, d in self.graph.edges(comp, data=True))
            for s in comp:
                self.segments[s].domain = did
                self.segments[s].has_bridge = bridged
        if self.segments:   # the labels from here on are these, merged (the smaller kept), or ``_fresh_label``'s
            self._top_label = max(gid, did)
