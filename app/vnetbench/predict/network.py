"""Compile a design into what the walk needs: segments, the L2 graph, endpoints and L3 devices.

SEMANTICS.md section 2 and 3. A *segment* is one broadcast domain inside one switching instance (or, for the
physical network, one VLAN on one physical switch). Segments are joined by edges: uplinks (a pNIC into a
switch port), inter-switch trunks, NSX overlay tunnels, bridged firewall VMs and explicit KVM patches.
Everything here is computed once per topology state; ``walk`` then only looks things up.

Reachability at L2 is decided from three precomputed labels per segment, so the single-pair walk and the
vectorised matrix agree by construction:

- ``local``: the in-host group (segments joined without crossing a pNIC: bridged firewalls, patches);
- ``domain``: the L2 domain (groups joined through pNICs, the physical network, overlays);
- ``attachment``: the one (port, VLAN) a group reaches the physical network through, when it has exactly
  one and that port does not reflect frames (no hairpin). Two groups behind the same such attachment would
  need a u-turn on the port, which a switch refuses.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from ..model.index import Index
from ..model.objects import (
    VM, Action, ForwardMode, MacvtapMode, PhysicalRouter, PhysicalSwitch, PNic, Port, PortMode, Rule,
    SwitchKind, Topology, VmRole,
)
from ..model.vlan import VlanError, VlanMode, parse_ranges, parse_vlan



@dataclass(frozen=True)
class Iface:
    """An IPv4 address with its network (what ``ipaddress.IPv4Interface`` holds, built for a fraction of its
    cost: designs have thousands of addresses but few networks)."""

    ip: ipaddress.IPv4Address
    network: ipaddress.IPv4Network

    def __str__(self) -> str:
        return f"{self.ip}/{self.network.prefixlen}"


_NETWORKS: dict[tuple[int, int], ipaddress.IPv4Network] = {}


def make_iface(value: int, prefix: int) -> Iface:
    mask = (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF
    key = (value & mask, prefix)
    network = _NETWORKS.get(key)
    if network is None:
        network = _NETWORKS[key] = ipaddress.IPv4Network(key)
    return Iface(ipaddress.IPv4Address(value), network)


@dataclass
class Segment:
    """One broadcast domain. ``host`` is None for physical segments."""

    id: int
    name: str
    host: str | None
    physical: bool
    object_id: str | None          # the switch (virtual) or physical switch it lives in
    vlan: int | None = None
    local: int = -1                # in-host group id
    domain: int = -1               # L2 domain id
    attachment: int = -1           # the lone non-reflecting (port, VLAN) attachment of its group, or -1
    has_bridge: bool = False       # its domain holds a bridged firewall VM (the matrix walks such pairs)
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
    ip: ipaddress.IPv4Address | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.ip = self.iface.ip if self.iface is not None else None


@dataclass
class Device:
    """Something that routes: a physical router / L3 switch, a routed VM, an NSX DLR, a hosted NAT service."""

    id: str
    name: str
    kind: str                                   # "router", "firewall", "dlr", "nat"
    points: list[Point] = field(default_factory=list)
    routes: list[tuple[ipaddress.IPv4Network, ipaddress.IPv4Address]] = field(default_factory=list)
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


def _quad(text: str) -> int | None:
    """A dotted quad as an int (strictly four decimal octets), else None."""
    try:
        return int.from_bytes(socket.inet_pton(socket.AF_INET, text), "big")
    except (OSError, ValueError):
        return None


def parse_if(text: str | None) -> Iface | None:
    """``address/prefix`` (prefix 32 when absent); None when it is not an IPv4 interface."""
    if not text:
        return None
    addr, _, prefix = text.strip().partition("/")
    value = _quad(addr)
    mask = _quad(prefix) if "." in prefix else None
    if mask is not None:  # a dotted netmask (255.255.255.0) must be contiguous ones
        ones = bin(mask).count("1")
        prefix = str(ones) if mask == (0xFFFFFFFF << (32 - ones)) & 0xFFFFFFFF else "x"
    if value is not None and (not prefix or (prefix.isdigit() and int(prefix) <= 32)):
        return make_iface(value, int(prefix or 32))
    return None


def parse_addr(text: str | None) -> ipaddress.IPv4Address | None:
    if not text:
        return None
    value = _quad(text.strip().split("/")[0])
    return ipaddress.IPv4Address(value) if value is not None else None


@dataclass(frozen=True)
class _Uplink:
    """An implied uplink (a hosted network's or an NSX transport's first pNIC when the design names none)."""

    pnic: str
    standby: bool = False
    vlan: int | None = None


def _carries(ranges: tuple[tuple[int, int], ...], vlan: int) -> bool:
    return any(lo <= vlan <= hi for lo, hi in ranges)


class Network:
    """The compiled form of one topology state."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.index = Index(topology)
        self.segments: list[Segment] = []
        self._seg_by_key: dict[tuple, int] = {}
        self.graph = nx.Graph()
        self.switch_graph = nx.Graph()
        self.points: dict[str, list[Point]] = {}       # endpoint id (VM / physical host) -> its interfaces
        self.devices: list[Device] = []
        self.by_address: dict[ipaddress.IPv4Address, list[tuple[Device, Point]]] = {}
        self.bridges: list[Bridge] = []
        self.attachments: list[tuple[str, int]] = []    # attachment id -> (port id, VLAN)
        self._att_ids: dict[tuple[str, int], int] = {}
        self.host_of_pnic: dict[str, str] = {}
        self.pnic: dict[str, PNic] = {}
        self.port_switch: dict[str, PhysicalSwitch] = {}
        self.port: dict[str, Port] = {}
        self.peers: dict[str, list[str]] = {}
        self._uplinks_by_host: dict[str, dict[str | None, list]] = {}
        self.on_network: dict[str | None, set[str]] = {}
        self._dlr_vlan: dict[str, int | None] = {}          # DLR interface id -> VLAN of its portgroup
        self.host_addresses: dict[ipaddress.IPv4Address, str] = {}  # host OS addresses on hosted networks    # portgroup / switch id -> VMs with a vNIC on it
        self.dfw_active = bool(topology.nsx.dfw.rules) or topology.nsx.dfw.default_policy is Action.DENY
        self._compile()

    # --- segments ----------------------------------------------------------------------------------

    def segment(self, key: tuple, name: str, host: str | None, physical: bool, object_id: str | None,
                vlan: int | None) -> int:
        seg_id = self._seg_by_key.get(key)
        if seg_id is None:
            seg_id = len(self.segments)
            self.segments.append(Segment(seg_id, name, host, physical, object_id, vlan))
            self._seg_by_key[key] = seg_id
            self.graph.add_node(seg_id)
        return seg_id

    def phys_segment(self, ps: PhysicalSwitch, vlan: int) -> int:
        return self.segment(("phys", ps.id, vlan), f"{ps.name} VLAN {vlan}", None, True, ps.id, vlan)

    def typed(self, obj_id: str | None, kind: str) -> Any:
        """The object with this id if it is of ``kind`` (ids can collide in an invalid design)."""
        return self.index.get(obj_id) if self.index.kind(obj_id) == kind else None

    def name_of(self, obj_id: str | None) -> str:
        return str(getattr(self.index.get(obj_id), "name", obj_id))

    def host_pnics(self, host_id: str | None) -> list[PNic]:
        host = self.typed(host_id, "host")
        return list(host.pnics) if host is not None else []

    def host_name(self, host_id: str | None) -> str:
        return self.name_of(host_id)

    def switch_segment(self, sw: Any, host: str | None, vlan: int | None, extra: str | None = None,
                       extra_label: str = "") -> int:
        """The segment of switch ``sw`` on ``host`` carrying ``vlan`` (created on first use, with its uplink)."""
        key = ("sw", sw.id, host, vlan, extra)
        if key in self._seg_by_key:
            return self._seg_by_key[key]
        label = f"{self.host_name(host)}/{sw.name}" if host else sw.name
        if vlan is not None:
            label += f" VLAN {vlan}"
        elif sw.kind in (SwitchKind.VSS, SwitchKind.VDS, SwitchKind.OVS):
            label += " untagged"
        if extra:
            label += f" ({extra_label or self.name_of(extra)})"
        seg_id = self.segment(key, label, host, False, sw.id, vlan)
        self._uplink(seg_id, sw, host, vlan)
        return seg_id

    def teaming(self, sw: Any, host: str | None, vlan: int | None) -> list:
        """The uplink order for this segment: a portgroup override (the first portgroup in that VLAN), else the switch's."""
        order = sw.uplinks
        for pg in sw.portgroups:
            if pg.uplinks is None:
                continue
            try:
                parsed = parse_vlan(pg.vlan, sw.kind)
            except VlanError:
                continue
            if parsed.mode is VlanMode.ACCESS and parsed.tag == vlan or parsed.mode is VlanMode.NONE and vlan is None:
                order = pg.uplinks
                break
        if host is None:
            return list(order)
        if order is sw.uplinks:
            by_host = self._uplinks_by_host.get(sw.id)
            if by_host is None:
                by_host = self._uplinks_by_host[sw.id] = {}
                for u in sw.uplinks:
                    by_host.setdefault(self.host_of_pnic.get(u.pnic), []).append(u)
            return by_host.get(host, [])
        return [u for u in order if self.host_of_pnic.get(u.pnic) == host]

    def pnic_port(self, pnic_id: str) -> Port | None:
        for peer in self.peers.get(pnic_id, ()):
            if peer in self.port:
                return self.port[peer]
        return None

    def active_uplink(self, uplinks: list, seg: Segment | None = None) -> Any:
        """SEMANTICS 3 teaming: the first active uplink that is up; standby ones only when every active is down."""
        problems = []
        for standby in (False, True):
            for up in uplinks:
                if up.standby is not standby:
                    continue
                problem = self.uplink_problem(up)
                if problem is None:
                    return up
                problems.append(problem)
        if seg is not None:
            seg.problems.extend(problems)
        return None

    def uplink_problem(self, up: Any) -> str | None:
        """Why this uplink cannot carry traffic (down, not cabled, its port down), or None when it can."""
        pnic = self.pnic.get(up.pnic)
        if pnic is None:
            return f"uplink {up.pnic} is not a pNIC of this host"
        port = self.pnic_port(pnic.id)
        name = f"{self.host_name(self.host_of_pnic.get(pnic.id))}/{pnic.name}"
        if not pnic.up:
            return f"{name} is down"
        if port is None:
            return f"{name} is not cabled to a switch port"
        if not port.up:
            return f"port {port.name} of {self.port_switch[port.id].name} is down"
        return None

    def accept(self, port: Port, tag: int | None) -> tuple[int | None, str]:
        """The physical VLAN a frame with ``tag`` joins on ``port`` (SEMANTICS 3), or None and why it is dropped."""
        sw = self.port_switch[port.id]
        if port.mode is PortMode.ACCESS:
            if tag is None:
                return port.access_vlan, ""
            return None, (f"port {port.name} of {sw.name} is an access port in VLAN {port.access_vlan}, "
                          f"so it drops frames tagged VLAN {tag}")
        try:
            allowed = parse_ranges(port.allowed)
        except VlanError:
            return None, f"port {port.name} of {sw.name} has an unreadable allowed VLAN list {port.allowed!r}"
        vlan = port.native_vlan if tag is None else tag
        if _carries(allowed, vlan):
            return vlan, ""
        what = f"its native VLAN {vlan} for untagged frames" if tag is None else f"VLAN {vlan}"
        return None, f"port {port.name} of {sw.name} does not allow {what}"

    def _attach(self, seg_id: int, pnic_id: str, port: Port, tag: int | None, reflect: bool = True) -> None:
        seg = self.segments[seg_id]
        vlan, why = self.accept(port, tag)
        if vlan is None:
            seg.problems.append(why)
            return
        ps = self.port_switch[port.id]
        phys = self.phys_segment(ps, vlan)
        att = self._att_ids.setdefault((port.id, vlan), len(self._att_ids))
        if att == len(self.attachments):
            self.attachments.append((port.id, vlan))
        self.graph.add_edge(seg_id, phys, kind="uplink", pnic=pnic_id, port=port.id, attachment=att,
                            hairpin=port.hairpin and reflect)

    def _uplink(self, seg_id: int, sw: Any, host: str | None, vlan: int | None) -> None:
        seg = self.segments[seg_id]
        kind = sw.kind
        if kind in (SwitchKind.HOSTED_HOSTONLY, SwitchKind.HOSTED_NAT, SwitchKind.NSX_SEGMENT, SwitchKind.MACVTAP):
            return  # no L2 uplink (macvtap attaches per guest; NSX tunnels; hosted-only and NAT stay in the host)
        uplinks = self.teaming(sw, host, vlan)
        if kind is SwitchKind.HOSTED_BRIDGED and not uplinks and host:
            uplinks = [_Uplink(p.id) for p in self.host_pnics(host)[:1]]
        if not uplinks:
            seg.problems.append(f"{sw.name} has no uplink, so VMs on it cannot reach the physical network")
            return
        up = self.active_uplink(uplinks, seg)
        if up is None:
            seg.problems.append(f"every uplink of {sw.name} is down, so its traffic stays in the host")
            return
        tag = up.vlan if kind is SwitchKind.LINUX_BRIDGE else vlan
        self._attach(seg_id, up.pnic, self.pnic_port(up.pnic), tag)

    # --- compile -----------------------------------------------------------------------------------

    def _compile(self) -> None:
        topo = self.topology
        for host in topo.hosts:
            for pnic in host.pnics:
                self.host_of_pnic[pnic.id] = host.id
                self.pnic[pnic.id] = pnic
        for ps in topo.physical_switches:
            for port in ps.ports:
                self.port_switch[port.id] = ps
                self.port[port.id] = port
        for link in topo.links:
            self.peers.setdefault(link.a, []).append(link.b)
            self.peers.setdefault(link.b, []).append(link.a)
        for vm in topo.vms:
            self.points[vm.id] = [self._vnic_point(vm, nic) for nic in vm.vnics]
            for nic in vm.vnics:
                self.on_network.setdefault(nic.network, set()).add(vm.id)
        for ph in topo.physical_hosts:
            self.points[ph.id] = [self._wire_point(ph.id, nic.id, f"{ph.name}/{nic.name}", nic.ip, nic.gateway, nic.vlan)
                                  for nic in ph.nics]
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
        self._patches()
        self._trunks()
        self._overlays()
        self._label()

    def _switch_hosts(self, sw: Any) -> list[str]:
        return list(sw.members) if sw.members else ([sw.host] if sw.host else [])

    def _vnic_point(self, vm: VM, nic: Any) -> Point:
        point = Point(None, parse_if(nic.ip), parse_addr(nic.gateway), vm.id, nic.id, f"{vm.name}/{nic.name}",
                      str(nic.type))
        if not nic.connected:
            point.problem = f"{point.name} is disconnected"
            return point
        obj, kind = self.index.get(nic.network), self.index.kind(nic.network)
        if kind == "portgroup":
            sw, pg = self.index.parent(nic.network), obj
            point.portgroup = pg.id
        elif kind == "switch":
            sw, pg = obj, None
        else:
            point.problem = f"{point.name} is not connected to a portgroup or switch"
            return point
        host = vm.host
        if host is None or (sw.kind in (SwitchKind.VDS, SwitchKind.NSX_SEGMENT) and host not in self._switch_hosts(sw)) \
                or (sw.kind not in (SwitchKind.VDS, SwitchKind.NSX_SEGMENT) and sw.host and sw.host != host):
            point.problem = f"{vm.name} runs on {self.host_name(host)}, where {sw.name} does not exist"
            return point
        vlan: int | None = None
        if pg is not None:
            try:
                parsed = parse_vlan(pg.vlan, sw.kind)
            except VlanError as exc:
                point.problem = f"portgroup {pg.name} has an invalid VLAN: {exc}"
                return point
            if parsed.mode is VlanMode.ACCESS:
                vlan = parsed.tag
                if nic.guest_vlan is not None:
                    point.problem = (f"{point.name} tags VLAN {nic.guest_vlan} itself, but portgroup {pg.name} is "
                                     f"not a trunk, so the switch drops its frames")
                    return point
            elif parsed.mode is VlanMode.TRUNK:
                if nic.guest_vlan is not None:
                    if not parsed.carries(nic.guest_vlan):
                        point.problem = f"portgroup {pg.name} does not carry the guest's VLAN {nic.guest_vlan}"
                        return point
                    vlan = nic.guest_vlan
                else:
                    vlan = pg.native_vlan if sw.kind is not SwitchKind.VSS else None
            elif nic.guest_vlan is not None:
                point.problem = (f"{point.name} tags VLAN {nic.guest_vlan} itself, but portgroup {pg.name} is "
                                 f"not a trunk, so the switch drops its frames")
                return point
        if sw.kind is SwitchKind.MACVTAP:
            point.segment = self._macvtap_segment(sw, host, vm, nic)
        elif sw.kind in (SwitchKind.LINUX_BRIDGE, SwitchKind.HOSTED_BRIDGED, SwitchKind.HOSTED_HOSTONLY,
                         SwitchKind.HOSTED_NAT):
            point.segment = self.switch_segment(sw, host, None)
        else:
            point.segment = self.switch_segment(sw, host, vlan)
        return point

    def _macvtap_segment(self, sw: Any, host: str, vm: VM, nic: Any) -> int:
        mode = sw.macvtap_mode or MacvtapMode.VEPA
        if mode is MacvtapMode.BRIDGE:
            seg_id = self.switch_segment(sw, host, None)
            extra = None
        else:
            extra = nic.id
            seg_id = self.switch_segment(sw, host, None, extra, f"{vm.name}/{nic.name}")
        seg = self.segments[seg_id]
        if self.graph.degree(seg_id) or seg.problems:
            return seg_id
        uplinks = [u for u in sw.uplinks if self.host_of_pnic.get(u.pnic) == host][:1]
        if not uplinks:
            seg.problems.append(f"macvtap {sw.name} names no pNIC of {self.host_name(host)}")
            return seg_id
        up = self.active_uplink(uplinks, seg)
        if up is not None:
            self._attach(seg_id, up.pnic, self.pnic_port(up.pnic), up.vlan, reflect=mode is not MacvtapMode.PRIVATE)
        return seg_id

    def _wire_point(self, owner: str, nic_id: str, name: str, ip: str | None, gateway: str | None,
                    tag: int | None) -> Point:
        point = Point(None, parse_if(ip), parse_addr(gateway), owner, nic_id, name)
        ports = [self.port[p] for p in self.peers.get(nic_id, ()) if p in self.port]
        if not ports:
            point.problem = f"{name} is not cabled to a switch port"
            return point
        port = ports[0]
        if not port.up:
            point.problem = f"port {port.name} of {self.port_switch[port.id].name} is down"
            return point
        vlan, why = self.accept(port, tag)
        if vlan is None:
            point.problem = why
            return point
        point.segment = self.phys_segment(self.port_switch[port.id], vlan)
        return point

    def _add_device(self, device: Device) -> None:
        self.devices.append(device)
        for point in device.points:
            if point.iface is not None:
                self.by_address.setdefault(point.ip, []).append((device, point))

    def _router(self, router: PhysicalRouter) -> None:
        device = Device(router.id, router.name, "router")
        l3sw = self.typed(router.switch, "physical_switch")
        for itf in router.interfaces:
            name = f"{router.name}/{itf.name}"
            if any(p in self.port for p in self.peers.get(itf.id, ())) or l3sw is None:
                point = self._wire_point(router.id, itf.id, name, itf.ip, None, itf.vlan)
            else:
                point = Point(self.phys_segment(l3sw, itf.vlan or 1), parse_if(itf.ip), None, router.id, itf.id, name)
            device.points.append(point)
        for route in router.routes:
            try:
                device.routes.append((ipaddress.IPv4Network(route.prefix, strict=False), ipaddress.IPv4Address(route.via)))
            except ValueError:
                continue
        self._add_device(device)

    def _forwarding_vm(self, vm: VM) -> None:
        fwd = vm.forwarding
        points = self.points[vm.id]
        if fwd.mode is ForwardMode.BRIDGED:
            legs = [p for p in points if p.segment is not None]
            if len(legs) < 2:
                return
            a, b = legs[0], legs[1]
            problems = []
            for leg in (a, b):
                pg = self.typed(leg.portgroup, "portgroup")
                if pg is None:
                    continue
                if not pg.security.promiscuous:
                    problems.append(f"portgroup {pg.name} rejects promiscuous mode")
                if not pg.security.forged_transmits:
                    problems.append(f"portgroup {pg.name} rejects forged transmits")
            why = (f"security policy: {'; '.join(problems)}, so bridged {vm.name} cannot pass frames between "
                   f"its legs" if problems else "")
            bridge = Bridge(vm, a.segment, b.segment, not problems, why)
            self.bridges.append(bridge)
            if a.segment != b.segment:
                self.graph.add_edge(a.segment, b.segment, kind="bridge", bridge=len(self.bridges) - 1)
            return
        kind = "firewall" if vm.role is VmRole.FIREWALL else ("edge" if vm.role is VmRole.NSX_EDGE else "router")
        device = Device(vm.id, vm.name, kind, points=list(points), rules=list(fwd.rules),
                        default_policy=fwd.default_policy, stateful=fwd.stateful, host=vm.host,
                        nic_types=tuple(p.nic_type or "" for p in points))
        for p in points:
            if p.gateway is not None:
                device.routes.append((ipaddress.IPv4Network("0.0.0.0/0"), p.gateway))
                break
        self._add_device(device)

    def _dlr(self, dlr: Any) -> None:
        """A DLR's interfaces sit on every member host; the walk picks the instance on the frame's host."""
        device = Device(dlr.id, dlr.name, "dlr")
        for itf in dlr.interfaces:
            obj, kind = self.index.get(itf.network), self.index.kind(itf.network)
            sw = self.index.parent(itf.network) if kind == "portgroup" else obj
            point = Point(None, parse_if(itf.ip), None, dlr.id, itf.id, f"{dlr.name}/{itf.name}")
            vlan = None
            if kind == "portgroup":  # a VLAN-backed interface on a distributed portgroup
                try:
                    parsed = parse_vlan(obj.vlan, sw.kind)
                    vlan = parsed.tag if parsed.mode is VlanMode.ACCESS else None
                except VlanError:
                    vlan = None
            if sw is None or self.index.kind(sw.id) != "switch":
                point.problem = f"DLR interface {itf.name} names no switch or portgroup"
            else:
                point.portgroup = sw.id  # the logical switch; its per-host instance is chosen at walk time
                self._dlr_vlan[itf.id] = vlan
                for host in self._switch_hosts(sw):
                    self.switch_segment(sw, host, vlan)
            device.points.append(point)
        self._add_device(device)

    def dlr_segment(self, point: Point, host: str | None) -> int | None:
        """The instance on ``host`` of the logical switch a DLR interface sits on."""
        sw = self.typed(point.portgroup, "switch")
        if sw is None or host is None:
            return None
        return self._seg_by_key.get(("sw", sw.id, host, self._dlr_vlan.get(point.nic), None))

    def _nat(self, sw: Any) -> None:
        host = sw.host
        inside_ip = parse_addr(sw.nat_gateway)
        if inside_ip is None or host is None:
            return
        inside_seg = self.switch_segment(sw, host, None)
        net = None
        for pts in self.points.values():
            for p in pts:
                if p.segment == inside_seg and p.iface is not None and inside_ip in p.iface.network:
                    net = p.iface.network
        iface = make_iface(int(inside_ip), net.prefixlen if net else 24)
        device = Device(f"{sw.id}", f"{sw.name} NAT", "nat", host=host)
        device.points.append(Point(inside_seg, iface, None, sw.id, sw.id, f"{sw.name} NAT inside"))
        uplinks = sw.uplinks or [_Uplink(p.id) for p in self.host_pnics(host)]
        out = Point(None, None, None, sw.id, f"{sw.id}:outside", f"{self.host_name(host)} host network")
        up = self.active_uplink(uplinks)
        if up is None:
            out.problem = f"{self.host_name(host)} has no working pNIC for {sw.name}'s NAT"
        else:
            out.segment = self.segment(("nat-outside", sw.id), f"{self.host_name(host)} host network", host, False,
                                       sw.id, None)
            self._attach(out.segment, up.pnic, self.pnic_port(up.pnic), None)
        device.points.append(out)
        self._add_device(device)

    def _patches(self) -> None:
        """Explicit patches between KVM switches (OVS patch port, veth between bridges) join their segments."""
        for link in self.topology.links:
            ka, kb = self.index.kind(link.a), self.index.kind(link.b)
            if ka == kb == "switch":
                a, b = self.index.get(link.a), self.index.get(link.b)
                if a.host and a.host == b.host and {a.kind, b.kind} <= {SwitchKind.OVS, SwitchKind.LINUX_BRIDGE}:
                    self.graph.add_edge(self.switch_segment(a, a.host, None), self.switch_segment(b, b.host, None),
                                        kind="patch")

    def _trunks(self) -> None:
        """Inter-switch links carry a VLAN only when both ports allow it (SEMANTICS 3). ``switch_graph`` keeps
        every inter-switch cable whatever it carries, to explain where a VLAN stops."""
        used = {(s.object_id, s.vlan) for s in self.segments if s.physical}
        vlans = {v for _, v in used}
        for link in self.topology.links:
            pa, pb = self.port.get(link.a), self.port.get(link.b)
            if pa is not None and pb is not None and pa.id != pb.id:
                ends = (self.port_switch[pa.id].id, self.port_switch[pb.id].id)
                if ends[0] != ends[1]:
                    self.switch_graph.add_edge(*ends, ports=(pa.id, pb.id))
            if pa is None or pb is None or not (pa.up and pb.up):
                continue
            sa, sb = self.port_switch[pa.id], self.port_switch[pb.id]
            if pa.mode is PortMode.ACCESS or pb.mode is PortMode.ACCESS:
                va, _ = self.accept(pa, None)
                vb, _ = self.accept(pb, None)
                if va is not None and vb is not None:
                    self.graph.add_edge(self.phys_segment(sa, va), self.phys_segment(sb, vb), kind="trunk",
                                        ports=(pa.id, pb.id))
                continue
            try:
                ra, rb = parse_ranges(pa.allowed), parse_ranges(pb.allowed)
            except VlanError:
                continue
            for v in sorted(vlans | {pa.native_vlan, pb.native_vlan}):
                if not (_carries(ra, v) and _carries(rb, v)):
                    continue
                if (v == pa.native_vlan) != (v == pb.native_vlan):
                    continue  # sent untagged on one side, tagged on the other: handled by the native pair below
                self.graph.add_edge(self.phys_segment(sa, v), self.phys_segment(sb, v), kind="trunk",
                                    ports=(pa.id, pb.id))
            if pa.native_vlan != pb.native_vlan and _carries(ra, pa.native_vlan) and _carries(rb, pb.native_vlan):
                self.graph.add_edge(self.phys_segment(sa, pa.native_vlan), self.phys_segment(sb, pb.native_vlan),
                                    kind="trunk", ports=(pa.id, pb.id))

    def _overlays(self) -> None:
        """NSX segments: every host instance joins the logical switch's tunnel through the host's transport pNIC."""
        for sw in self.topology.switches:
            if sw.kind is not SwitchKind.NSX_SEGMENT:
                continue
            hub = None
            for s in list(self.segments):
                if s.object_id != sw.id or s.physical:
                    continue
                uplinks = [u for u in sw.uplinks if self.host_of_pnic.get(u.pnic) == s.host]
                if not uplinks:
                    uplinks = [_Uplink(p.id) for p in self.host_pnics(s.host)]
                up = self.active_uplink(uplinks, s) if uplinks else None
                if up is None:
                    s.problems.append(f"{self.host_name(s.host)} has no working transport pNIC for {sw.name}")
                    continue
                if hub is None:
                    hub = self.segment(("overlay", sw.id), f"{sw.name} overlay", None, False, sw.id, None)
                self.graph.add_edge(s.id, hub, kind="overlay", pnic=up.pnic)

    def refresh(self, vm_ids: set[str]) -> bool:
        """Recompute these VMs' interfaces after an edit that moved only them (a portgroup's VLAN, a vNIC's
        network). New segments hang off the existing graph as leaves and take their labels from what they
        attach to. False when the edit reaches further (a forwarding VM, a new physical VLAN, a switch kind
        whose segments are not plain leaves): then the caller recompiles."""
        before = len(self.segments)
        for vm_id in vm_ids:
            vm = self.typed(vm_id, "vm")
            if vm is None or vm.role is not VmRole.VM:
                return False
            for nic in vm.vnics:
                if self.index.get(nic.network) is None and nic.network is not None:
                    return False
        for vm_id in vm_ids:
            vm = self.typed(vm_id, "vm")
            self.points[vm_id] = [self._vnic_point(vm, nic) for nic in vm.vnics]
            for nic in vm.vnics:
                self.on_network.setdefault(nic.network, set()).add(vm_id)
        next_label = len(self.segments) + 1 + max((max(s.local, s.domain) for s in self.segments[:before]), default=0)
        for seg in self.segments[before:]:
            sw = self.typed(seg.object_id, "switch")
            if seg.physical or sw is None or sw.kind not in (SwitchKind.VSS, SwitchKind.VDS, SwitchKind.OVS):
                return False
            seg.local = next_label
            next_label += 1
            edges = list(self.graph.edges(seg.id, data=True))
            if not edges:
                seg.domain = next_label
                next_label += 1
                continue
            (_, peer, data), = edges
            seg.domain = self.segments[peer].domain
            seg.has_bridge = self.segments[peer].has_bridge
            seg.attachment = -1 if data["hairpin"] else data["attachment"]
        return True

    def _label(self) -> None:
        """Compute the in-host groups, L2 domains and lone attachments (see the module docstring)."""
        local_graph = nx.Graph()
        local_graph.add_nodes_from(range(len(self.segments)))
        for a, b, data in self.graph.edges(data=True):
            if data["kind"] in ("bridge", "patch"):
                local_graph.add_edge(a, b)
        for gid, comp in enumerate(nx.connected_components(local_graph)):
            atts = set()
            hairpin = False
            for s in comp:
                self.segments[s].local = gid
                if self.segments[s].physical:
                    hairpin = True  # a physical segment is the switch itself, not something behind a port
                for _, peer, data in self.graph.edges(s, data=True):
                    if data["kind"] == "uplink":
                        atts.add(data["attachment"])
                        hairpin |= data["hairpin"]
            att = next(iter(atts)) if len(atts) == 1 and not hairpin else -1
            for s in comp:
                self.segments[s].attachment = att
        for did, comp in enumerate(nx.connected_components(self.graph)):
            bridged = any(d["kind"] == "bridge" for _, _, d in self.graph.edges(comp, data=True))
            for s in comp:
                self.segments[s].domain = did
                self.segments[s].has_bridge = bridged
