"""The objects of a virtual-network design (SEMANTICS.md section 1) as plain dataclasses.

Every object that something else can point at carries an ``id``: a stable identity that survives renames.
References between objects are always ids, never names. The classes hold data only: VLAN notation is read by
``vlan`` (into typed values, on load and on every assignment), the forwarding facts live in ``forwarding``,
what is wrong with a design in ``validate``, the walk in ``vnetbench.predict``. Defaults follow what the real platform does
(vSphere portgroup security: promiscuous reject, MAC changes accept, forged transmits accept).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .vlan import ALL, UNTAGGED, Vlan, VlanField, VlanList


class HostKind(StrEnum):
    """What runs on a host: ESXi, KVM or a desktop hypervisor (hosted)."""

    ESXI = "esxi"
    KVM = "kvm"
    HOSTED = "hosted"


class SwitchKind(StrEnum):
    """The kinds of virtual switch a design can hold; each forwards by its own rules (SEMANTICS.md)."""

    VSS = "vss"
    VDS = "vds"
    LINUX_BRIDGE = "linux-bridge"
    OVS = "ovs"
    MACVTAP = "macvtap"
    HOSTED_BRIDGED = "hosted-bridged"
    HOSTED_HOSTONLY = "hosted-hostonly"
    HOSTED_NAT = "hosted-nat"
    NSX_SEGMENT = "nsx-segment"
    RAW = "raw"


#: Switch kinds whose instances span several member hosts.
MULTI_HOST_SWITCHES = frozenset({SwitchKind.VDS, SwitchKind.NSX_SEGMENT})
#: Switch kinds that have portgroups; the others take vNICs directly on the switch.
PORTGROUP_SWITCHES = frozenset({SwitchKind.VSS, SwitchKind.VDS, SwitchKind.OVS, SwitchKind.NSX_SEGMENT})


class Encapsulation(StrEnum):
    """How an NSX overlay wraps guest frames between hosts (NSX-T: Geneve; NSX for vSphere: VXLAN)."""

    GENEVE = "geneve"
    VXLAN = "vxlan"

    @property
    def label(self) -> str:
        """The encapsulation's name as people write it."""
        return {"geneve": "Geneve", "vxlan": "VXLAN"}[self.value]


class MacvtapMode(StrEnum):
    """How a macvtap switch lets its guests talk to each other and to the pNIC."""

    BRIDGE = "bridge"
    VEPA = "vepa"
    PRIVATE = "private"
    PASSTHROUGH = "passthrough"


class NicType(StrEnum):
    """A vNIC's adapter type: emulated, paravirtual, or passthrough (SR-IOV, DirectPath)."""

    VLANCE = "vlance"
    FLEXIBLE = "flexible"
    E1000 = "e1000"
    E1000E = "e1000e"
    VMXNET2 = "vmxnet2"
    VMXNET3 = "vmxnet3"
    VIRTIO = "virtio"
    RTL8139 = "rtl8139"
    SRIOV = "sriov"            # vSphere SR-IOV passthrough: a virtual function of ``physical_function``
    DIRECTPATH = "directpath"  # vSphere DirectPath I/O: the whole pNIC ``physical_function`` handed to the guest


class VmRole(StrEnum):
    """What a VM does with traffic: ends it (vm), or forwards it (firewall, router, NSX edge)."""

    VM = "vm"
    FIREWALL = "firewall"
    ROUTER = "router"
    NSX_EDGE = "nsx-edge"


class ForwardMode(StrEnum):
    """Whether a forwarding VM routes between its legs or bridges them transparently."""

    ROUTED = "routed"
    BRIDGED = "bridged"


class Action(StrEnum):
    """What a firewall rule does with matching traffic: lets it pass, drops it silently (the sender times
    out), or rejects it (the sender gets a TCP RST or an ICMP unreachable at once). Files written before
    reject existed say ``deny``, which loads as ``drop``."""

    ALLOW = "allow"
    DROP = "drop"
    REJECT = "reject"
    DENY = "drop"   # the old name of drop, kept for code written against it

    @classmethod
    def legacy_spellings(cls) -> dict[str, Action]:
        """Old spellings the file format still reads (the codec and the JSON Schema ask for them)."""
        return {"deny": cls.DROP}


