"""What the palette offers: every kind of object a person can drop, and how a fresh one of each is made.

One table drives the palette (label, icon, group), the drop (which model list the object goes into and
what it may be dropped into) and the canvas (which icon an object is drawn with), so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import (
    VM,
    Dlr,
    Host,
    HostKind,
    HostNic,
    Index,
    Note,
    PhysicalHost,
    PhysicalRouter,
    PhysicalSwitch,
    PNic,
    Port,
    Portgroup,
    RouterInterface,
    Switch,
    SwitchKind,
    Topology,
    VmRole,
    VNic,
)
from ..model.objects import MULTI_HOST_SWITCHES, MacvtapMode, NicType


@dataclass(frozen=True)
class Kind:
    key: str
    label: str
    icon: str
    group: str
    #: What it may be dropped into: "host", "switch" (portgroup switches) or "" (anywhere on the canvas).
    container: str = ""
    #: True when it must be dropped into its container.
    needs_container: bool = False
    #: What it is, in a sentence (the palette's tooltip).
    what: str = ""

    @property
    def where(self) -> str:
        """Where it can be dropped, in a sentence (the palette's tooltip)."""
        if self.container == "switch":
            return "Drop it into a standard or distributed vSwitch, an Open vSwitch or an NSX segment."
        if self.needs_container:
            return "Drop it into a host."
        if self.container == "host":
            return "Drop it into a host to run it there, or anywhere on the canvas."
        return "Drop it anywhere on the canvas."


PALETTE: tuple[Kind, ...] = (
    Kind("host-esxi", "ESXi host", "host-esxi", "Hosts",
         what="A VMware ESXi hypervisor with two pNICs; holds vSwitches and VMs."),
    Kind("host-kvm", "KVM host", "host-kvm", "Hosts",
         what="A Linux KVM hypervisor with two NICs; holds Linux bridges, Open vSwitches, macvtaps and VMs."),
    Kind("host-hosted", "Hosted hypervisor", "host-hosted", "Hosts",
         what="VMware Workstation, Server or Player on a PC; holds bridged, host-only and NAT networks."),
    Kind("switch-vss", "Standard vSwitch", "switch-vss", "Virtual switches", "host", True,
         what="A vSphere standard switch on one host; it takes a free pNIC as its uplink."),
    Kind("switch-vds", "Distributed vSwitch", "switch-vds", "Virtual switches",
         what="A vSphere distributed switch spanning member hosts (one instance per host, not one big switch)."),
    Kind("switch-linux-bridge", "Linux bridge", "switch-linux-bridge", "Virtual switches", "host", True,
         what="A Linux bridge on a KVM host; vNICs connect to it directly."),
    Kind("switch-ovs", "Open vSwitch", "switch-ovs", "Virtual switches", "host", True,
         what="An Open vSwitch bridge on a KVM host, with portgroups for VLANs and trunks."),
    Kind("switch-macvtap", "macvtap", "switch-macvtap", "Virtual switches", "host", True,
         what="macvtap on one pNIC (bridge, VEPA, private or passthrough mode)."),
    Kind("switch-raw", "Raw socket (AF_PACKET)", "switch-raw", "Virtual switches", "host", True,
         what="Guests attached to one pNIC through a raw AF_PACKET socket (QEMU's raw netdev): every frame "
              "leaves through the pNIC and the host cannot reach them."),
    Kind("switch-hosted-bridged", "Bridged network", "switch-hosted-bridged", "Virtual switches", "host", True,
         what="A hosted hypervisor's network bridged to one of the PC's NICs."),
    Kind("switch-hosted-hostonly", "Host-only network", "switch-hosted-hostonly", "Virtual switches", "host", True,
         what="A hosted hypervisor's private network between the PC and its VMs."),
    Kind("switch-hosted-nat", "NAT network", "switch-hosted-nat", "Virtual switches", "host", True,
         what="A hosted hypervisor's network that reaches outside through the PC's address (NAT)."),
    Kind("portgroup", "Portgroup", "portgroup", "Virtual switches", "switch", True,
         what="A set of switch ports with one VLAN and security policy; VMs' vNICs connect to it."),
    Kind("vm", "Virtual machine", "vm", "Virtual machines", "host",
         what="A guest with one vNIC; drag from its vNIC dot to a portgroup to connect it."),
    Kind("vm-firewall", "Firewall VM", "vm-firewall", "Virtual machines", "host",
         what="A VM that forwards between its two vNICs by its firewall rules."),
    Kind("vm-router", "Router VM", "vm-router", "Virtual machines", "host",
         what="A VM that routes between its two vNICs."),
    Kind("physical-switch", "Physical switch", "physical-switch", "Physical network",
         what="A top-of-rack or core switch with eight ports; cable pNICs to its ports."),
    Kind("physical-router", "Physical router", "physical-router", "Physical network",
         what="A router, or an L3 switch when tied to a physical switch (its SVIs are the gateways)."),
    Kind("physical-host", "Physical host", "physical-host", "Physical network",
         what="A bare-metal server on a switch port: a measurement endpoint outside the hypervisors."),
    Kind("switch-nsx-segment", "NSX segment", "switch-nsx-segment", "NSX",
         what="An NSX overlay segment (VXLAN/Geneve) spanning its member hosts."),
    Kind("vm-nsx-edge", "NSX edge", "vm-nsx-edge", "NSX", "host",
         what="An NSX edge VM that routes between segments and the physical network."),
    Kind("nsx-dlr", "NSX distributed router", "nsx-dlr", "NSX",
         what="An NSX distributed logical router: routes in every member host's kernel, on the source host."),
    Kind("note", "Text note", "note", "Canvas", what="A note for the reader of the diagram."),
)
KINDS = {kind.key: kind for kind in PALETTE}

_SWITCH_NAMES = {
    SwitchKind.VSS: "vSwitch{n}", SwitchKind.VDS: "dvSwitch{n}", SwitchKind.LINUX_BRIDGE: "br{n}",
    SwitchKind.OVS: "ovsbr{n}", SwitchKind.MACVTAP: "macvtap{n}", SwitchKind.HOSTED_BRIDGED: "VMnet{n}",
    SwitchKind.HOSTED_HOSTONLY: "VMnet{n}", SwitchKind.HOSTED_NAT: "VMnet{n}", SwitchKind.NSX_SEGMENT: "segment-{n}",
    SwitchKind.RAW: "raw{n}",
}
_HOST_NAMES = {HostKind.ESXI: ("esx{n:02d}", "vmnic"), HostKind.KVM: ("kvm{n:02d}", "eth"),
               HostKind.HOSTED: ("pc{n:02d}", "eth")}
_VM_NAMES = {VmRole.VM: "vm{n}", VmRole.FIREWALL: "fw{n}", VmRole.ROUTER: "rtr{n}", VmRole.NSX_EDGE: "edge{n}"}


def icon_for(kind: str, obj: Any) -> str:
    """The icon name an object of index kind ``kind`` is drawn with."""
    if kind == "host":
        return f"host-{obj.kind.value}"
    if kind == "switch":
        return f"switch-{obj.kind.value}"
    if kind == "vm":
        return "vm" if obj.role is VmRole.VM else f"vm-{obj.role.value}"
    if kind == "dlr":
        return "nsx-dlr"
    return kind.replace("_", "-")


class Namer:
    """Fresh ids and names that do not clash with the design (or with each other while building)."""

    def __init__(self, topology: Topology) -> None:
        index = Index(topology)
        self.ids = set(index.entries) | set(topology.layout.places)
        self.names = {getattr(e.obj, "name", None) for e in index.entries.values()}

    def id(self, prefix: str) -> str:
        n = 1
        while f"{prefix}-{n}" in self.ids:
            n += 1
        new = f"{prefix}-{n}"
        self.ids.add(new)
        return new

    def name(self, pattern: str, start: int = 1) -> str:
        n = start
        while pattern.format(n=n) in self.names:
            n += 1
        new = pattern.format(n=n)
        self.names.add(new)
        return new


#: The adapter a new VM gets on each platform (the one every guest there supports best).
DEFAULT_NIC = {HostKind.ESXI: NicType.VMXNET3, HostKind.HOSTED: NicType.E1000, HostKind.KVM: NicType.VIRTIO}


def make(key: str, namer: Namer, *, container: str | None = None, host_kind: HostKind | None = None,
         x: float = 0.0, y: float = 0.0) -> tuple[str, Any]:
    """A fresh object for palette entry ``key``: (the Topology list it belongs in, the object).

    Portgroups go into a switch's ``portgroups`` (the caller inserts them); notes carry their own position.
    """
    if key.startswith("host-"):
        kind = HostKind(key[5:])
        pattern, nic = _HOST_NAMES[kind]
        host = Host(namer.id("host"), namer.name(pattern), kind)
        host.pnics = [PNic(namer.id("pnic"), f"{nic}{i}") for i in range(2)]
        return "hosts", host
    if key.startswith("switch-"):
        kind = SwitchKind(key[7:])
        start = 1 if kind in (SwitchKind.VDS, SwitchKind.NSX_SEGMENT) or kind.value.startswith("hosted") else 0
        switch = Switch(namer.id("switch"), namer.name(_SWITCH_NAMES[kind], start), kind)
        if kind in MULTI_HOST_SWITCHES:
            switch.members = [container] if container else []
        else:
            switch.host = container
        if kind is SwitchKind.MACVTAP:
            switch.macvtap_mode = MacvtapMode.BRIDGE
        if kind is SwitchKind.NSX_SEGMENT:
            switch.vni = 5000 + int(switch.id.rsplit("-", 1)[1])
        return "switches", switch
    if key == "portgroup":
        return "portgroups", Portgroup(namer.id("pg"), namer.name("PG-{n}"))
    if key.startswith("vm"):
        role = VmRole(key[3:]) if key != "vm" else VmRole.VM
        vm = VM(namer.id("vm"), namer.name(_VM_NAMES[role]), host=container, role=role)
        legs = 1 if role is VmRole.VM else 2
        nic_type = DEFAULT_NIC.get(host_kind, NicType.VMXNET3)
        vm.vnics = [VNic(namer.id("vnic"), f"eth{i}", nic_type) for i in range(legs)]
        return "vms", vm
    if key == "physical-switch":
        ps = PhysicalSwitch(namer.id("pswitch"), namer.name("switch{n}"))
        ps.ports = [Port(namer.id("port"), f"Gi1/0/{i}") for i in range(1, 9)]
        return "physical_switches", ps
    if key == "physical-router":
        router = PhysicalRouter(namer.id("router"), namer.name("router{n}"))
        router.interfaces = [RouterInterface(namer.id("rif"), f"ge-0/0/{i}") for i in range(2)]
        return "physical_routers", router
    if key == "physical-host":
        ph = PhysicalHost(namer.id("phost"), namer.name("server{n}"))
        ph.nics = [HostNic(namer.id("hnic"), "eth0")]
        return "physical_hosts", ph
    if key == "nsx-dlr":
        return "dlrs", Dlr(namer.id("dlr"), namer.name("dlr{n}"))
    if key == "note":
        return "notes", Note(namer.id("note"), "Note", x=x, y=y)
    raise KeyError(f"unknown palette entry {key!r}")
