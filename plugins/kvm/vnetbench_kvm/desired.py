"""The design turned into what a KVM host needs: libvirt networks and domains, bridges, and the emulated
physical side. Pure (no libvirt, no kernel), so it is tested without either.

Mapping (SEMANTICS.md section 2; the README's KVM section has the admin's view):

- a **Linux bridge** is a host bridge plus a libvirt network (``<forward mode='bridge'/>``) that names it;
- an **OVS** switch is an Open vSwitch bridge plus a libvirt network with ``<virtualport type='openvswitch'/>``
  and one libvirt portgroup per design portgroup, carrying its ``<vlan>``: an access tag, a trunk list with
  the native VLAN ``nativeMode='untagged'``, or tag 0 for an untagged portgroup (so a guest's own tags are
  dropped there, as on a real access port);
- a **VLAN-filtering Linux bridge** is an OVS bridge with libvirt ``<vlan>`` per guest port, and uplinks several
  vNICs may take are an OVS bond (``desired_fabric``);
- a **macvtap** switch is a libvirt network ``<forward mode='bridge|vepa|private|passthrough'>`` on its pNIC;
- a **patch** between two switches of one host is an OVS patch-port pair, or a veth pair where a Linux
  bridge takes part;
- a **VM** is a domain booting the probe guest directly (``type='qemu'`` under TCG, ``kvm`` where the host
  offers it) with one ``<interface>`` per vNIC, its MAC and its model (vlance and flexible -> pcnet);
  addresses of both families, gateways (IPv4 and IPv6), guest VLAN, the vNIC's name in the guest
  (``eth<its place in the design>``) and forwarding mode travel on the kernel command line (``cmdline``); a
  router or firewall VM gets the nftables filter and SNAT/DNAT rulesets the local lab would load
  (``vnetbench.backends.nftables``), its rules naming those names, and its static routes of both families;
- an OVS switch's **private VLAN map** is a flow per guest and uplink port, sending each frame only to the
  ports its role may reach (``desired_pvlan``);
- **pNICs, physical switches and physical hosts** (``pnics=emulate``, a one-machine lab): a physical host is a
  namespace with a veth per NIC into its port's VLAN bridge (probes run there with ``ip netns exec``); each physical switch is a network
  namespace with one bridge per VLAN; each pNIC is one veth per physical VLAN it carries, from the host
  side (enslaved to the Linux bridge, an OVS access port of that VLAN, or the macvtap's lower device) into
  that VLAN's bridge, and all of a pNIC's veths share one ifb + tbf shaper per direction at its speed. The
  host kernel has no 802.1q devices, so an uplink "eth0.10" is the veth that lands in physical VLAN 10.
  A macvtap's switch port reflects frames (hairpin) only where the design's port has hairpin on.
  With ``pnics=real`` the pNICs exist on the host under their design names and are only enslaved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vnetbench.backends import nftables as nft
from vnetbench.model import (VM, Action, ForwardMode, Index, MacvtapMode, NicType, Portgroup, SwitchKind, Topology,
                             VmRole)
from vnetbench.model.forwarding import (
    Fabric, Place, Wire, filters_vlans, ingress, patch_problem, pvlan_role_words, returns_through,
)
from vnetbench.model.families import FAMILIES, addresses, family, gateway_of, link_local
from vnetbench.model.vlan import VlanMode

from vnetbench.backends.addresses import interface_address
from vnetbench.backends.planning import Want, design_tag, digest
from vnetbench.backends.routes import default_route, static_routes

from . import cmdline
from .cmdline import gateway_word
from .config import ifname, libvirt_name, ns_name
from .desired_fabric import FabricParts
from .desired_pvlan import PvlanParts, pvlan_map, pvlan_portgroup

PHASE = {"pswitch": 0, "bridge": 1, "ovs": 1, "pnic": 2, "macvtap": 3, "patch": 3, "phost": 3, "bond": 3, "domain": 4,
         "flows": 5}
SUPPORTED_SWITCHES = frozenset({SwitchKind.LINUX_BRIDGE, SwitchKind.OVS, SwitchKind.MACVTAP})
#: QEMU's device model for each vNIC type (seed 004: Vlance and Flexible show the guest an AMD PCnet32).
NIC_MODELS: dict[NicType, str] = {NicType.VLANCE: "pcnet", NicType.FLEXIBLE: "pcnet", NicType.E1000: "e1000",
                                  NicType.E1000E: "e1000e", NicType.VMXNET3: "vmxnet3", NicType.VIRTIO: "virtio",
                                  NicType.RTL8139: "rtl8139"}


@dataclass(frozen=True)
class Guest:
    host: str
    domain: str
    addresses: dict[str, str]        # vNIC id -> IPv4 address/prefix
    cpus: int
    addresses6: dict[str, str] = field(default_factory=dict)     # vNIC id -> global IPv6 address/prefix


@dataclass(frozen=True)
class Bystander:
    """An emulated physical host: a namespace on the lab host, probed with ``ip netns exec``."""

    host: str
    ns: str
    addresses: dict[str, str]        # NIC id -> IPv4 address/prefix
    addresses6: dict[str, str] = field(default_factory=dict)     # NIC id -> global IPv6 address/prefix


@dataclass
class Desired:
    tag: str
    wants: dict[str, Want]
    guests: dict[str, Guest]
    reasons: list[str] = field(default_factory=list)
    bystanders: dict[str, Bystander] = field(default_factory=dict)


@dataclass(frozen=True)
class Boot:
    """How guests boot on one host: the probe image, the machine type, the accelerator (domain type)."""

    kernel: str
    initrd: str
    machine: str = "pc"
    accel: str = "qemu"
    memory_mb: int = 192


def mac_for(tag: str, nic_id: str) -> str:
    h = digest(tag, nic_id)
    return "52:54:00:" + ":".join(h[i:i + 2] for i in range(0, 6, 2))


def ovs_vlan(pg: Portgroup) -> dict[str, Any]:
    """A design portgroup's VLAN as libvirt's ``<vlan>``: {"tags": [...], "trunk": bool, "native": id}."""
    vlan, native = pg.vlan, pg.native_vlan
    if vlan.mode is VlanMode.ACCESS:
        return {"tags": [vlan.tag], "trunk": False, "native": None}
    if vlan.mode is VlanMode.NONE:
        return {"tags": [0], "trunk": False, "native": None}
    tags = [v for lo, hi in vlan.ranges for v in range(lo, hi + 1)]
    if native is not None and native not in tags:
        tags.append(native)
    return {"tags": sorted(tags), "trunk": True, "native": native}


class _Builder(FabricParts, PvlanParts):
    def __init__(self, design: Topology, boot: dict[str, Boot], emulate: bool) -> None:
        self.d, self.boot, self.emulate = design, boot, emulate
        self.ix = Index(design)
        self.fabric = Fabric(design, self.ix)
        self.tag = design_tag(design.id)
        self.wants: dict[str, Want] = {}
        self.guests: dict[str, Guest] = {}
        self.bystanders: dict[str, Bystander] = {}
        self.reasons: list[str] = []
        self.switch_keys: dict[str, str] = {}                   # switch id -> key of its want
        self.networks: dict[str, str] = {}                      # switch id -> libvirt network name
        self.used_vlans: dict[str, set[int | None]] = {}        # OVS switch id -> segment VLANs in use
        self.wires: dict[str, list[dict[str, Any]]] = {}        # pNIC id -> its veths
        self.wire_deps: dict[str, set[str]] = {}
        self.lower_devs: dict[str, str] = {}                    # pNIC id -> the host-side device to use
        self.segment_nics: dict[tuple[str, int | None], list[tuple[VM, Any, Place]]] = {}   # (switch, VLAN) -> its vNICs
        self.segment_ports: dict[tuple[str, int | None], str] = {}     # (switch, VLAN) -> the port it leaves by
        self.resolve = nft.design_resolver(design)

    def add(self, want: Want) -> None:
        self.wants[want.key] = want

    # --- checks ------------------------------------------------------------------------------------

    def check(self) -> None:
        for sw in self.d.switches:
            if sw.kind in SUPPORTED_SWITCHES and (not sw.host or self.ix.kind(sw.host) != "host"):
                self.reasons.append(f"switch {sw.name!r} is on no host (set its host)")
        for host in self.d.hosts:
            if host.kind.value != "kvm":
                self.reasons.append(f"host {host.name!r} is {host.kind.value}, not kvm; the KVM backend "
                                    "deploys only KVM hosts")
        if self.d.nsx.dlrs or self.d.nsx.dfw.rules:
            self.reasons.append("the design uses NSX (logical routers or distributed firewall rules), which "
                                "KVM has not")
        for vm in self.d.vms:
            if vm.role is VmRole.NSX_EDGE:
                self.reasons.append(f"{vm.name!r} is an NSX edge, which KVM has not")
            for nic in vm.vnics:
                if nic.type not in NIC_MODELS:
                    self.reasons.append(f"vNIC {vm.name}/{nic.name} is a {nic.type.value}, which QEMU does not "
                                        "emulate; use vmxnet3 or virtio")
        names = [vm.name for vm in self.d.vms]
        for name in sorted({n for n in names if names.count(n) > 1}):
            self.reasons.append(f"two VMs are called {name!r}; libvirt needs unique domain names")
        networks = [libvirt_name(self.tag, sw.name) for sw in self.d.switches if sw.kind in SUPPORTED_SWITCHES]
        for sw in self.d.switches:
            if sw.kind in SUPPORTED_SWITCHES and networks.count(libvirt_name(self.tag, sw.name)) > 1:
                self.reasons.append(f"two switches are called {sw.name!r}; each becomes a libvirt network named "
                                    "after it, so give them different names (e.g. with the host's name)")
        if self.emulate:
            if self.d.physical_routers:
                self.reasons.append("physical routers are not emulated by the KVM backend (the local lab emulates "
                                    "them); remove them or deploy with pnics=real on real hardware")
            if any(self.ix.kind(l.a) == "port" and self.ix.kind(l.b) == "port" for l in self.d.links):
                self.reasons.append("trunks between physical switches are not emulated by the KVM backend; join "
                                    "the uplinks on one physical switch")
            for who, ps, entry in self.fabric.pvlan_aware_ports(self.d):
                self.reasons.append(f"{who} is on the {pvlan_role_words(entry)} of {ps.name}'s own map, which "
                                    "the KVM backend does not enforce (its emulated physical switches carry every "
                                    "VLAN plainly); remove the map from the physical switch")

    # --- switches ------------------------------------------------------------------------------------

    def switches(self) -> None:
        for sw in self.d.switches:
            if sw.kind not in SUPPORTED_SWITCHES or not sw.host or self.ix.kind(sw.host) != "host":
                continue
            network = libvirt_name(self.tag, sw.name)
            if sw.kind is SwitchKind.LINUX_BRIDGE and not filters_vlans(sw):
                spec = {"network": network, "bridge": ifname("b", self.tag, sw.id), "mtu": sw.mtu}
                self.add(Want("bridge", f"bridge/{network}", spec,
                              f"Linux bridge {sw.name} ({spec['bridge']}, libvirt network {network})",
                              sw.id, host=sw.host))
            elif sw.kind is SwitchKind.OVS or filters_vlans(sw):        # a VLAN-filtering bridge: desired_fabric
                groups = self.filtering_groups(sw) if filters_vlans(sw) else []
                for pg in sw.portgroups:
                    problem = pg.vlan.problem(sw.kind)
                    if (pvlan := pvlan_portgroup(sw, pg)) is not None:     # its role's VLAN (desired_pvlan)
                        groups.append({"name": pg.name, **pvlan})
                    elif problem is not None:
                        self.reasons.append(f"portgroup {pg.name}: {problem}")
                    else:
                        groups.append({"name": pg.name, **ovs_vlan(pg)})
                spec = {"network": network, "bridge": ifname("b", self.tag, sw.id), "mtu": sw.mtu,
                        "portgroups": groups, **pvlan_map(sw)}
                what = "VLAN-filtering bridge" if filters_vlans(sw) else "Open vSwitch"
                self.add(Want("ovs", f"ovs/{network}", spec,
                              f"{what} {sw.name} ({spec['bridge']}, {len(groups)} portgroups)",
                              sw.id, host=sw.host))
            else:                                               # macvtap: built after its pNIC (uplinks)
                self.switch_keys[sw.id] = f"macvtap/{network}"
                self.networks[sw.id] = network
                continue
            self.switch_keys[sw.id] = f"{'ovs' if f'ovs/{network}' in self.wants else 'bridge'}/{network}"
            self.networks[sw.id] = network

    def macvtaps(self) -> None:
        for sw in self.d.switches:
            if sw.kind is not SwitchKind.MACVTAP or not sw.host:
                continue
            if not sw.uplinks:
                self.reasons.append(f"macvtap switch {sw.name} names no pNIC")
                continue
            mode = (sw.macvtap_mode or MacvtapMode.VEPA).value
            users = {vm.id for vm in self.d.vms for n in vm.vnics if n.network == sw.id}
            if mode == "passthrough" and len(users) > 1:
                self.reasons.append(f"macvtap {sw.name} is in passthrough mode (one VM owns the pNIC) but "
                                    f"{len(users)} VMs use it")
            network = self.networks[sw.id]
            out = self.wire_out(sw, self.fabric.wire(sw, sw.host, None), {"kind": "none"}, hairpin=True)
            if out is None:
                self.reasons.append(f"macvtap {sw.name}: its pNIC is cabled to no switch port that takes its "
                                    "frames, and the KVM lab needs one to emulate it")
                continue
            pnic_id, dev = out
            spec = {"network": network, "mode": mode, "dev": dev}
            deps = tuple(k for k in (self.pnic_key(pnic_id),) if k)
            self.add(Want("macvtap", self.switch_keys[sw.id], spec, f"macvtap {sw.name} ({mode} on {dev})",
                          sw.id, deps, host=sw.host))

    # --- the physical side ---------------------------------------------------------------------------

    def pnic_key(self, pnic_id: str | None) -> str | None:
        return f"pnic/{ifname('i', self.tag, pnic_id)}" if pnic_id in self.wires else None

    def wire_out(self, sw: Any, wire: Wire | None, attach: dict[str, Any],
                 hairpin: bool = False) -> tuple[str, str] | None:
        """Plan the host device that carries one segment of ``sw`` out through a pNIC: (pNIC id, device name).

        ``wire`` is the forwarding facts' answer: the active uplink, the tag on it and the physical VLAN its
        port puts the frames in (None, or no pNIC: the segment stays inside the host).
        """
        if not self.emulate:
            uplinks = self.fabric.uplinks_of(sw, sw.host, None if wire is None else wire.tag)
            up = next((u for u in uplinks if not u.standby), None)
            if up is None:
                return None
            pnic = self.ix.get(up.pnic)
            tag = up.vlan if sw.kind is not SwitchKind.OVS else None
            name = pnic.name if tag is None else f"{pnic.name}.{tag}"
            wires = self.wires.setdefault(up.pnic, [])
            if all(w["host_if"] != name for w in wires):
                wires.append({"dev": pnic.name, "host_if": name, "attach": attach, "real": True})
            return up.pnic, name
        if wire is None or wire.pnic is None:
            return None
        pnic_id, port, phys = wire.pnic, wire.port, wire.vlan
        ps = self.fabric.port_switch[port.id]
        ns = ns_name(self.tag, ps.id)
        self.wire_deps.setdefault(pnic_id, set()).add(f"pswitch/{ns}")
        wires = self.wires.setdefault(pnic_id, [])
        if any(w["phys"] == phys for w in wires):
            self.reasons.append(f"pNIC {self.ix.get(pnic_id).name}: two segments land in physical VLAN {phys}; the "
                                "KVM lab gives each (pNIC, VLAN) one veth, so keep them on different pNICs")
            return None
        host_if = ifname("w", self.tag, pnic_id, phys)
        wires.append({"host_if": host_if, "ps_if": ifname("p", self.tag, pnic_id, phys), "ps_ns": ns,
                      "ps_bridge": f"v{phys}", "phys": phys, "attach": attach,
                      "hairpin": hairpin and returns_through(port), "mtu": 1500})
        self.ps_vlans.setdefault(ns, (ps, set()))[1].add(phys)
        return pnic_id, host_if

    def uplinks(self) -> None:
        for sw in self.d.switches:
            key = self.switch_keys.get(sw.id)
            if key is None or sw.kind is SwitchKind.MACVTAP:
                continue
            bridge, linux = self.wants[key].spec["bridge"], self.wants[key].kind == "bridge"
            if not self.emulate and not linux:
                self.real_uplink(sw, bridge)                      # one trunk port or bond (desired_fabric)
                continue
            vlans = [None] if linux else \
                sorted(self.used_vlans.get(sw.id, set()), key=lambda v: -1 if v is None else v)
            for vlan in vlans:
                attach = {"kind": "bridge", "bridge": bridge} if linux else \
                    {"kind": "ovs", "bridge": bridge, "tag": vlan or 0}
                pnic_id = self.segment_out(sw, vlan, attach)      # one uplink, or a bond (desired_fabric)
                if pnic_id is not None:
                    self.wire_deps.setdefault(pnic_id, set()).add(key)

    def physical(self) -> None:
        for ns, (ps, vlans) in sorted(self.ps_vlans.items()):
            self.add(Want("pswitch", f"pswitch/{ns}", {"ns": ns, "vlans": sorted(vlans)},
                          f"physical switch {ps.name} (namespace {ns}, VLANs {', '.join(map(str, sorted(vlans)))})",
                          ps.id, host=self.lab_host))
        for pnic_id, wires in self.wires.items():
            pnic = self.ix.get(pnic_id)
            host = self.ix.parent(pnic_id).id
            spec = {"pnic": pnic.name, "rate_mbit": pnic.speed_mbps, "ifb_host": ifname("i", self.tag, pnic_id),
                    "ifb_ps": ifname("i", self.tag, pnic_id, "in"), "wires": wires, "real": not self.emulate}
            what = ", ".join(f"VLAN {w['phys']}" for w in wires) if self.emulate else "real device"
            self.add(Want("pnic", f"pnic/{spec['ifb_host']}", spec,
                          f"pNIC {pnic.name} ({what}, {pnic.speed_mbps} Mbit/s)" if self.emulate else
                          f"uplink {pnic.name} ({', '.join(w['host_if'] for w in wires)})",
                          pnic_id, tuple(sorted(self.wire_deps.get(pnic_id, set()))), host=host))

    def physical_hosts(self) -> None:
        """Each physical host: a namespace with one veth per NIC into the VLAN bridge its port puts it in, with
        its addresses of both families and the default route of each family's first gateway (as the
        prediction chooses it: ``default_route``)."""
        if not self.emulate:
            return
        for ph in self.d.physical_hosts:
            ns = ns_name(self.tag, ph.id, "p")
            nics: list[dict[str, Any]] = []
            deps: set[str] = set()
            addresses: dict[str, str] = {}
            addresses6: dict[str, str] = {}
            defaults: dict[int, list[list[str]]] = {}
            for i, nic in enumerate(ph.nics):
                port = self.fabric.port_of(nic.id)
                vlan = ingress(port, nic.vlan) if port is not None and port.up else None
                addrs = self.addresses(nic, f"physical host {ph.name} NIC {nic.name} ip")
                for fam in FAMILIES:
                    own = next((a for a in addrs if family(a) == fam and not link_local(a)), None)
                    if own is None:
                        continue
                    (addresses if fam == 4 else addresses6)[nic.id] = own
                    gateway = gateway_of(nic, fam)
                    if gateway and fam not in defaults:
                        defaults[fam] = default_route(own, gateway, f"eth{i}")
                if vlan is None:
                    continue
                ps = self.fabric.port_switch[port.id]
                ps_ns = ns_name(self.tag, ps.id)
                self.ps_vlans.setdefault(ps_ns, (ps, set()))[1].add(vlan)
                deps.add(f"pswitch/{ps_ns}")
                nics.append({"name": f"eth{i}", "addrs": addrs, "mac": (nic.mac or mac_for(self.tag, nic.id)).lower(),
                             "ps_ns": ps_ns, "ps_if": ifname("h", self.tag, nic.id), "ps_bridge": f"v{vlan}"})
            spec = {"ns": ns, "nics": nics, "routes": [r for fam in FAMILIES for r in defaults.get(fam, [])],
                    "ipv6": any(family(a) == 6 for nic in nics for a in nic["addrs"])}
            self.add(Want("phost", f"phost/{ns}", spec, f"physical host {ph.name} (namespace {ns})", ph.id,
                          tuple(sorted(deps)), host=self.lab_host))
            self.bystanders[ph.id] = Bystander(self.lab_host, ns, addresses, addresses6)

    def patches(self) -> None:
        for link in self.d.links:
            if self.ix.kind(link.a) != "switch" or self.ix.kind(link.b) != "switch":
                continue
            a, b = self.ix.get(link.a), self.ix.get(link.b)
            problem = patch_problem(link.id, a, b)
            if problem:
                self.reasons.append(problem)
                continue
            ka, kb = self.switch_keys.get(a.id), self.switch_keys.get(b.id)
            if not ka or not kb:
                continue
            ends = []
            for sw, key, side in ((a, ka, "a"), (b, kb, "b")):
                ends.append({"kind": "ovs" if sw.kind is SwitchKind.OVS else "bridge",
                             "bridge": self.wants[key].spec["bridge"], "if": ifname("x", self.tag, link.id, side)})
            name = ends[0]["if"]
            self.add(Want("patch", f"patch/{name}", {"a": ends[0], "b": ends[1],
                                                             "ovs_patch": a.kind is b.kind is SwitchKind.OVS},
                          f"patch {a.name} - {b.name}", link.id, (ka, kb), host=a.host))

    # --- guests --------------------------------------------------------------------------------------

    def vm(self, vm: VM) -> None:
        if not vm.host or self.ix.kind(vm.host) != "host":
            self.reasons.append(f"VM {vm.name} is on no host (set its host)")
            return
        boot = self.boot.get(vm.host)
        if boot is None:
            return
        forwards = vm.role is not VmRole.VM
        bridged = forwards and vm.forwarding.mode is ForwardMode.BRIDGED
        words = ["console=ttyS0", "quiet", "panic=-1", f"vnb.name={vm.name.replace(' ', '_')[:60]}"]
        nics, addresses, addresses6, deps = [], {}, {}, set()
        gateways: dict[int, str] = {}                    # family -> the default gateway the guest gets
        inside: dict[str, str] = {}                      # vNIC id -> its interface in the guest
        for i, nic in enumerate(vm.vnics):
            network = self.nic_network(vm, nic)
            if network is None:
                continue
            key, portgroup = network
            deps.add(key)
            mac = self.nic_mac(nic)
            addrs = self.addresses(nic, f"vNIC {vm.name}/{nic.name} ip")
            if (addr := next((a for a in addrs if family(a) == 4), None)) is not None:
                addresses[nic.id] = addr
            if (addr6 := next((a for a in addrs if family(a) == 6 and not link_local(a)), None)) is not None:
                addresses6[nic.id] = addr6
            nics.append({"network": key.split("/", 1)[1],
                         "portgroup": portgroup, "mac": mac,
                         "model": NIC_MODELS.get(nic.type, "virtio"), "up": nic.connected})
            inside[nic.id] = f"eth{i}" + (f".{nic.guest_vlan}" if nic.guest_vlan else "")
            words += cmdline.nic_words(mac, addrs, nic.guest_vlan, f"eth{i}")
            for fam in FAMILIES:
                gateway = gateway_of(nic, fam) if nic.connected else None
                if gateway and fam not in gateways:
                    gateways[fam] = gateway_word(gateway, "br0" if bridged else inside[nic.id])
        words += cmdline.gateway_words(gateways)
        rules, nft_family = None, None
        if forwards:
            words.append(f"vnb.fwd={'bridged' if bridged else 'routed'}")
            rules, nft_family = self.ruleset(vm, bridged)
        name = libvirt_name(self.tag, vm.name)
        if len(text := " ".join(words)) > cmdline.MAX_CMDLINE:
            self.reasons.append(f"VM {vm.name}: its addresses make a kernel command line of {len(text)} bytes, over "
                                f"the {cmdline.MAX_CMDLINE} the guest kernel takes (give it fewer vNICs or addresses)")
        spec = {"name": name, "vcpus": max(1, vm.cpus), "memory_mb": boot.memory_mb, "machine": boot.machine,
                "type": boot.accel, "kernel": boot.kernel, "initrd": boot.initrd, "cmdline": text,
                "nics": nics, "nft": rules, "nft_family": nft_family, "nat": nft.vm_nat_ruleset(vm, inside)}
        if forwards and not bridged and vm.forwarding.routes:   # loaded over the channel, after the rules
            devs = {n.name: inside[n.id] for n in vm.vnics if n.id in inside} | inside
            spec["routes"] = static_routes(vm.forwarding.routes, devs=devs)
        role = "" if vm.role is VmRole.VM else f"{vm.role.value}, "
        models = ", ".join(sorted({n["model"] for n in nics})) or "no NIC"
        self.add(Want("domain", f"domain/{name}", spec, f"guest {vm.name} ({role}{models})", vm.id,
                      tuple(sorted(deps)), host=vm.host))
        self.guests[vm.id] = Guest(vm.host, name, addresses, max(1, vm.cpus), addresses6)

    def nic_mac(self, nic: Any) -> str:
        """The MAC a vNIC's domain interface gets: the design's, or one derived from the design and the vNIC."""
        return str(nic.mac or mac_for(self.tag, nic.id)).lower()

    def nic_network(self, vm: VM, nic: Any) -> tuple[str, str | None] | None:
        """(switch want key, libvirt portgroup) a vNIC plugs into; None: nowhere."""
        if not nic.network:
            return None
        kind = self.ix.kind(nic.network)
        pg = self.ix.get(nic.network) if kind == "portgroup" else None
        sw = self.ix.parent(nic.network) if pg is not None else (self.ix.get(nic.network) if kind == "switch" else None)
        if sw is None:
            self.reasons.append(f"vNIC {vm.name}/{nic.name}: network {nic.network!r} is not a portgroup or switch")
            return None
        if sw.id not in self.switch_keys:
            return None
        if sw.host != vm.host:
            self.reasons.append(f"vNIC {vm.name}/{nic.name}: switch {sw.name} is on another host")
            return None
        place = self.fabric.place(vm, nic)
        if place.invalid:
            self.reasons.append(place.problem)
            return None
        if place.segment is not None:
            self.segment_nics.setdefault((sw.id, place.segment.vlan), []).append((vm, nic, place))
        if filters_vlans(sw):
            if place.segment is not None:
                self.used_vlans.setdefault(sw.id, set()).add(place.segment.vlan)
            return self.switch_keys[sw.id], self.filtering_nic_group(vm, nic)
        if sw.kind is SwitchKind.OVS:
            if pg is None:
                self.reasons.append(f"vNIC {vm.name}/{nic.name}: on Open vSwitch {sw.name}, pick one of its "
                                    "portgroups")
                return None
            if place.segment is not None:
                self.used_vlans.setdefault(sw.id, set()).add(place.segment.vlan)
            return self.switch_keys[sw.id], pg.name
        return self.switch_keys[sw.id], None

    def ruleset(self, vm: VM, bridged: bool) -> tuple[str | None, str | None]:
        fw = vm.forwarding
        try:
            if bridged:
                blocked = any(self.fabric.bridging_problems(vm, nic) for nic in vm.vnics if nic.network)
                return nft.bridged_ruleset(fw, self.resolve, vm.name, blocked), "bridge"
            if fw.rules or fw.default_policy is not Action.ALLOW:
                return nft.routed_ruleset(fw, self.resolve, vm.name), "inet"
        except nft.RuleError as exc:
            self.reasons.append(str(exc))
        return None, None

    def addresses(self, nic: Any, where: str) -> list[str]:
        """Every address of a vNIC (``ip``, then ``addresses``; both families), canonical."""
        found = (interface_address(text, where, self.reasons) for text in addresses(nic))
        return [a for a in found if a]

    # --- all of it -------------------------------------------------------------------------------------

    def build(self) -> Desired:
        self.ps_vlans: dict[str, tuple[Any, set[int]]] = {}     # physical switch namespace -> VLANs used
        kvm_hosts = [h.id for h in self.d.hosts if h.kind.value == "kvm"]
        self.lab_host = kvm_hosts[0] if kvm_hosts else ""
        self.check()
        self.switches()
        self.pvlan_checks()
        for vm in self.d.vms:
            self.vm(vm)
        self.pvlan_listeners()
        self.uplinks()
        self.macvtaps()
        self.physical_hosts()
        self.physical()
        self.patches()
        self.pvlan_flows()
        ordered = dict(sorted(self.wants.items(), key=lambda kv: (PHASE[kv[1].kind], kv[0])))
        return Desired(self.tag, ordered, self.guests, list(dict.fromkeys(self.reasons)), self.bystanders)


def desired(design: Topology, boot: dict[str, Boot], emulate: bool = True) -> Desired:
    """What ``design`` needs on its KVM hosts (``boot``: per host id), with the reasons it cannot be built."""
    return _Builder(design, boot, emulate).build()