class Proto(StrEnum):
    """The protocol a firewall rule matches."""

    ANY = "any"
    TCP = "tcp"
    UDP = "udp"
    ICMP = "icmp"


class PortMode(StrEnum):
    """Whether a physical switch port carries one VLAN untagged or several tagged."""

    ACCESS = "access"
    TRUNK = "trunk"


class LoadBalancing(StrEnum):
    """How a vSwitch spreads its guests over its active uplinks (vSphere "load balancing")."""

    PORT_ID = "port-id"                # route based on originating virtual port: one uplink per vNIC, chosen at run time
    MAC_HASH = "mac-hash"              # source MAC hash: one uplink per vNIC MAC, chosen at run time
    IP_HASH = "ip-hash"                # (source IP XOR destination IP) mod active uplinks, per flow (KB 2006129)
    FAILOVER_ORDER = "failover-order"  # explicit failover order: the first working active uplink
    LOAD_BASED = "load-based"          # route based on physical NIC load (vDS only): moves vNICs at run time


class FailureDetection(StrEnum):
    """How a vSwitch notices a failed uplink: its own link state, or beacons sent between its uplinks."""

    LINK_STATUS = "link-status"
    BEACON = "beacon-probing"


class LacpMode(StrEnum):
    """How a LAG or port channel negotiates: LACP active, LACP passive, or static (EtherChannel "on")."""

    ACTIVE = "active"
    PASSIVE = "passive"
    STATIC = "static"


class LagHash(StrEnum):
    """What a LAG hashes to choose a member: addresses only (the design fixes the member per pair of addresses),
    or addresses with ports and VLAN (the vDS default: the member depends on each flow's ports)."""

    SRC_DST_IP = "src-dst-ip"
    SRC_DST_IP_PORT_VLAN = "src-dst-ip-port-vlan"


class PvlanType(StrEnum):
    """A secondary VLAN's kind in a private VLAN (promiscuous is the primary VLAN itself)."""

    PROMISCUOUS = "promiscuous"
    ISOLATED = "isolated"
    COMMUNITY = "community"


@dataclass
class Teaming:
    """A vSwitch's (or a portgroup override's) teaming policy; the order of active and standby uplinks is in
    ``uplinks``. ``lag`` names a LAG of the switch that carries the traffic instead of single uplinks."""

    load_balancing: LoadBalancing = LoadBalancing.PORT_ID
    failure_detection: FailureDetection = FailureDetection.LINK_STATUS
    notify_switches: bool = True
    failback: bool = True
    lag: str | None = None


@dataclass
class Lag:
    """A vDS link aggregation group: its member pNICs (on each member host), how it negotiates, and its hash."""

    id: str
    name: str
    pnics: list[str] = field(default_factory=list)
    mode: LacpMode = LacpMode.ACTIVE
    hash: LagHash = LagHash.SRC_DST_IP_PORT_VLAN


@dataclass
class Pvlan:
    """One entry of a private VLAN map: ``secondary`` of ``type`` under ``primary`` (promiscuous: the primary
    itself, secondary == primary)."""

    primary: int
    secondary: int
    type: PvlanType = PvlanType.ISOLATED


@dataclass
class BridgeVlans:
    """A VLAN-filtering Linux bridge port's VLANs, as ``bridge vlan add dev X vid V [pvid] [untagged]`` sets them:
    the VLANs it carries (``vlans``), the one untagged frames join (``pvid``, None: they are dropped), and the ones
    it sends untagged. The default is the kernel's: VLAN 1, pvid, untagged."""

    vlans: VlanList = VlanField(VlanList.read, VlanList.read(1))  # type: ignore[assignment]  # a descriptor, as vlan
    pvid: int | None = 1
    untagged: VlanList = VlanField(VlanList.read, VlanList.read(1))  # type: ignore[assignment]


# --- hosts -------------------------------------------------------------------------------------------


