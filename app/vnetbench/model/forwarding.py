"""The forwarding facts: where a frame may go at layer 2, and how large it may be. The one copy of the rules.

Prediction (``vnetbench.predict``), validation and every backend (the local lab's desired state, KVM,
vSphere) ask these questions here and keep no copy of the answers' logic:

- which segment a vNIC's frames join (``Fabric.place``), SEMANTICS §2;
- what a physical port does with tagged and untagged frames (``ingress``, ``egress``, ``trunk_vlan``), §3;
- which uplink carries a segment (``Fabric.teaming``, ``Fabric.active_uplink``, ``Fabric.wire``), §3;
- when a frame may leave and come back through one port (``returns_through``), §3;
- how an NSX overlay reaches another host (``Fabric.transport``: the transport pNIC and VLAN), §2 and §3;
- how large a packet gets through (``overlay_overhead``, ``inner_mtu``), forwarding-rules.md "MTU".

"SEMANTICS" is the forwarding specification; ``resources/docs/forwarding-rules.md`` tells the same rules in
the product's own words, section by section. Sentences returned here (why a frame is dropped) are the ones
prediction shows, so every consumer words a fact the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .index import Index
from .objects import (
    MULTI_HOST_SWITCHES, VM, BridgeVlans, Encapsulation, Lag, LagHash, LoadBalancing, MacvtapMode, NicType,
    PhysicalSwitch, PNic, Port, Portgroup, PortMode, Pvlan, PvlanType, Switch, SwitchKind, Teaming, Topology, Uplink,
    VNic,
)
from .vlan import VlanMode

#: Switches whose segments are one per VLAN (their portgroups choose the VLAN), SEMANTICS §2.
VLAN_SWITCHES = frozenset({SwitchKind.VSS, SwitchKind.VDS, SwitchKind.OVS, SwitchKind.NSX_SEGMENT})
#: Switches that tag frames on their uplinks with the segment's VLAN (the others send what the uplink says).
TAGGING_SWITCHES = frozenset({SwitchKind.VSS, SwitchKind.VDS, SwitchKind.OVS})
#: Switches whose segments meet others only through their uplink (unless patched): a new VLAN segment of one
#: is a leaf of the layer-2 graph.
LEAF_SWITCHES = frozenset({SwitchKind.VSS, SwitchKind.VDS, SwitchKind.OVS})
#: Attachments where each guest sits alone behind the pNIC (macvtap's non-bridge modes, a raw socket), §2.
PER_GUEST = frozenset({SwitchKind.MACVTAP, SwitchKind.RAW})
#: Switches without a layer-2 uplink: host-only and NAT stay in the host, an NSX segment tunnels (§2).
NO_UPLINK = frozenset({SwitchKind.HOSTED_HOSTONLY, SwitchKind.HOSTED_NAT, SwitchKind.NSX_SEGMENT})
#: Switches that choose one active uplink among several (teaming, §3): all but the per-guest attachments (one
#: pNIC) and those without an uplink.
TEAMING_SWITCHES = frozenset(SwitchKind) - PER_GUEST - NO_UPLINK
#: vNIC types whose frames bypass the virtual switch.
BYPASS_TYPES = frozenset({NicType.SRIOV, NicType.DIRECTPATH})
#: Switches that may hold a private VLAN map (``Switch.pvlans``): a vDS natively; Open vSwitch has no private VLANs
#: of its own, but admins build them from OpenFlow rules, so a design may give one a map too.
PVLAN_SWITCHES = frozenset({SwitchKind.VDS, SwitchKind.OVS})
#: Switches of one KVM host that a patch joins (an OVS patch port pair, a veth between bridges), §2.
PATCHABLE_SWITCHES = frozenset({SwitchKind.OVS, SwitchKind.LINUX_BRIDGE})

#: Bytes an overlay adds to a guest packet (inner Ethernet header + tunnel header + outer UDP and IPv4):
#: VXLAN 14 + 8 + 8 + 20 = 50; Geneve the same with at least one 4-byte option, as NSX sends it.
OVERLAY_OVERHEAD = {Encapsulation.VXLAN: 50, Encapsulation.GENEVE: 54}
#: The guest packet every overlay must carry unfragmented (a standard 1500-byte MTU).
STANDARD_MTU = 1500


# --- what a port does with a frame (SEMANTICS §3) ----------------------------------------------------------


def ingress(port: Port, tag: int | None) -> int | None:
    """The VLAN a frame arriving with ``tag`` (None: untagged) joins on ``port``, or None when dropped.

    SEMANTICS §3: an access port takes untagged frames into its access VLAN and drops tagged ones; a trunk
    takes a tagged frame when it allows the tag, and an untagged one into its native VLAN only when the allowed
    list carries the native VLAN too.
    """
    if port.mode is PortMode.ACCESS:
        return port.access_vlan if tag is None else None
    vlan = port.native_vlan if tag is None else tag
    return vlan if port.allowed.carries(vlan) else None


def ingress_problem(port: Port, tag: int | None, label: str) -> str:
    """Why ``port`` (named ``label``) drops a frame with ``tag``, in one sentence (see ``ingress``)."""
    if port.mode is PortMode.ACCESS:
        return f"{label} is an access port in VLAN {port.access_vlan}, so it drops frames tagged VLAN {tag}"
    if not port.allowed.valid:
        return f"{label} has an unreadable allowed VLAN list {port.allowed.text!r}"
    what = f"its native VLAN {port.native_vlan} for untagged frames" if tag is None else f"VLAN {tag}"
    return f"{label} does not allow {what}"


def egress(port: Port, vlan: int) -> tuple[bool, int | None]:
    """Whether ``port`` sends frames of its switch's ``vlan`` out, and with which tag (None: untagged), §3.

    The mirror of ``ingress``: an access port sends its access VLAN untagged; a trunk sends an allowed VLAN
    tagged, except its native VLAN, which it sends untagged (and only when allowed).
    """
    if port.mode is PortMode.ACCESS:
        return vlan == port.access_vlan, None
    if not port.allowed.carries(vlan):
        return False, None
    return True, (None if vlan == port.native_vlan else vlan)


def trunk_vlan(a: Port, b: Port, vlan: int) -> int | None:
    """The VLAN of ``b``'s switch that VLAN ``vlan`` of ``a``'s switch joins over the cable a-b, or None.

    SEMANTICS §3: physical switches joined by a cable extend a VLAN only when it crosses both ways (out of one
    port, into the other, and back), so a native-VLAN mismatch joins the two native VLANs and nothing else
    one-way. Both ports must be up.
    """
    if not (a.up and b.up):
        return None
    sent, tag = egress(a, vlan)
    other = ingress(b, tag) if sent else None
    if other is None:
        return None
    back, back_tag = egress(b, other)
    return other if back and ingress(a, back_tag) == vlan else None


def filters_vlans(sw: Switch | None) -> bool:
    """A Linux bridge with VLAN filtering: each port's VLAN list (VID, PVID, untagged) decides a frame's VLAN,
    not a portgroup or a sub-interface."""
    return sw is not None and sw.kind is SwitchKind.LINUX_BRIDGE and sw.vlan_filtering


def uplink_tag(sw: Switch, up: Uplink, vlan: int | None) -> int | None:
    """The tag a frame of ``sw``'s segment in ``vlan`` carries out of uplink ``up`` (None: untagged), §3: a
    tagging switch sends the segment's VLAN, a VLAN-filtering bridge as its uplink port's VLANs say, the others
    what the uplink says (a Linux bridge on eth0.10: 10)."""
    if filters_vlans(sw) and vlan is not None:
        return bridge_egress(up.bridge_vlans, vlan)[1]
    return vlan if sw.kind in TAGGING_SWITCHES else up.vlan


def returns_through(port: Port, routed: bool = False) -> bool:
    """Whether a frame that entered a switch through ``port`` may be sent back out of it (a u-turn), §3.

    A switch never bridges a frame back out of the port it came in on, unless the port has hairpin
    (reflective relay) on; a routed frame is a new frame, which a router may send back (router on a stick).
    """
    return routed or port.hairpin


def guests_meet_inside(sw: Switch) -> bool:
    """Whether guests of one per-guest attachment reach each other inside the host (macvtap bridge mode), §2.
    A raw AF_PACKET socket behaves like VEPA: every frame leaves through the pNIC (seed 001)."""
    return sw.kind is SwitchKind.MACVTAP and sw.macvtap_mode is MacvtapMode.BRIDGE


def reflection_reaches_guests(sw: Switch) -> bool:
    """Whether a hairpinned frame comes back to the other guests of a per-guest attachment, §2.

    macvtap ``private`` drops frames from its own guests even when the switch reflects them.
    """
    return not (sw.kind is SwitchKind.MACVTAP and sw.macvtap_mode is MacvtapMode.PRIVATE)


# --- MTU (forwarding-rules.md "MTU") --------------------------------------------------------------------------


def overlay_overhead(sw: Switch) -> int:
    """Bytes the overlay of NSX segment ``sw`` adds to every guest packet between hosts."""
    return OVERLAY_OVERHEAD[sw.encapsulation or Encapsulation.GENEVE]


def inner_mtu(sw: Switch, transport_mtu: int) -> int:
    """The largest guest packet an overlay carries when its transport path takes ``transport_mtu``."""
    return transport_mtu - overlay_overhead(sw)


def patchable(a: Switch, b: Switch) -> bool:
    """Whether a link between switches ``a`` and ``b`` is a patch the host can make: both OVS bridges or Linux
    bridges of one KVM host."""
    return a.kind in PATCHABLE_SWITCHES and b.kind in PATCHABLE_SWITCHES and bool(a.host) and a.host == b.host


def patch_problem(link_id: str, a: Switch, b: Switch) -> str | None:
    """Why a link between switches ``a`` and ``b`` is no patch (``patchable``), in the words every backend uses."""
    if patchable(a, b):
        return None
    return (f"link {link_id}: only Linux bridges and OVS switches of one host can be patched together, not "
            f"{a.name} ({a.kind.value}) and {b.name} ({b.kind.value})")


def patch_segments(a: Switch, b: Switch, vlan: int | None) -> tuple[SegmentKey, SegmentKey] | None:
    """The segments of ``a`` and ``b`` that VLAN ``vlan`` joins over a patch between them, or None (§2).

    A patch port without a tag trunks every VLAN (ovs-vswitchd.conf.db(5)), so between two OVS bridges each
    VLAN joins the same VLAN on the other side: br-int's VLAN 10 reaches br-phys's VLAN 10 and its uplink. A
    Linux bridge has one untagged segment, which joins the other side's untagged segment only.
    """
    tagged = vlan is not None
    if tagged and not (a.kind in VLAN_SWITCHES and b.kind in VLAN_SWITCHES):
        return None
    return SegmentKey(a.id, a.host, vlan), SegmentKey(b.id, b.host, vlan)


def shares_embedded_switch(vf: Wire, other: Wire) -> bool:
    """Whether an SR-IOV VF's segment and another segment meet inside the NIC: they leave through the same pNIC
    in the same VLAN, and the NIC's embedded switch joins its VFs with its own (physical function's) traffic."""
    return vf.pnic is not None and vf.pnic == other.pnic and vf.tag == other.tag


# --- teaming, LAGs, private VLANs, VLAN-filtering bridges (forwarding-rules.md "Teaming") ------------------

#: Load-balancing policies under which the platform, not the design, puts each vNIC on an uplink at run time.
RUN_TIME_CHOICE = frozenset({LoadBalancing.PORT_ID, LoadBalancing.MAC_HASH, LoadBalancing.LOAD_BASED})
#: The explicit failover order: what a switch without a teaming policy has always meant in a design.
FAILOVER = Teaming(load_balancing=LoadBalancing.FAILOVER_ORDER)


def teaming_policy(sw: Switch, pg: Portgroup | None = None) -> Teaming:
    """The policy that applies to ``pg``'s vNICs on ``sw``: the portgroup's override, else the switch's, else the
    explicit failover order (a design without a policy keeps its old meaning)."""
    if pg is not None and pg.teaming is not None:
        return pg.teaming
    return sw.teaming if sw.teaming is not None else FAILOVER


def ip_hash_index(src: int, dst: int, uplinks: int) -> int:
    """The uplink (index among the working active ones) ESXi's IP hash sends a packet from ``src`` to ``dst``
    (IPv4 addresses as ints) through: the last octets of the two addresses XORed, modulo the number of uplinks
    (VMware KB 2006129; vSphere Networking, "Route Based on IP Hash"). A reply hashes to the same uplink."""
    return ((src & 0xFF) ^ (dst & 0xFF)) % uplinks if uplinks > 0 else -1


def lag_fixes_member(lag: Lag) -> bool:
    """Whether the design fixes a LAG member per pair of addresses (a hash of addresses only); with ports in
    the hash, each flow may take another member."""
    return lag.hash is LagHash.SRC_DST_IP


def uplink_choice_at_run_time(policy: Teaming, lag: Lag | None = None) -> bool:
    """Whether the platform chooses the uplink (or LAG member) at run time, so an unpinned vNIC may take any of
    the candidates: a spreading policy, or a LAG that hashes ports too."""
    if lag is not None:
        return not lag_fixes_member(lag)
    return policy.load_balancing in RUN_TIME_CHOICE


def pvlan_entry(pvlans: list[Pvlan], vlan: int | None) -> Pvlan | None:
    """The private VLAN map entry of ``vlan`` (a secondary, or a primary's promiscuous entry), or None."""
    if vlan is None:
        return None
    for entry in pvlans:
        if entry.secondary == vlan:
            return entry
    return None


def pvlan_may_talk(a: Pvlan | None, b: Pvlan | None) -> bool:
    """Whether ports on secondary VLANs ``a`` and ``b`` of one primary exchange frames: isolated ports only with
    promiscuous ones; community ports with their own community and promiscuous ones; promiscuous with all.
    Ports outside any private VLAN (None) are not limited here (their VLANs decide)."""
    if a is None or b is None:
        return True
    if a.primary != b.primary:
        return False
    if PvlanType.PROMISCUOUS in (a.type, b.type):
        return True
    return a.type is PvlanType.COMMUNITY and b.type is PvlanType.COMMUNITY and a.secondary == b.secondary


#: Private VLAN labels (``pvlan_label``) give each primary VLAN a span of this many values.
PVLAN_SPAN = 8192


def pvlan_label(entry: Pvlan | None) -> int:
    """A segment's private VLAN role as one number the decision core compares (``decide.pvlan_allows``):
    -1 outside any private VLAN; else primary * ``PVLAN_SPAN`` plus 0 (promiscuous), 1 (isolated) or
    2 + the secondary VLAN (community)."""
    if entry is None:
        return -1
    role = {PvlanType.PROMISCUOUS: 0, PvlanType.ISOLATED: 1}.get(entry.type, 2 + entry.secondary)
    return entry.primary * PVLAN_SPAN + role


def pvlan_port(sw: Switch, pg: Portgroup | None) -> bool:
    """Whether ``pg`` is a private VLAN port of ``sw``: a portgroup of a vDS or OVS switch (``PVLAN_SWITCHES``)
    naming a secondary of the switch's map. Its frames carry the secondary inside the switch and on the wire
    (its own ``vlan`` does not apply)."""
    return pg is not None and pg.pvlan is not None and sw.kind in PVLAN_SWITCHES \
        and pvlan_entry(sw.pvlans, pg.pvlan) is not None


def pvlan_segment_entry(sw: Switch | None, vlan: int | None) -> Pvlan | None:
    """The private VLAN map entry a segment of ``sw`` in ``vlan`` belongs to (its ports' role), or None: only a
    vDS or an OVS switch holds private VLANs (``PVLAN_SWITCHES``), and every VLAN of its map is one (a plain
    portgroup may not use one)."""
    if sw is None or sw.kind not in PVLAN_SWITCHES or not sw.pvlans:
        return None
    return pvlan_entry(sw.pvlans, vlan)


def pvlan_vlans(pvlans: list[Pvlan], primary: int) -> list[int]:
    """Every VLAN of private VLAN ``primary`` (the primary and its secondaries): a vDS takes all of them on its
    uplinks and hands each frame to the ports its sender's role may reach."""
    return sorted({e.secondary for e in pvlans if e.primary == primary} | {primary})


def pvlan_role_words(entry: Pvlan) -> str:
    """A port's role in words: ``isolated secondary VLAN 101 of private VLAN 100``."""
    if entry.type is PvlanType.PROMISCUOUS:
        return f"promiscuous primary VLAN {entry.primary} of private VLAN {entry.primary}"
    return f"{entry.type.value} secondary VLAN {entry.secondary} of private VLAN {entry.primary}"


def pvlan_refusal(a: Pvlan, b: Pvlan) -> str:
    """Why ports of roles ``a`` and ``b`` exchange no frame (``pvlan_may_talk`` is False), in one clause."""
    if a.primary != b.primary:
        return f"they are in different private VLANs ({a.primary} and {b.primary}), which never meet at layer 2"
    if PvlanType.ISOLATED in (a.type, b.type):
        return "an isolated port talks only to promiscuous ports"
    return "a community port talks only to its own community and to promiscuous ports"


def pvlan_wire_vlans(entry: Pvlan) -> tuple[int, int]:
    """The VLANs a private VLAN port's frames use between hosts: (sent on, received on). A promiscuous port
    sends on the primary and hears every secondary; the others send on their secondary and hear the primary."""
    if entry.type is PvlanType.PROMISCUOUS:
        return entry.primary, entry.secondary
    return entry.secondary, entry.primary


def bridge_ingress(vlans: BridgeVlans | None, tag: int | None) -> int | None:
    """The VLAN a frame arriving with ``tag`` joins on a VLAN-filtering Linux bridge port, or None when the port
    drops it: an untagged frame joins the port's PVID (none: dropped), a tagged one its tag when the port
    carries it (``bridge vlan``; no configuration is the kernel's VLAN 1 pvid untagged)."""
    vlans = vlans or BridgeVlans()
    if tag is None:
        return vlans.pvid if vlans.pvid is not None and vlans.vlans.carries(vlans.pvid) else None
    return tag if vlans.vlans.carries(tag) else None


def filtering_port_vlan(sw: Switch, nic: VNic, who: str) -> tuple[int | None, str]:
    """The VLAN a guest's frames join on VLAN-filtering Linux bridge ``sw`` (its port's ``bridge_vlans``), or
    why the bridge drops them, or why the guest cannot read what comes back (the port sends that VLAN tagged
    to a guest that sends untagged, or the other way round)."""
    vlan = bridge_ingress(nic.bridge_vlans, nic.guest_vlan)
    sent = "untagged frames" if nic.guest_vlan is None else f"frames tagged VLAN {nic.guest_vlan}"
    if vlan is None:
        return None, f"{who}'s port on {sw.name} drops its {sent} (its bridge VLANs do not take them)"
    back = bridge_egress(nic.bridge_vlans, vlan)
    if back != (True, nic.guest_vlan):
        how = "untagged" if back[1] is None else f"tagged VLAN {back[1]}"
        return None, (f"{who}'s port on {sw.name} puts its {sent} in VLAN {vlan} but sends VLAN {vlan} back "
                      f"{how}, which the guest does not read; set the port's untagged flag to match the guest")
    return vlan, ""


def filtering_uplink_problem(sw: Switch, up: Uplink, vlan: int | None) -> str | None:
    """Why VLAN-filtering bridge ``sw`` does not carry ``vlan`` both ways through uplink ``up`` (its port's
    ``bridge_vlans``), or None."""
    if vlan is None:
        return None
    sent, tag = bridge_egress(up.bridge_vlans, vlan)
    if not sent or bridge_ingress(up.bridge_vlans, tag) != vlan:
        return f"{sw.name}'s port for {up.pnic} does not carry VLAN {vlan} both ways (its bridge VLANs)"
    return None


def bridge_egress(vlans: BridgeVlans | None, vlan: int) -> tuple[bool, int | None]:
    """Whether a VLAN-filtering bridge port sends frames of ``vlan`` out, and with which tag (None: untagged)."""
    vlans = vlans or BridgeVlans()
    if not vlans.vlans.carries(vlan):
        return False, None
    return True, (None if vlans.untagged.valid and vlans.untagged.carries(vlan) else vlan)


# --- places, wires and transports --------------------------------------------------------------------------


class UplinkFault(StrEnum):
    """Why an uplink cannot carry traffic; the value is the words that follow its name."""
    NOT_A_PNIC = "is not a pNIC of this host"
    DOWN = "is down"
    UNCABLED = "is not cabled to a switch port"
    PORT_DOWN = "plugs into a switch port that is down"


class Switching(StrEnum):
    """What switches a segment's frames inside the host."""

    VIRTUAL = "virtual"      # a virtual switch (``SegmentKey.switch`` is its id)
    EMBEDDED = "embedded"    # a pNIC's embedded switch joining its SR-IOV virtual functions (the pNIC's id)
    DIRECT = "direct"        # nothing: a DirectPath guest owns the pNIC (the pNIC's id)


#: ``SegmentKey.uplink`` of vNICs whose uplink the platform chooses among uplinks leading to different networks.
RUN_TIME_UPLINK = "*"


@dataclass(frozen=True)
class SegmentKey:
    """One broadcast domain inside one switching instance (SEMANTICS §2).

    ``switch`` is the virtual switch's id, or a pNIC's (``switching`` says which). ``vlan`` is the VLAN the
    frames carry inside it (for DirectPath: the guest's own tag). ``guest`` is the vNIC that sits alone in the
    segment (macvtap VEPA/private/passthrough, a raw socket, DirectPath). ``uplink`` is the pNIC the segment's
    vNICs leave through when teaming puts them on one (a pin, or one of the uplinks the platform may choose),
    ``RUN_TIME_UPLINK`` for vNICs whose possible uplinks lead to different networks; None: the failover order.
    """

    switch: str
    host: str | None
    vlan: int | None
    guest: str | None = None
    switching: Switching = Switching.VIRTUAL
    uplink: str | None = None


@dataclass(frozen=True)
class Place:
    """The segment a vNIC's frames join, with the portgroup it sits on, or why its frames go nowhere.

    ``invalid`` marks a problem of the design itself (validation reports it); otherwise the problem is a
    forwarding outcome (the switch drops the guest's tag, the vNIC is disconnected).
    """

    segment: SegmentKey | None = None
    portgroup: str | None = None
    problem: str = ""
    invalid: bool = False


@dataclass(frozen=True)
class Wire:
    """Where frames meet the physical network: out of ``pnic`` (an ``uplink``) into ``port``, tagged ``tag``,
    joining the physical switch's ``vlan``; ``problems`` say why they do not (``pnic`` None)."""

    pnic: str | None = None
    port: Port | None = None
    tag: int | None = None
    vlan: int | None = None
    uplink: Any = None
    problems: tuple[str, ...] = ()


class UplinkChooser(StrEnum):
    """Who decides which of a vNIC's candidate uplinks carries its traffic."""

    PIN = "pinned"                     # the design pins the vNIC to one uplink
    ORDER = "failover order"           # the first working active uplink (one candidate)
    ADDRESS_HASH = "address hash"      # IP hash or a LAG hashing addresses: fixed per pair of addresses
    RUN_TIME = "the platform at run time"   # port ID, MAC hash, load-based, a LAG hashing ports


@dataclass(frozen=True)
class UplinkChoice:
    """The uplinks a vNIC's traffic may leave through (``Fabric.vnic_uplinks``) and who chooses among them.
    ``lag`` is the LAG they belong to, if any; ``problems`` why other uplinks are not candidates."""

    uplinks: tuple[Any, ...] = ()
    chooser: UplinkChooser = UplinkChooser.ORDER
    problems: tuple[str, ...] = ()
    lag: Lag | None = None

    @property
    def depends_on_run_time(self) -> bool:
        """Whether the platform picks one of several uplinks at run time (the design cannot say which)."""
        return self.chooser is UplinkChooser.RUN_TIME and len(self.uplinks) > 1

    def for_pair(self, src: int | None, dst: int | None) -> Any:
        """The uplink an address hash gives the pair (IPv4 ints), or the one uplink; None when it depends on
        the run time or an address is missing."""
        if len(self.uplinks) == 1:
            return self.uplinks[0]
        if self.chooser is UplinkChooser.ADDRESS_HASH and src is not None and dst is not None:
            return self.uplinks[ip_hash_index(src, dst, len(self.uplinks))]
        return None


class Fabric:
    """One design's cabling (what plugs into what) and the facts that depend on it.

    Built once per design state; prediction, validation and the backends ask it instead of walking links.
    """

    def __init__(self, topology: Topology, index: Index | None = None) -> None:
        self.topology = topology
        self.index = index or Index(topology)
        self.host_of_pnic: dict[str, str] = {}
        self.pnic: dict[str, PNic] = {}
        self.port: dict[str, Port] = {}
        self.port_switch: dict[str, PhysicalSwitch] = {}
        # By kind, not through the index: a damaged design may give a host and a switch one id.
        self.switch: dict[str, Switch] = {}
        for sw in topology.switches:
            self.switch.setdefault(sw.id, sw)
        self.peers: dict[str, list[str]] = {}
        self._by_host: dict[str, dict[str | None, list[Uplink]]] = {}
        self._members: dict[str, frozenset[str]] = {}
        self._overrides: dict[str, list[tuple[Portgroup, list[Uplink]]]] = {}   # portgroups with their own order
        self._patches: list[tuple[Switch, Switch]] | None = None
        self._chain: dict[str, str] | None = None
        self._port_of: dict[str, Port | None] = {}        # asked once per new segment of an edit moving VMs
        self._faults: dict[str, tuple[UplinkFault, Port | None] | None] = {}
        for host in topology.hosts:
            for pnic in host.pnics:
                self.host_of_pnic[pnic.id] = host.id
                self.pnic[pnic.id] = pnic
        for ps in topology.physical_switches:
            for port in ps.ports:
                self.port_switch[port.id] = ps
                self.port[port.id] = port
        for link in topology.links:
            self.peers.setdefault(link.a, []).append(link.b)
            self.peers.setdefault(link.b, []).append(link.a)

    # --- names and cables -----------------------------------------------------------------------------------

    def name_of(self, obj_id: str | None) -> str:
        """What a person calls an object: its name, else its id."""
        return str(getattr(self.index.get(obj_id), "name", obj_id))

    def port_label(self, port: Port) -> str:
        """A physical switch port in words: ``port Gi1/0/1 of core-sw1``."""
        return f"port {port.name} of {self.port_switch[port.id].name}"

    def pnic_label(self, pnic_id: str) -> str:
        """A pNIC in words: ``esx01/vmnic0``."""
        pnic = self.pnic.get(pnic_id)
        return f"{self.name_of(self.host_of_pnic.get(pnic_id))}/{pnic.name if pnic else pnic_id}"

    def port_of(self, obj_id: str) -> Port | None:
        """The physical switch port cabled to ``obj_id`` (a pNIC, router interface or host NIC)."""
        if obj_id in self._port_of:
            return self._port_of[obj_id]
        found = next((port for port in map(self.port.get, self.peers.get(obj_id, ())) if port is not None), None)
        self._port_of[obj_id] = found
        return found

    def pvlan_aware_ports(self, topology: Topology) -> list[tuple[str, PhysicalSwitch, Pvlan]]:
        """Endpoints (physical host NICs, router interfaces) on ports of a physical switch whose private VLAN map
        holds the VLAN they land in: that switch enforces the role on them (forwarding-rules.md "Private
        VLANs"). Each as (who, in words; the switch; the map entry)."""
        ends = [(f"physical host {h.name} NIC {n.name}", n.id, n.vlan) for h in topology.physical_hosts
                for n in h.nics]
        ends += [(f"router {r.name} interface {i.name}", i.id, i.vlan) for r in topology.physical_routers
                 for i in r.interfaces]
        out = []
        for who, obj_id, tag in ends:
            port = self.port_of(obj_id)
            ps = self.port_switch.get(port.id) if port is not None else None
            vlan = ingress(port, tag) if port is not None else None
            entry = pvlan_entry(ps.pvlans, vlan) if ps is not None else None
            if ps is not None and entry is not None:
                out.append((who, ps, entry))
        return out

    def host_pnics(self, host_id: str | None) -> list[PNic]:
        """The pNICs of a host (none when the id is no host)."""
        host = self.index.get(host_id) if self.index.kind(host_id) == "host" else None
        return list(host.pnics) if host is not None else []

    def members(self, sw: Switch) -> frozenset[str]:
        """A multi-host switch's member hosts as a set (a vDS spans hundreds: placing each vNIC scanned them)."""
        found = self._members.get(sw.id)
        if found is None:
            found = self._members[sw.id] = frozenset(sw.members)
        return found

    def switch_hosts(self, sw: Switch) -> list[str]:
        """The hosts a switch lives on: its members when it spans hosts, else its one host."""
        return list(sw.members) if sw.kind in MULTI_HOST_SWITCHES else ([sw.host] if sw.host else [])

    def patches(self) -> list[tuple[Switch, Switch]]:
        """The patches of the design (links between two switches that ``patchable`` allows)."""
        if self._patches is None:
            self._patches = []
            for link in self.topology.links:
                a, b = self.switch.get(link.a), self.switch.get(link.b)
                if a is not None and b is not None and self.index.kind(link.a) == self.index.kind(link.b) == "switch" \
                        and patchable(a, b):
                    self._patches.append((a, b))
        return self._patches

    def patch_chain(self, switch_id: str) -> str:
        """One switch standing for every switch joined to ``switch_id`` by a chain of patches."""
        if self._chain is None:
            self._chain = {}
            for a, b in self.patches():
                self._chain.setdefault(a.id, a.id)
                self._chain.setdefault(b.id, b.id)
                self._chain[self.patch_chain(a.id)] = self.patch_chain(b.id)
        while self._chain.get(switch_id, switch_id) != switch_id:
            switch_id = self._chain[switch_id]
        return switch_id

    def patched_segments(self, used: Any) -> list[tuple[SegmentKey, SegmentKey]]:
        """The segment pairs the patches join, for the segments ``used`` (keys): every VLAN in use on any switch
        of a chain of patches crosses each patch of the chain (``patch_segments``), and so does the untagged one.
        """
        vlans: dict[str, set[int | None]] = {}
        for key in used:
            if key.switching is Switching.VIRTUAL and key.guest is None:
                vlans.setdefault(self.patch_chain(key.switch), {None}).add(key.vlan)
        pairs = []
        for a, b in self.patches():
            for vlan in sorted(vlans.get(self.patch_chain(a.id), {None}), key=lambda v: -1 if v is None else v):
                pair = patch_segments(a, b, vlan)
                if pair is not None:
                    pairs.append(pair)
        return pairs

    def leaves_through_patch(self, sw: Switch) -> bool:
        """Whether ``sw`` has no uplink of its own but a patch chain to a switch that has one (br-int)."""
        if not self.patches() or sw.uplinks:
            return False
        chain = self.patch_chain(sw.id)
        return any(other.uplinks for pair in self.patches() for other in pair if self.patch_chain(other.id) == chain)

    # --- which segment a vNIC's frames join (SEMANTICS §2) ---------------------------------------------------

    def place(self, vm: VM, nic: VNic) -> Place:
        """The segment ``nic``'s frames join, or where they go instead, or why they go nowhere (SEMANTICS §2).

        vSS/vDS/OVS/NSX: (host, switch, VLAN), every portgroup of one VLAN on one switch instance being one
        segment; a vDS or NSX segment has one instance per member host. Linux bridges and hosted networks: one
        segment per (host, switch). macvtap in bridge mode: one segment; in its other modes and on a raw socket
        every guest alone. SR-IOV: the pNIC's embedded switch in the portgroup's VLAN, past the virtual switch.
        DirectPath: the guest alone on the pNIC it owns, tagging its frames itself.
        """
        name = f"{vm.name}/{nic.name}"
        if not nic.connected:
            return Place(problem=f"{name} is disconnected")
        if nic.type == NicType.DIRECTPATH:
            pnic, problem = self.physical_function(vm, nic)
            key = SegmentKey(pnic, vm.host, nic.guest_vlan, nic.id, Switching.DIRECT) if pnic else None
            return Place(key, problem=problem, invalid=bool(problem))
        kind = self.index.kind(nic.network)
        if kind == "portgroup":
            sw, pg = self.index.parent(nic.network), self.index.get(nic.network)
        elif kind == "switch":
            sw, pg = self.index.get(nic.network), None
        else:
            return Place(problem=f"{name} is not connected to a portgroup or switch", invalid=nic.network is not None)
        host = vm.host
        if host is None or (host not in self.members(sw) if sw.kind in MULTI_HOST_SWITCHES else sw.host not in (None, host)):
            return Place(problem=f"{vm.name} runs on {self.name_of(host)}, where {sw.name} does not exist",
                         invalid=True)
        pg_id = pg.id if pg is not None else None
        if filters_vlans(sw):
            vlan, problem = filtering_port_vlan(sw, nic, name)
            return Place(SegmentKey(sw.id, host, vlan) if not problem else None, problem=problem)
        if pg is not None and pg.vlan.problem(sw.kind) is not None:
            return Place(portgroup=pg_id, problem=f"portgroup {pg.name} has an invalid VLAN: "
                                                  f"{pg.vlan.problem(sw.kind)}", invalid=True)
        vlan, problem = self.frame_vlan(sw, pg, nic.guest_vlan, name)
        if problem:
            return Place(portgroup=pg_id, problem=problem)
        if nic.type == NicType.SRIOV:
            pnic, problem = self.physical_function(vm, nic)
            key = SegmentKey(pnic, host, vlan, switching=Switching.EMBEDDED) if pnic else None
            return Place(key, portgroup=pg_id, problem=problem, invalid=bool(problem))
        if sw.kind in PER_GUEST:
            guest = None if guests_meet_inside(sw) else nic.id
            return Place(SegmentKey(sw.id, host, None, guest), portgroup=pg_id)
        return Place(SegmentKey(sw.id, host, vlan if sw.kind in VLAN_SWITCHES else None), portgroup=pg_id)

    def network_segment(self, network: str | None, host: str | None, who: str) -> tuple[SegmentKey | None, str]:
        """The segment on ``host`` that untagged frames sent into ``network`` (a portgroup or switch id) join:
        where a DLR interface, a patch end or a NAT service sits; or why there is none (``who`` names the sender).
        """
        kind = self.index.kind(network)
        if kind not in ("portgroup", "switch"):
            return None, f"{who}: network {network!r} is not a portgroup or switch"
        pg = self.index.get(network) if kind == "portgroup" else None
        sw = self.index.parent(network) if pg is not None else self.index.get(network)
        if host not in self.switch_hosts(sw):
            return None, f"{who}: {sw.name} does not exist on {self.name_of(host)}"
        vlan, problem = self.frame_vlan(sw, pg, None, who)
        if problem:
            return None, f"{who}: {problem}"
        return SegmentKey(sw.id, host, vlan if sw.kind in VLAN_SWITCHES else None), ""

    def frame_vlan(self, sw: Switch, pg: Any, guest_vlan: int | None, who: str) -> tuple[int | None, str]:
        """The VLAN a guest's frames carry inside ``sw`` through portgroup ``pg`` (None: untagged), or why the
        switch drops them (SEMANTICS §2, trunk portgroups).

        An access portgroup tags the guest's untagged frames; a guest that tags frames itself needs a trunk
        portgroup carrying its VLAN. On a trunk, untagged guest frames join the VLAN none segment of a vSS and
        the portgroup's native VLAN elsewhere.
        """
        if pg is None:
            return None, ""
        if pvlan_port(sw, pg):
            if guest_vlan is not None:
                return None, (f"{who} tags VLAN {guest_vlan} itself, but portgroup {pg.name} is a private VLAN "
                              f"port, so the switch drops its frames")
            return pg.pvlan, ""
        vlan = pg.vlan
        if vlan.problem(sw.kind) is not None:
            return None, f"portgroup {pg.name} has an invalid VLAN: {vlan.problem(sw.kind)}"
        if vlan.mode is VlanMode.TRUNK:
            if guest_vlan is None:
                return (None if sw.kind is SwitchKind.VSS else pg.native_vlan), ""
            if not vlan.carries(guest_vlan):
                return None, f"portgroup {pg.name} does not carry the guest's VLAN {guest_vlan}"
            return guest_vlan, ""
        if guest_vlan is not None:
            return None, (f"{who} tags VLAN {guest_vlan} itself, but portgroup {pg.name} is not a trunk, so the "
                          f"switch drops its frames")
        return vlan.tag, ""

    def physical_function(self, vm: VM, nic: VNic) -> tuple[str | None, str]:
        """The pNIC an SR-IOV or DirectPath vNIC uses, when it is one of the VM's host (else why not)."""
        pnic = nic.physical_function
        if pnic is None or pnic not in self.pnic:
            return None, f"{vm.name}/{nic.name} is a {nic.type} adapter but names no pNIC as its physical function"
        if self.host_of_pnic[pnic] != vm.host:
            return None, f"{vm.name}/{nic.name} uses {self.pnic_label(pnic)}, which is not a pNIC of its host"
        return pnic, ""

    def bridging_problems(self, vm: VM, nic: VNic) -> list[str]:
        """Why a bridged firewall VM cannot pass frames through its leg ``nic`` (SEMANTICS §4.4), or nothing.

        It receives frames addressed to others only with promiscuous mode accepted, and sends them with their
        senders' MACs only with forged transmits accepted, on the leg's portgroup. An SR-IOV or DirectPath leg
        passes the virtual switch by: no portgroup policy applies, and the NIC hands it only its own frames.
        """
        if nic.type in BYPASS_TYPES:
            return [f"{vm.name}/{nic.name} is a {nic.type} adapter, which bypasses the virtual switch and its "
                    f"security policy and receives only frames addressed to its own MAC"]
        pg = self.index.get(nic.network) if self.index.kind(nic.network) == "portgroup" else None
        if pg is None:
            return []
        return [f"portgroup {pg.name} rejects {what}" for what, accepted in
                (("promiscuous mode", pg.security.promiscuous), ("forged transmits", pg.security.forged_transmits))
                if not accepted]

    # --- which uplink is active (SEMANTICS §3) ---------------------------------------------------------------

    def teaming(self, sw: Switch, host: str | None, vlan: int | None) -> list[Any]:
        """The uplink order for ``sw``'s segment in ``vlan`` on ``host`` (SEMANTICS §3 teaming).

        A portgroup's teaming override applies to its VLAN's segment (the first such portgroup in file order);
        otherwise the switch's own order, restricted to ``host``'s pNICs.
        """
        order = sw.uplinks
        overrides = self._overrides.get(sw.id)
        if overrides is None:   # (a portgroup gains or loses its override only in an edit that compiles anew)
            overrides = self._overrides[sw.id] = [(pg, pg.uplinks) for pg in sw.portgroups if pg.uplinks is not None]
        for pg, uplinks in overrides:
            if pg.vlan.problem(sw.kind) is not None:
                continue
            if pg.vlan.mode is VlanMode.ACCESS and pg.vlan.tag == vlan or pg.vlan.mode is VlanMode.NONE and vlan is None:
                order = uplinks
                break
        if host is None:
            return list(order)
        if order is sw.uplinks:
            by_host = self._by_host.get(sw.id)
            if by_host is None:
                by_host = self._by_host[sw.id] = {}
                for u in sw.uplinks:
                    by_host.setdefault(self.host_of_pnic.get(u.pnic), []).append(u)
            return list(by_host.get(host, ()))
        return [u for u in order if self.host_of_pnic.get(u.pnic) == host]

    def uplink_fault(self, up: Any) -> tuple[UplinkFault, Port | None] | None:
        """Why this uplink cannot carry traffic (with the switch port at fault, if any), or None when it can."""
        if up.pnic not in self._faults:
            self._faults[up.pnic] = self._fault_of(up.pnic)
        return self._faults[up.pnic]

    def _fault_of(self, pnic_id: str) -> tuple[UplinkFault, Port | None] | None:
        pnic = self.pnic.get(pnic_id)
        if pnic is None:
            return UplinkFault.NOT_A_PNIC, None
        port = self.port_of(pnic.id)
        if not pnic.up:
            return UplinkFault.DOWN, port
        if port is None:
            return UplinkFault.UNCABLED, None
        if not port.up:
            return UplinkFault.PORT_DOWN, port
        return None

    def uplink_problem(self, up: Any) -> str | None:
        """``uplink_fault`` in words, or None when the uplink can carry traffic."""
        fault = self.uplink_fault(up)
        if fault is None:
            return None
        kind, port = fault
        if kind is UplinkFault.NOT_A_PNIC:
            return f"uplink {up.pnic} {kind.value}"
        if kind is UplinkFault.PORT_DOWN and port is not None:
            return f"{self.port_label(port)} is down"
        return f"{self.pnic_label(up.pnic)} {kind.value}"

    def active_uplink(self, uplinks: list[Any]) -> tuple[Any, list[str]]:
        """SEMANTICS §3 teaming: the first active uplink that works; standby ones only when every active one
        fails. Returns it (or None) and why the ones before it could not carry traffic."""
        problems: list[str] = []
        for standby in (False, True):
            for up in uplinks:
                if up.standby is not standby:
                    continue
                problem = self.uplink_problem(up)
                if problem is None:
                    return up, problems
                problems.append(problem)
        return None, problems

    def working_uplinks(self, uplinks: list[Any]) -> tuple[list[Any], list[str]]:
        """The uplinks traffic may be spread over: every working active uplink (standby ones only when no
        active one works), and why the others cannot carry traffic."""
        problems: list[str] = []
        for standby in (False, True):
            working = []
            for up in uplinks:
                if up.standby is not standby:
                    continue
                problem = self.uplink_problem(up)
                if problem is None:
                    working.append(up)
                else:
                    problems.append(problem)
            if working:
                return working, problems
        return [], problems

    def may_choose_uplink(self, vm: VM, nic: VNic, place: Place) -> bool:
        """Whether ``vnic_uplinks`` can answer other than the failover order (a quick test, so designs without
        teaming policies or pins cost nothing more)."""
        if nic.uplink:
            return True
        key = place.segment
        if key is None or key.switching is not Switching.VIRTUAL:
            return False
        sw = self.switch.get(key.switch)
        pg = self.index.get(place.portgroup) if place.portgroup else None
        return sw is not None and (sw.teaming is not None or pg is not None and pg.teaming is not None)

    def lag_of(self, sw: Switch, policy: Teaming) -> Lag | None:
        """The LAG of ``sw`` that ``policy`` sends traffic through, or None."""
        return next((lag for lag in sw.lags if lag.id == policy.lag), None) if policy.lag else None

    def vnic_uplinks(self, vm: VM, nic: VNic, place: Place | None = None) -> UplinkChoice:
        """Which uplinks ``nic``'s traffic may leave its host through, and who chooses among them (SEMANTICS §3,
        forwarding-rules.md "Teaming"): a pin, the explicit failover order, a per-pair address hash (IP hash, a
        LAG hashing addresses), or the platform at run time (port ID, MAC hash, load-based, a LAG hashing ports).
        """
        place = place or self.place(vm, nic)
        key = place.segment
        if key is None or key.switching is not Switching.VIRTUAL or key.guest is not None:
            return UplinkChoice()
        sw = self.switch[key.switch]
        pg = self.index.get(place.portgroup) if place.portgroup else None
        policy = teaming_policy(sw, pg)
        lag = self.lag_of(sw, policy)
        if lag is not None:
            order = [Uplink(p) for p in lag.pnics if self.host_of_pnic.get(p) == key.host]
        else:
            order = self.uplinks_of(sw, key.host, key.vlan)
        working, problems = self.working_uplinks(order)
        pinned = next((u for u in working if u.pnic == nic.uplink), None) if nic.uplink else None
        if pinned is not None:
            return UplinkChoice((pinned,), UplinkChooser.PIN, tuple(problems), lag)
        if lag is None and policy.load_balancing is LoadBalancing.FAILOVER_ORDER or len(working) < 2:
            first, problems = self.active_uplink(order)
            return UplinkChoice((first,) if first else (), UplinkChooser.ORDER, tuple(problems), lag)
        chooser = UplinkChooser.RUN_TIME if uplink_choice_at_run_time(policy, lag) else UplinkChooser.ADDRESS_HASH
        return UplinkChoice(tuple(working), chooser, tuple(problems), lag)

    def uplinks_of(self, sw: Switch, host: str | None, vlan: int | None) -> list[Any]:
        """The uplinks a segment of ``sw`` may use: its teaming order, or the implied ones (a hosted bridged
        network without uplinks uses the host's first pNIC; a per-guest attachment its one pNIC on the host)."""
        if sw.kind in PER_GUEST:
            return [u for u in sw.uplinks if self.host_of_pnic.get(u.pnic) == host][:1]
        uplinks = self.teaming(sw, host, vlan)
        if sw.kind is SwitchKind.HOSTED_BRIDGED and not uplinks and host:
            uplinks = [Uplink(p.id) for p in self.host_pnics(host)[:1]]
        return uplinks

    def wire(self, sw: Switch, host: str | None, vlan: int | None) -> Wire | None:
        """Where a segment of ``sw`` meets the physical network (SEMANTICS §3), or None for switches that have no
        layer-2 uplink by nature (host-only, NAT, NSX segments: see ``transport``) or reach one through a patch.

        The active uplink carries it; a tagging switch sends the segment's VLAN as the tag, a Linux bridge,
        macvtap or raw socket what its uplink says (eth0.10: tag 10). The port then takes it or drops it.
        """
        if sw.kind in NO_UPLINK:
            return None
        uplinks = self.uplinks_of(sw, host, vlan)
        if not uplinks and self.leaves_through_patch(sw):
            return None      # its frames leave through the patched switch's uplink
        if not uplinks:
            if sw.kind in PER_GUEST:
                return Wire(problems=(f"{sw.kind} {sw.name} names no pNIC of {self.name_of(host)}",))
            return Wire(problems=(f"{sw.name} has no uplink, so VMs on it cannot reach the physical network",))
        up, problems = self.active_uplink(uplinks)
        if up is None:
            return Wire(problems=(*problems, f"every uplink of {sw.name} is down, so its traffic stays in the host"))
        filtered = filtering_uplink_problem(sw, up, vlan) if sw.vlan_filtering else None
        if filtered:
            return Wire(problems=(*problems, filtered))
        return self._into_port(up, uplink_tag(sw, up, vlan), problems)

    def segment_wire(self, key: SegmentKey) -> Wire | None:
        """Where the segment ``key`` meets the physical network (see ``wire``). An SR-IOV embedded switch and a
        DirectPath guest leave through their one pNIC (no teaming), tagged with the segment's VLAN."""
        if key.switching is Switching.VIRTUAL and key.uplink is not None:
            return self.uplink_wire(self.switch[key.switch], key.vlan, key.uplink)
        if key.switching is Switching.VIRTUAL:
            return self.wire(self.switch[key.switch], key.host, key.vlan)
        up = Uplink(key.switch)
        problem = self.uplink_problem(up)
        return Wire(problems=(problem,)) if problem else self._into_port(up, key.vlan, [])

    def uplink_wire(self, sw: Switch, vlan: int | None, pnic: str) -> Wire | None:
        """Where a segment of ``sw`` in ``vlan`` meets the physical network through the one uplink ``pnic`` that
        teaming puts its vNICs on; None for ``RUN_TIME_UPLINK`` (no one uplink: prediction says why)."""
        if pnic == RUN_TIME_UPLINK:
            return None
        up = next((u for u in sw.uplinks if u.pnic == pnic), None) or Uplink(pnic)
        problem = self.uplink_problem(up) or (filtering_uplink_problem(sw, up, vlan) if sw.vlan_filtering else None)
        if problem:
            return Wire(problems=(problem,))
        return self._into_port(up, uplink_tag(sw, up, vlan), [])

    def _into_port(self, up: Any, tag: int | None, problems: list[str]) -> Wire:
        port = self.port_of(up.pnic)
        if port is None or not port.up:
            return Wire(problems=(*problems, self.uplink_problem(up) or ""))
        vlan = ingress(port, tag)
        if vlan is None:
            return Wire(problems=(*problems, ingress_problem(port, tag, self.port_label(port))))
        return Wire(up.pnic, port, tag, vlan, up, tuple(problems))

    # --- how an overlay reaches another host (SEMANTICS §2 nsx-segment, §3) ------------------------------------

    def transport(self, host: str) -> Wire:
        """A host's NSX tunnel endpoint: the pNIC its overlay traffic leaves through, and the transport VLAN.

        Every NSX segment on a host shares one tunnel endpoint: the first working uplink the segments list on
        that host (their ``vlan`` is the transport VLAN; none: untagged), else the host's first working pNIC,
        untagged. Another host's endpoint is reached only when the physical network joins the two wires' VLANs.
        """
        uplinks = [u for sw in self.topology.switches if sw.kind is SwitchKind.NSX_SEGMENT and host in sw.members
                   for u in sw.uplinks if self.host_of_pnic.get(u.pnic) == host]
        if not uplinks:
            uplinks = [Uplink(p.id) for p in self.host_pnics(host)]
        up, problems = self.active_uplink(uplinks)
        if up is None:
            return Wire(problems=(*problems, f"{self.name_of(host)} has no working transport pNIC for its NSX "
                                              f"segments"))
        return self._into_port(up, up.vlan, problems)

    def nat_wire(self, sw: Switch) -> Wire:
        """Where a hosted NAT service sends translated traffic: out of the switch's uplink, else the host's first
        working pNIC, untagged (the host's own network)."""
        uplinks = sw.uplinks or [Uplink(p.id) for p in self.host_pnics(sw.host)]
        up, problems = self.active_uplink(uplinks)
        if up is None:
            return Wire(problems=tuple(problems))
        return self._into_port(up, None, problems)
