"""The lab builder's records and primitives: what ``desired_lab`` returns, and the namespaces, bridges, veths,
segments and shapers every part of the design is built from (the parts are in the other ``desired_*`` modules)."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from vnetbench.backends import nftables as nft
from vnetbench.backends.addresses import interface_address
from vnetbench.backends.planning import Want, design_tag
from vnetbench.backends.routes import default_route as default_route, static_routes as static_routes
from vnetbench.model import VM, Index, SwitchKind, Topology
from vnetbench.model.families import addresses, family, link_local
from vnetbench.model.forwarding import (
    PER_GUEST, Fabric, Place, SegmentKey, Switching, UplinkChooser, ingress, pvlan_segment_entry,
)
from vnetbench.model.hostos import HOST_ADAPTER_SWITCHES

from .names import ifname, link_local_for, mac_for, ns_name, pvlan_bridge_name
from .unemulated import unemulated

#: Creation order of resource kinds; deletion runs the other way round.
PHASES = ("netns", "bridge", "veth", "vxlan", "routes", "nft", "shaper")

SUPPORTED_SWITCHES = frozenset({SwitchKind.VSS, SwitchKind.VDS, SwitchKind.LINUX_BRIDGE, SwitchKind.OVS,
                                SwitchKind.MACVTAP, SwitchKind.HOSTED_BRIDGED, SwitchKind.HOSTED_HOSTONLY,
                                SwitchKind.HOSTED_NAT, SwitchKind.NSX_SEGMENT, SwitchKind.RAW})
#: NSX tunnel endpoints get addresses from the shared address space (RFC 6598), one per host.
VTEP_NET = ipaddress.IPv4Network("100.64.0.0/16")


@dataclass(frozen=True)
class EndpointInfo:
    ns: str
    addresses: dict[str, str]        # vNIC / NIC id -> IPv4 address/prefix
    addresses6: dict[str, str] = field(default_factory=dict)     # vNIC / NIC id -> global IPv6 address/prefix


@dataclass
class DesiredLab:
    tag: str
    resources: dict[str, Want]
    endpoints: dict[str, EndpointInfo]
    reasons: list[str] = field(default_factory=list)


def veth_end(ns: str, name: str, master: str | None = None, *, isolated: bool = False, hairpin: bool = False,
         learning: bool = True, mac: str | None = None, addrs: tuple[str, ...] = (), up: bool = True) -> dict[str, Any]:
    return {"ns": ns, "name": name, "master": master, "isolated": isolated, "hairpin": hairpin,
            "learning": learning, "mac": mac, "addrs": list(addrs), "up": up}


@dataclass
class Segment:
    """The bridge that emulates one segment (``key``); per-guest keys of one attachment share one bridge."""

    key: SegmentKey
    switch: Any               # the virtual switch, or None for a pNIC's embedded switch or DirectPath
    ns: str
    bridge: str
    mtu: int = 1500

    @property
    def host(self) -> str:
        return self.key.host


class BuilderBase:
    """The state every part of the lab builder shares, and the primitives they build with."""

    def __init__(self, design: Topology) -> None:
        self.d = design
        self.ix = Index(design)
        self.address_of = nft.design_resolver(design)
        self.fabric = Fabric(design, self.ix)
        self.tag = design_tag(design.id)
        self.res: dict[str, Want] = {}
        self.reasons: list[str] = []
        self.endpoints: dict[str, EndpointInfo] = {}
        self.segments: dict[SegmentKey, Segment] = {}
        self.groups: dict[tuple[str, int], list[tuple[str, str, bool]]] = {}   # (pnic, vlan) -> members
        self.private_macs: dict[str, list[str]] = {}                        # pnic -> guest MACs (private)
        self.routes: dict[str, list[list[str]]] = {}
        self.bridge_rules: dict[str, list[str]] = {}                          # hv ns -> statements
        self.ps_used: dict[str, set[int]] = {}
        self.overlay_members: dict[str, list[Segment]] = {}                # NSX switch -> its host segments
        self.vm_ports: list[tuple[str, str, VM, Any]] = []                   # hv ns, port, VM, vNIC
        self.bridge_chains: dict[str, list[tuple[str, list[str]]]] = {}      # hv ns -> extra chains
        self.neighbours: dict[str, list[list[str]]] = {}                     # ns -> [ip, mac, dev] (DLR)
        self.apart_wires: set[tuple[str, str]] = set()          # (ns, uplink port) forwarding to no other uplink

    def _add(self, res: Want) -> None:
        self.res.setdefault(res.key, res)

    def netns(self, role: str, obj_id: str, description: str, forward: bool = False, *extra: str,
              arp_ignore: bool = False) -> str:
        name = ns_name(self.tag, role, obj_id, *extra)
        key = f"netns/{name}"
        spec = {"ns": name, "forward": forward, **({"arp_ignore": True} if arp_ignore else {})}
        self._add(Want("netns", key, spec, f"namespace {name} ({description})", obj_id))
        return name

    def bridge(self, ns: str, name: str, description: str, object_id: str | None, mtu: int = 1500,
               addrs: tuple[str, ...] = ()) -> str:
        self._add(Want("bridge", f"bridge/{ns}/{name}", {"ns": ns, "name": name, "mtu": mtu,
                                                             "addrs": list(addrs)},
                           f"bridge {name} in {ns} ({description})", object_id, (f"netns/{ns}",)))
        return name

    def veth(self, a: dict[str, Any], b: dict[str, Any], description: str, object_id: str | None,
             mtu: int = 1500) -> str:
        key = f"veth/{a['ns']}/{a['name']}"
        deps = [f"netns/{a['ns']}", f"netns/{b['ns']}"]
        deps += [f"bridge/{e['ns']}/{e['master']}" for e in (a, b) if e["master"]]
        self._add(Want("veth", key, {"a": a, "b": b, "mtu": mtu}, f"veth {a['name']} ({description})",
                           object_id, tuple(deps)))
        return key

    def hv(self, host_id: str) -> str:
        host = self.ix.get(host_id)
        # the hypervisor's own addresses (its tunnel endpoint) answer ARP only where they sit, never on the
        # guests' segment bridges, whose addresses may be the same (NSX-T router links use 100.64.0.0/16 too)
        return self.netns("h", host_id, f"host {host.name}", arp_ignore=True)

    def ps_bridge(self, ps_id: str, vlan: int) -> tuple[str, str]:
        ps = self.ix.get(ps_id)
        ns = self.netns("s", ps_id, f"physical switch {ps.name}")
        self.ps_used.setdefault(ps_id, set()).add(vlan)
        return ns, self.bridge(ns, f"v{vlan}", f"{ps.name} VLAN {vlan}", ps_id)

    def check_supported(self) -> None:
        for sw in self.d.switches:
            if sw.kind not in SUPPORTED_SWITCHES:
                self.reasons.append(f"switch {sw.name!r} is a {sw.kind.value}, which the local lab cannot emulate")
        self.reasons += unemulated(self.d, self.fabric)

    def _addrs(self, part: Any, where: str) -> list[str]:
        """Every address of an interface (``ip``, then ``addresses``; both families), canonical."""
        found = (interface_address(text, where, self.reasons) for text in addresses(part))
        return [a for a in found if a]

    def forwarding_addrs(self, addrs: list[str], obj_id: str) -> list[str]:
        """A forwarding interface's addresses, with a link-local one of the lab's (``link_local_for``) where it
        has a global IPv6 address and no link-local one. Linux asks for a neighbour of a packet it forwards from
        the interface's link-local address and sends no solicitation without one, and the namespaces here make
        none of their own (``runner.IPV6_QUIET``); a router's interface always has one (RFC 4291)."""
        if self.global6(addrs) is None or any(link_local(a) for a in addrs):
            return addrs
        return [*addrs, link_local_for(self.tag, obj_id)]

    @staticmethod
    def global6(addrs: list[str]) -> str | None:
        """The first global IPv6 address among an interface's: where its endpoint is reached over IPv6."""
        return next((a for a in addrs if family(a) == 6 and not link_local(a)), None)

    def enable_ipv6(self) -> None:
        """IPv6 on in the namespaces that hold an IPv6 address, and only there: every other namespace keeps it
        off, so its links send no IPv6 chatter at all (see ``runner.create_steps``)."""
        holders = {end["ns"] for r in self.res.values() if r.kind == "veth" for end in (r.spec["a"], r.spec["b"])
                   if any(family(a) == 6 for a in end["addrs"])}
        holders |= {r.spec["ns"] for r in self.res.values() if r.kind == "bridge"
                    and any(family(a) == 6 for a in r.spec["addrs"])}
        for ns in holders:
            self.res[f"netns/{ns}"].spec["ipv6"] = True

    def segment(self, vm: VM, nic: Any) -> tuple[Segment | None, str]:
        """The bridge a vNIC plugs into (None: nowhere), with a reason when the design is wrong."""
        place = self.fabric.place(vm, nic)
        if place.segment is None:
            return None, place.problem if place.invalid else ""
        key = self.vnic_key(vm, nic, place)
        return (self.bridge_of(key) if key is not None else None), ""

    def vnic_key(self, vm: VM, nic: Any, place: Place | None = None) -> SegmentKey | None:
        """The segment ``nic``'s frames join, with the uplink a pin puts it on (``desired_team``)."""
        place = place or self.fabric.place(vm, nic)
        key = place.segment
        if key is not None and self.fabric.may_choose_uplink(vm, nic, place):
            choice = self.fabric.vnic_uplinks(vm, nic, place)
            if choice.chooser is UplinkChooser.PIN:
                key = replace(key, uplink=choice.uplinks[0].pnic)
        return key

    def switch_segment(self, host: str, network: str, who: str) -> tuple[Segment | None, str]:
        """The bridge of ``network``'s untagged segment on ``host`` (a DLR interface's, a patch's, a NAT's)."""
        key, problem = self.fabric.network_segment(network, host, who)
        return (self.bridge_of(key), "") if key is not None else (None, problem)

    def bridge_of(self, key: SegmentKey) -> Segment | None:
        if key.switching is Switching.VIRTUAL:
            sw = self.ix.get(key.switch)
            if sw.kind not in SUPPORTED_SWITCHES:
                return None
            if sw.kind in PER_GUEST:   # every guest of one attachment is a port of its pNIC bridge
                key = SegmentKey(sw.id, key.host, None)
        else:
            sw = None
        if key not in self.segments:
            ns = self.hv(key.host)
            addrs: tuple[str, ...] = ()
            if sw is None:
                what = "embedded switch" if key.switching is Switching.EMBEDDED else "DirectPath"
                br = self.bridge(ns, ifname("f", key.switch, key.vlan, key.guest), f"{self.ix.get(key.switch).name} "
                                 f"{what}" + (f" VLAN {key.vlan}" if key.vlan is not None else ""), key.switch)
            elif sw.kind in PER_GUEST:
                pnic = self.fabric.uplinks_of(sw, key.host, None)
                name = self.ix.get(pnic[0].pnic).name if pnic else sw.name
                br = self.bridge(ns, ifname("q", sw.id, "macvtap"), f"{sw.kind} on {name}", sw.id, sw.mtu)
            else:
                if sw.kind in HOST_ADAPTER_SWITCHES and sw.host_address:   # the host OS's own adapter: an endpoint
                    addr = interface_address(sw.host_address, f"switch {sw.name} host_address", self.reasons)
                    addrs = (addr,) if addr else ()
                    if addr and key.host:     # in its address's family only, as the prediction projects it
                        info = self.endpoints.setdefault(key.host, EndpointInfo(ns, {}))
                        (info.addresses if family(addr) == 4 else info.addresses6)[f"{sw.id}:host"] = addr
                label = f"{sw.name}" + (f" VLAN {key.vlan}" if key.vlan is not None else "")
                entry = pvlan_segment_entry(sw, key.vlan)
                if entry is not None:     # every VLAN of a private VLAN: one bridge, the roles filtered (desired_pvlan)
                    label = f"{sw.name} private VLAN {entry.primary}"
                br = self.bridge(ns, ifname("b", sw.id, key.vlan) if entry is None else pvlan_bridge_name(sw.id, entry.primary),
                                 label, sw.id, sw.mtu, addrs)
            self.segments[key] = Segment(key, sw, ns, br, sw.mtu if sw else 1500)
            if sw is not None and sw.kind is SwitchKind.NSX_SEGMENT:
                self.overlay_members.setdefault(sw.id, []).append(self.segments[key])
        return self.segments[key]

    def attach_to_port(self, ns: str, name: str, obj_id: str, tag: int | None, addrs: Sequence[str],
                       owner: str, object_id: str, svi_switch: str | None = None) -> None:
        """A router interface or physical host NIC: a veth from ``ns`` into the VLAN bridge it lands in."""
        port = self.fabric.port_of(obj_id)
        if port is not None:
            ps_id, vlan = self.ix.parent(port.id).id, ingress(port, tag) if port.up else None
        elif svi_switch:
            ps_id, vlan = svi_switch, tag
            if vlan is None:
                self.reasons.append(f"SVI {owner}/{name} names no VLAN")
        else:
            ps_id, vlan = None, None
        master_ns, master = (self.ps_bridge(ps_id, vlan) if ps_id and vlan is not None else (ns, None))
        # No hairpin on a port with one sender: it would only reflect the sender's own frames back to it.
        b = veth_end(master_ns, ifname("r", obj_id), master) if master else veth_end(ns, ifname("r", obj_id))
        # The NIC takes its port's MTU; an SVI its switch's largest (the frames it routes cross some port).
        mtu = port.mtu if port is not None else max((p.mtu for p in self.ix.get(ps_id).ports), default=1500) \
            if ps_id else 1500
        self.veth(veth_end(ns, name, addrs=tuple(addrs), mac=mac_for(self.tag, obj_id)), b,
                  f"{owner} {name}", object_id, mtu)

    def shaper(self, ns: str, ifb: str, rate: int, members: list[str], what: str, object_id: str) -> None:
        """One ifb + tbf that every listed veth end sends through: a speed shared by all their VLANs."""
        deps = [f"netns/{ns}"] + [k for k, r in self.res.items() if r.kind == "veth"
                                  and any(r.spec[s]["ns"] == ns and r.spec[s]["name"] in members for s in "ab")]
        self._add(Want("shaper", f"shaper/{ns}/{ifb}",
                           {"ns": ns, "ifb": ifb, "rate_mbit": rate, "members": sorted(members)},
                           f"{what} at {rate} Mbit/s", object_id, tuple(deps)))