@dataclass
class PNic:
    """A physical NIC. Its cable to a physical switch port is a ``Link``.

    ``ip``/``gateway`` are the host OS's own address on it, where the host OS has one on the LAN (a hosted
    hypervisor's PC, a KVM host): its NAT service sends from that address. ``mtu`` is the largest IP packet the
    NIC sends or takes.
    """

    id: str
    name: str
    speed_mbps: int = 1000
    up: bool = True
    mtu: int = 1500
    ip: str | None = None
    gateway: str | None = None
    addresses: list[str] = field(default_factory=list)
    gateway6: str | None = None


@dataclass
class Tep:
    """An NSX transport node's tunnel endpoint: its address (``address/prefix``) in the transport VLAN (the
    VLAN of the host's transport uplinks) and the gateway that routes it to endpoints in other subnets (per-rack
    TEP subnets in an L3 leaf-spine)."""

    ip: str
    gateway: str | None = None


@dataclass
class Host:
    """A hypervisor host: its pNICs carry its switches' traffic out to the physical network. ``tep``: its NSX
    tunnel endpoint's address, where the overlay runs over a routed transport (none: the endpoints meet at L2)."""

    id: str
    name: str
    kind: HostKind = HostKind.ESXI
    cpus: int = 2
    pnics: list[PNic] = field(default_factory=list)
    tep: Tep | None = None


# --- virtual switches ------------------------------------------------------------------------------


@dataclass
class Uplink:
    """One pNIC in a teaming order. ``vlan`` tags frames on the way out: a Linux bridge enslaving eth0.10, a raw
    socket on eth0.10, or an NSX segment's transport VLAN (the VLAN its tunnel endpoints use on that pNIC).
    ``bridge_vlans``: the pNIC's port VLANs on a VLAN-filtering Linux bridge."""

    pnic: str
    standby: bool = False
    vlan: int | None = None
    bridge_vlans: BridgeVlans | None = None


@dataclass
class Security:
    """Portgroup security policy, vSphere defaults."""

    promiscuous: bool = False
    mac_changes: bool = True
    forged_transmits: bool = True


@dataclass
class Portgroup:
    """A set of switch ports with one policy.

    ``vlan`` is written as the admin knows it for the switch kind: ``0`` or ``none`` (untagged), ``1``..``4094``
    (access), ``4095`` (vSS trunk: all VLANs), ``trunk`` or ``trunk 10-20,30`` (vDS/OVS trunk ranges). The
    model holds it read (``vlan.Vlan``), with its spelling; validation reports what a switch kind does not accept.
    ``uplinks`` and ``teaming`` override the switch's order and policy; ``pvlan`` puts the portgroup on a
    secondary (or the primary) VLAN of the switch's private VLAN map instead of ``vlan``.
    """

    id: str
    name: str
    vlan: Vlan = VlanField(Vlan.read, UNTAGGED)  # type: ignore[assignment]  # a descriptor that holds a Vlan
    native_vlan: int | None = None
    security: Security = field(default_factory=Security)
    uplinks: list[Uplink] | None = None
    teaming: Teaming | None = None
    pvlan: int | None = None


@dataclass
class PortForward:
    """A hosted NAT service's incoming port forward (VMware's ``[incomingtcp]`` / ``[incomingudp]``): ``proto``
    (tcp or udp) packets to ``host_port`` at the host's own LAN address go to the guest ``guest``, port
    ``guest_port`` (none: the same port)."""

    proto: Proto
    host_port: int
    guest: str
    guest_port: int | None = None
    name: str = ""


@dataclass
class Switch:
    """A virtual switch.

    Per-host kinds set ``host``; a vDS or an NSX segment sets ``members`` (one instance per member host) and
    takes uplinks from each member's pNICs (an NSX segment's are its transport pNICs). Kinds without portgroups
    (Linux bridge, macvtap, raw, hosted networks) take vNICs directly: a vNIC's ``network`` then names the switch.
    ``raw`` is qemu's raw AF_PACKET attachment to a host interface (its one uplink; ``vlan`` for eth0.10): no
    switch at all, every guest frame goes out of the pNIC, so guests meet only through a hairpin port (seed 001).
    ``encapsulation`` is an NSX segment's (None: Geneve). ``teaming`` None keeps the explicit failover order of
    ``uplinks`` (what designs without a policy always meant). ``lags`` are a vDS's LACP groups; ``pvlans`` is
    the private VLAN map of a vDS or an Open vSwitch; ``vlan_filtering`` makes a Linux bridge VLAN-aware (its
    ports' ``bridge_vlans``).
    ``port_forwards`` let the LAN reach guests of a hosted NAT network.
    """

    id: str
    name: str
    kind: SwitchKind = SwitchKind.VSS
    host: str | None = None
    members: list[str] = field(default_factory=list)
    uplinks: list[Uplink] = field(default_factory=list)
    mtu: int = 1500
    macvtap_mode: MacvtapMode | None = None
    host_address: str | None = None
    nat_gateway: str | None = None
    vni: int | None = None
    encapsulation: Encapsulation | None = None
    portgroups: list[Portgroup] = field(default_factory=list)
    teaming: Teaming | None = None
    lags: list[Lag] = field(default_factory=list)
    pvlans: list[Pvlan] = field(default_factory=list)
    vlan_filtering: bool = False
    port_forwards: list[PortForward] = field(default_factory=list)


# --- virtual machines --------------------------------------------------------------------------------


@dataclass
class VNic:
    """A guest adapter. ``ip`` is ``address/prefix`` (IPv4 or IPv6); ``addresses`` holds its further ones (the
    other family of a dual-stack vNIC, secondaries, an IPv6 link-local one); ``gateway`` is the gateway of
    ``ip``'s family or of either, ``gateway6`` an IPv6 one beside an IPv4 ``gateway`` (a link-local next hop
    is written ``fe80::1%eth0``). ``guest_vlan`` only on a trunk portgroup (or DirectPath).

    An SR-IOV adapter is a virtual function of the pNIC ``physical_function``: its portgroup (``network``) only
    gives it a VLAN; its frames bypass the virtual switch. A DirectPath adapter is that whole pNIC, owned by the
    guest: it has no ``network``, its frames go straight to the pNIC's switch port.
    """

    id: str
    name: str
    type: NicType = NicType.VMXNET3
    network: str | None = None
    mac: str | None = None
    ip: str | None = None
    gateway: str | None = None
    guest_vlan: int | None = None
    connected: bool = True
    physical_function: str | None = None
    mtu: int = 1500
    uplink: str | None = None
    bridge_vlans: BridgeVlans | None = None
    addresses: list[str] = field(default_factory=list)
    gateway6: str | None = None


@dataclass
class Rule:
    """One firewall rule; ``src``/``dst`` are ``any``, a CIDR, an address, or an object id."""

    action: Action = Action.ALLOW
    src: str = "any"
    dst: str = "any"
    proto: Proto = Proto.ANY
    port: int | str | None = None
    name: str = ""


@dataclass
class Snat:
    """Source NAT on a router or edge VM (an NSX-T Tier-0 / Tier-1 service router, an ESG): packets from
    ``source`` (a CIDR) leaving by ``interface`` (a vNIC, by id or name; none: any) take the address ``to``;
    replies come back through the same translation."""

    source: str
    to: str
    interface: str | None = None
    name: str = ""


@dataclass
class Dnat:
    """Destination NAT (port forwarding) on a router or edge VM: packets to ``address`` (one of its vNICs'
    addresses) of ``proto`` to ``port`` (none: every port) take the destination ``to``, port ``to_port`` (none:
    unchanged); replies go back through the same translation."""

    address: str
    to: str
    proto: Proto = Proto.ANY
    port: int | None = None
    to_port: int | None = None
    name: str = ""


@dataclass
class Forwarding:
    """How a router, firewall or edge VM forwards between its vNICs. First matching rule wins. A routed VM
    sends by its connected subnets, then by the longest of ``routes``, then to its first vNIC gateway (a
    default route after the listed ones)."""

    mode: ForwardMode = ForwardMode.ROUTED
    stateful: bool = True
    default_policy: Action = Action.ALLOW
    rules: list[Rule] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    snat: list[Snat] = field(default_factory=list)
    dnat: list[Dnat] = field(default_factory=list)


@dataclass
class VM:
    """A guest. ``role`` other than ``vm`` makes it forward by ``forwarding``."""

    id: str
    name: str
    host: str | None = None
    role: VmRole = VmRole.VM
    guest_os: str = "debian"
    hardware_version: int = 11
    cpus: int = 1
    vnics: list[VNic] = field(default_factory=list)
    forwarding: Forwarding = field(default_factory=Forwarding)


# --- physical network ------------------------------------------------------------------------------


@dataclass
class Port:
    """A physical switch port. ``allowed`` lists trunk VLANs as ranges (``all``, ``10,20-30``), read into a
    ``vlan.VlanList``. ``mtu`` is the largest IP packet it passes."""

    id: str
    name: str
    mode: PortMode = PortMode.ACCESS
    access_vlan: int = 1
    allowed: VlanList = VlanField(VlanList.read, ALL)  # type: ignore[assignment]  # a descriptor, as vlan
    native_vlan: int = 1
    hairpin: bool = False
    up: bool = True
    mtu: int = 1500


@dataclass
class PortChannel:
    """A port channel (EtherChannel, LAG) of physical switch ports, by id, and how it negotiates."""

    id: str
    name: str
    ports: list[str] = field(default_factory=list)
    mode: LacpMode = LacpMode.STATIC


@dataclass
class PhysicalSwitch:
    """A physical switch: its ports connect pNICs, routers and physical hosts by VLAN.

    ``stack`` names the stack or MLAG domain it forms with others (a port channel may span those);
    ``port_channels`` bundle its ports (or its stack peers'); ``pvlans`` is its private VLAN map (empty: it
    knows none, and carries secondary VLANs as plain VLANs).
    """

    id: str
    name: str
    ports: list[Port] = field(default_factory=list)
    stack: str | None = None
    port_channels: list[PortChannel] = field(default_factory=list)
    pvlans: list[Pvlan] = field(default_factory=list)


@dataclass
class RouterInterface:
    """A routed interface or SVI. ``vlan`` is the tag it uses on its port (``None``: untagged); ``addresses``
    holds its further addresses (the other family, secondaries, an IPv6 link-local one), like a vNIC's."""

    id: str
    name: str
    ip: str | None = None
    vlan: int | None = None
    addresses: list[str] = field(default_factory=list)


@dataclass
class Route:
    """A static route of a router (physical, a router/firewall/edge VM, an NSX DLR): traffic for ``prefix``
    (an IPv4 or IPv6 CIDR, or ``default``: 0.0.0.0/0, or ::/0 when ``via`` is IPv6) goes to the next hop ``via``, out of ``interface`` (an interface
    or vNIC of the router, by id or name) when given, else out of the interface whose subnet holds ``via``."""

    prefix: str
    via: str
    interface: str | None = None


@dataclass
class PhysicalRouter:
    """A router, or an L3 switch when ``switch`` names the physical switch whose VLANs its SVIs sit on."""

    id: str
    name: str
    switch: str | None = None
    interfaces: list[RouterInterface] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)


@dataclass
class HostNic:
    """A physical host's NIC, on a physical switch port: a measure endpoint outside the hypervisors."""

    id: str
    name: str
    ip: str | None = None
    gateway: str | None = None
    mac: str | None = None
    vlan: int | None = None
    addresses: list[str] = field(default_factory=list)
    gateway6: str | None = None


@dataclass
class PhysicalHost:
    """A bare-metal server on a physical switch port (a measurement endpoint outside the hypervisors)."""

    id: str
    name: str
    nics: list[HostNic] = field(default_factory=list)


@dataclass
class Link:
    """A cable or patch between two endpoints, by id.

    pNIC - switch port (an uplink cable), port - port (a trunk between physical switches), router interface
    or physical host NIC - port, and virtual switch - virtual switch (a patch; only OVS/Linux bridges on KVM).
    ``speed_mbps`` is a trunk's speed when it is slower than what it joins (None: not a limit).
    """

    id: str
    a: str
    b: str
    speed_mbps: int | None = None


# --- NSX --------------------------------------------------------------------------------------------


@dataclass
class DlrInterface:
    """A distributed logical router's leg on an NSX segment; ``addresses`` as a router interface's."""

    id: str
    name: str
    network: str
    ip: str
    addresses: list[str] = field(default_factory=list)


@dataclass
class Dlr:
    """NSX distributed router: an instance in every member host's kernel, routing on the source host. NSX-V's
    DLR, or (``tier`` 1 or 0) the distributed router of an NSX-T Tier-1 / Tier-0 gateway, whose service router
    (``service_router``: an edge node, a VM of role nsx-edge) holds what cannot be distributed: a Tier-0's
    uplinks to the physical routers, NAT, the gateway firewall."""

    id: str
    name: str
    interfaces: list[DlrInterface] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    tier: int | None = None
    service_router: str | None = None


@dataclass
class DfwRule:
    """An NSX distributed firewall rule, enforced at each vNIC in ``applied_to`` (empty: every vNIC)."""

    action: Action = Action.ALLOW
    src: str = "any"
    dst: str = "any"
    proto: Proto = Proto.ANY
    port: int | str | None = None
    name: str = ""
    applied_to: list[str] = field(default_factory=list)


@dataclass
class Dfw:
    """NSX's distributed firewall: rules applied at every guest's vNIC."""

    default_policy: Action = Action.ALLOW
    stateful: bool = True
    rules: list[DfwRule] = field(default_factory=list)


@dataclass
class Nsx:
    """The NSX parts of a design: distributed routers and the distributed firewall."""

    dlrs: list[Dlr] = field(default_factory=list)
    dfw: Dfw = field(default_factory=Dfw)


# --- canvas geometry, kept apart from the semantics ---------------------------------------------------


@dataclass
class Place:
    """Where an object sits on the canvas; kept apart from what the design means."""

    x: float = 0.0
    y: float = 0.0
    w: float | None = None
    h: float | None = None
    color: str | None = None


@dataclass
class Note:
    """A free text note on the canvas, for the people reading the diagram."""

    id: str
    text: str = ""
    x: float = 0.0
    y: float = 0.0
    w: float | None = None
    h: float | None = None
    color: str | None = None


@dataclass
class Layout:
    """The canvas geometry of a design: places by object id, and notes."""

    places: dict[str, Place] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)


# --- the whole design ------------------------------------------------------------------------------

FORMAT_VERSION = 1


@dataclass
class Topology:
    """A design: what exists (the semantic part) plus where it is drawn (``layout``)."""

    id: str
    name: str = "untitled"
    description: str = ""
    format_version: int = FORMAT_VERSION
    calibration: str | None = None
    hosts: list[Host] = field(default_factory=list)
    switches: list[Switch] = field(default_factory=list)
    vms: list[VM] = field(default_factory=list)
    physical_switches: list[PhysicalSwitch] = field(default_factory=list)
    physical_routers: list[PhysicalRouter] = field(default_factory=list)
    physical_hosts: list[PhysicalHost] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    nsx: Nsx = field(default_factory=Nsx)
    layout: Layout = field(default_factory=Layout)


#: The model's vocabulary: every class and constant above (what ``from vnetbench.model import *`` gives).
__all__ = ["FORMAT_VERSION", "MULTI_HOST_SWITCHES", "PORTGROUP_SWITCHES", "HostKind", "SwitchKind", "Encapsulation",
           "MacvtapMode", "NicType", "VmRole", "ForwardMode", "Action", "Proto", "PortMode", "LoadBalancing",
           "FailureDetection", "LacpMode", "LagHash", "PvlanType", "Teaming", "Lag", "Pvlan", "BridgeVlans", "PortChannel", "PNic",
           "Host", "Uplink", "Security", "Portgroup", "Switch", "VNic", "Rule", "Forwarding", "VM", "Port",
           "PhysicalSwitch", "RouterInterface", "Route", "PhysicalRouter", "HostNic", "PhysicalHost",
           "Link", "Tep", "Snat", "Dnat", "PortForward", "DlrInterface", "Dlr", "DfwRule", "Dfw", "Nsx", "Place", "Note", "Layout", "Topology"]
