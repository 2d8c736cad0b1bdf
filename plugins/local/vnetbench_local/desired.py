"""The design turned into the lab it needs: namespaces, bridges, veths, routes, nftables tables, shapers.

Pure: no kernel access, so it is tested without root. The emulation follows SEMANTICS.md:

- each VM, router/firewall VM, physical router and physical host is a network namespace;
- each host is a "hypervisor" namespace holding one bridge per segment (switch instance, VLAN); a vNIC is a
  veth from the VM's namespace into its segment's bridge. A guest-tagged vNIC on a trunk portgroup is
  simply plugged into the bridge of the VLAN it tags (the kernel here has no 802.1q devices, and none are
  needed: a tag only chooses a segment);
- each physical switch is a namespace with one bridge per VLAN (``v10``); an uplink is one veth per
  (pNIC, physical VLAN), and all veths of one pNIC share one ifb + tbf shaper at the pNIC's speed;
- a switch never sends a frame back out of the port it came in on. When two in-host broadcast domains
  reach the same (port, VLAN), they hang off a per-pNIC bridge as *isolated* ports, so the only way from
  one to the other is out through the pNIC veth and back, which the physical switch bridge does only when
  that port's veth has the hairpin flag. macvtap reuses this: ``bridge`` mode ports talk in-host, ``vepa``
  and ``private`` ports are isolated, and ``private`` also drops hairpinned frames coming back from its
  own guests (an nftables bridge rule on the pNIC veth);
- routers forward (ip_forward) and firewall VMs filter with nftables rules from the model; a bridged
  firewall VM bridges its legs inside its namespace and filters with a bridge-family table; without
  promiscuous mode and forged transmits on its portgroups nothing crosses it;
- NSX segments are a bridge per member host joined by real VXLAN between per-host tunnel endpoints whose
  traffic crosses the transport pNIC; a DLR is one routing namespace per host (``dlr``); the distributed
  firewall filters every guest port in the hypervisor namespaces, both directions;
- hosted networks: bridged joins the pNIC's LAN, host-only is an in-host bridge holding the host's address,
  NAT is a masquerading namespace (``hosted_nat``); a KVM patch is a veth between two bridges.

What the lab cannot emulate is returned as reasons, and ``plan`` refuses the design before anything is made.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any

from vnetbench.model import VM, Action, Forwarding, ForwardMode, Index, MacvtapMode, SwitchKind, Topology, VmRole
from vnetbench.model.forwarding import (BYPASS_TYPES, PER_GUEST, Fabric, SegmentKey, Switching, guests_meet_inside, ingress,
                                        inner_mtu, reflection_reaches_guests, shares_embedded_switch, trunk_vlan)

from vnetbench.backends import nftables as nft
from vnetbench.backends.planning import Want, design_tag
from .names import guest_ifname, ifname, mac_for, ns_name

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
    addresses: dict[str, str]        # vNIC / NIC id -> address/prefix


@dataclass
class DesiredLab:
    tag: str
    resources: dict[str, Want]
    endpoints: dict[str, EndpointInfo]
    reasons: list[str] = field(default_factory=list)


def _end(ns: str, name: str, master: str | None = None, *, isolated: bool = False, hairpin: bool = False,
         learning: bool = True, mac: str | None = None, addrs: tuple[str, ...] = (), up: bool = True) -> dict[str, Any]:
    return {"ns": ns, "name": name, "master": master, "isolated": isolated, "hairpin": hairpin,
            "learning": learning, "mac": mac, "addrs": list(addrs), "up": up}


def _default_route(addr: str, gateway: str) -> list[list[str]]:
    """The guest's default route through the first interface that has an address, a segment and a gateway (as
    the prediction chooses it); a gateway outside that interface's subnet gives no route (the OS refuses it)."""
    try:
        inside = ipaddress.IPv4Address(gateway) in ipaddress.IPv4Interface(addr).network
    except ValueError:
        inside = False
    return [["default", gateway]] if inside else []


@dataclass
class _Segment:
    """The bridge that emulates one segment (``key``); per-guest keys of one attachment share one bridge."""

    key: SegmentKey
    switch: Any               # the virtual switch, or None for a pNIC's embedded switch or DirectPath
    ns: str
    bridge: str
    mtu: int = 1500

    @property
    def host(self) -> str:
        return self.key.host


class _Builder:
    def __init__(self, design: Topology) -> None:
        self.d = design
        self.ix = Index(design)
        self.address_of = nft.design_resolver(design)
        self.fabric = Fabric(design, self.ix)
        self.tag = design_tag(design.id)
        self.res: dict[str, Want] = {}
        self.reasons: list[str] = []
        self.endpoints: dict[str, EndpointInfo] = {}
        self.segments: dict[SegmentKey, _Segment] = {}
        self.groups: dict[tuple[str, int], list[tuple[str, str, bool]]] = {}   # (pnic, vlan) -> members
        self.private_macs: dict[str, list[str]] = {}                        # pnic -> guest MACs (private)
        self.routes: dict[str, list[list[str]]] = {}
        self.bridge_rules: dict[str, list[str]] = {}                          # hv ns -> statements
        self.ps_used: dict[str, set[int]] = {}
        self.overlay_members: dict[str, list[_Segment]] = {}                # NSX switch -> its host segments
        self.vm_ports: list[tuple[str, str, VM, Any]] = []                   # hv ns, port, VM, vNIC
        self.bridge_chains: dict[str, list[tuple[str, list[str]]]] = {}      # hv ns -> extra chains
        self.neighbours: dict[str, list[list[str]]] = {}                     # ns -> [ip, mac, dev] (DLR)

    # --- primitives ---------------------------------------------------------------------------------

    def _add(self, res: Want) -> None:
        self.res.setdefault(res.key, res)

    def netns(self, role: str, obj_id: str, description: str, forward: bool = False, *extra: str) -> str:
        name = ns_name(self.tag, role, obj_id, *extra)
        key = f"netns/{name}"
        self._add(Want("netns", key, {"ns": name, "forward": forward}, f"namespace {name} ({description})",
                           obj_id))
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
        return self.netns("h", host_id, f"host {host.name}")

    def ps_bridge(self, ps_id: str, vlan: int) -> tuple[str, str]:
        ps = self.ix.get(ps_id)
        ns = self.netns("s", ps_id, f"physical switch {ps.name}")
        self.ps_used.setdefault(ps_id, set()).add(vlan)
        return ns, self.bridge(ns, f"v{vlan}", f"{ps.name} VLAN {vlan}", ps_id)

    # --- checks -----------------------------------------------------------------------------------

    def check_supported(self) -> None:
        for sw in self.d.switches:
            if sw.kind not in SUPPORTED_SWITCHES:
                self.reasons.append(f"switch {sw.name!r} is a {sw.kind.value}, which the local lab cannot emulate")

    @staticmethod
    def _iface(text: str | None, where: str, reasons: list[str]) -> str | None:
        if not text:
            return None
        try:
            if "/" not in text:
                raise ValueError
            return str(ipaddress.IPv4Interface(text))
        except ValueError:
            reasons.append(f"{where}: {text!r} is not an IPv4 address/prefix (write it like 10.0.0.5/24)")
            return None

    # --- where things plug in ---------------------------------------------------------------------

    def segment(self, vm: VM, nic: Any) -> tuple[_Segment | None, str]:
        """The bridge a vNIC plugs into (None: nowhere), with a reason when the design is wrong."""
        place = self.fabric.place(vm, nic)
        if place.segment is None:
            return None, place.problem if place.invalid else ""
        return self.bridge_of(place.segment), ""

    def switch_segment(self, host: str, network: str, who: str) -> tuple[_Segment | None, str]:
        """The bridge of ``network``'s untagged segment on ``host`` (a DLR interface's, a patch's, a NAT's)."""
        kind = self.ix.kind(network)
        if kind not in ("portgroup", "switch"):
            return None, f"{who}: network {network!r} is not a portgroup or switch"
        pg = self.ix.get(network) if kind == "portgroup" else None
        sw = self.ix.parent(network) if pg is not None else self.ix.get(network)
        if host not in self.fabric.switch_hosts(sw):
            return None, f"{who}: {sw.name} does not exist on {self.fabric.name_of(host)}"
        vlan, problem = self.fabric.frame_vlan(sw, pg, None, who)
        if problem:
            return None, f"{who}: {problem}"
        return self.bridge_of(SegmentKey(sw.id, host, vlan)), ""

    def bridge_of(self, key: SegmentKey) -> _Segment | None:
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
                if sw.kind is SwitchKind.HOSTED_HOSTONLY and sw.host_address:
                    addr = self._iface(sw.host_address, f"switch {sw.name} host_address", self.reasons)
                    addrs = (addr,) if addr else ()
                label = f"{sw.name}" + (f" VLAN {key.vlan}" if key.vlan is not None else "")
                br = self.bridge(ns, ifname("b", sw.id, key.vlan), label, sw.id, sw.mtu, addrs)
            self.segments[key] = _Segment(key, sw, ns, br, sw.mtu if sw else 1500)
            if sw is not None and sw.kind is SwitchKind.NSX_SEGMENT:
                self.overlay_members.setdefault(sw.id, []).append(self.segments[key])
        return self.segments[key]

    # --- VMs --------------------------------------------------------------------------------------

    def vm(self, vm: VM) -> None:
        if not vm.host or self.ix.kind(vm.host) != "host":
            self.reasons.append(f"VM {vm.name} is on no host (set its host)")
            return
        fw = vm.forwarding
        forwards = vm.role is not VmRole.VM
        bridged = forwards and fw.mode is ForwardMode.BRIDGED
        ns = self.netns("v", vm.id, f"VM {vm.name}", forward=forwards and not bridged)
        addresses: dict[str, str] = {}
        taken: set[str] = set()
        blocked_by_policy = False
        bridge_addrs: list[str] = []
        for i, nic in enumerate(vm.vnics):
            seg, why = self.segment(vm, nic)
            if why:
                self.reasons.append(why)
            addr = self._iface(nic.ip, f"vNIC {vm.name}/{nic.name} ip", self.reasons)
            if addr:
                addresses[nic.id] = addr
            name = guest_ifname(nic.name, i, taken)
            taken.add(name)
            if bridged:
                blocked_by_policy |= bool(seg and self.fabric.bridging_problems(vm, nic))
                bridge_addrs += [addr] if addr else []
            mac = nic.mac or mac_for(self.tag, nic.id)
            isolated = False
            if seg and seg.switch is not None and seg.switch.kind in PER_GUEST:
                isolated = not guests_meet_inside(seg.switch)
                if not reflection_reaches_guests(seg.switch):
                    pnic = self.fabric.uplinks_of(seg.switch, vm.host, None)[0].pnic
                    self.private_macs.setdefault(pnic, []).append(mac.lower())
            a = _end(ns, name, "fw0" if bridged else None, mac=mac, up=nic.connected,
                     addrs=() if bridged or not addr else (addr,))
            b = _end(seg.ns if seg else self.hv(vm.host), ifname("n", nic.id),
                     seg.bridge if seg and nic.connected else None, isolated=isolated, learning=not isolated)
            self.veth(a, b, f"{vm.name} {nic.name}", vm.id, min(nic.mtu, seg.mtu) if seg else nic.mtu)
            if seg and nic.connected:
                self.vm_ports.append((seg.ns, b["name"], vm, nic))
            if seg and addr and nic.gateway and ns not in self.routes:
                self.routes[ns] = _default_route(addr, nic.gateway)
        if bridged:
            self.bridge(ns, "fw0", f"bridged firewall {vm.name}", vm.id, addrs=tuple(bridge_addrs))
        self.endpoints[vm.id] = EndpointInfo(ns, addresses)
        if forwards:
            self.firewall(vm, ns, bridged, blocked_by_policy)

    def check_passthrough(self) -> None:
        for sw in self.d.switches:
            if sw.kind is SwitchKind.MACVTAP and sw.macvtap_mode is MacvtapMode.PASSTHROUGH:
                users = {v.id for v in self.d.vms for n in v.vnics if n.network == sw.id}
                if len(users) > 1:
                    self.reasons.append(f"macvtap {sw.name} is in passthrough mode (one VM owns the pNIC) "
                                        f"but {len(users)} VMs use it")

    def firewall(self, vm: VM, ns: str, bridged: bool, blocked_by_policy: bool) -> None:
        fw = vm.forwarding
        try:
            if bridged:
                text = nft.bridged_ruleset(fw, self.address_of, vm.name, blocked_by_policy)
                family = "bridge"
            elif fw.rules or fw.default_policy is not Action.ALLOW:
                text, family = nft.routed_ruleset(fw, self.address_of, vm.name), "inet"
            else:
                return
        except nft.RuleError as exc:
            self.reasons.append(str(exc))
            return
        self._add(Want("nft", f"nft/{ns}/{family}", {"ns": ns, "family": family, "text": text},
                           f"{'bridge' if bridged else 'forward'} filter of {vm.name} "
                           f"({len(fw.rules)} rules, default {fw.default_policy.value})", vm.id,
                           (f"netns/{ns}",)))

    # --- the physical side -------------------------------------------------------------------------

    def attach_to_port(self, ns: str, name: str, obj_id: str, tag: int | None, addr: str | None,
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
        b = _end(master_ns, ifname("r", obj_id), master) if master else _end(ns, ifname("r", obj_id))
        # The NIC takes its port's MTU; an SVI its switch's largest (the frames it routes cross some port).
        mtu = port.mtu if port is not None else max((p.mtu for p in self.ix.get(ps_id).ports), default=1500) \
            if ps_id else 1500
        self.veth(_end(ns, name, addrs=(addr,) if addr else (), mac=mac_for(self.tag, obj_id)), b,
                  f"{owner} {name}", object_id, mtu)

    def physical_router(self, rt: Any) -> None:
        ns = self.netns("r", rt.id, f"router {rt.name}", forward=True)
        taken: set[str] = set()
        for i, itf in enumerate(rt.interfaces):
            name = guest_ifname(itf.name, i, taken)
            taken.add(name)
            addr = self._iface(itf.ip, f"router {rt.name} interface {itf.name} ip", self.reasons)
            self.attach_to_port(ns, name, itf.id, itf.vlan, addr, rt.name, rt.id, rt.switch)
        if rt.routes:
            self.routes[ns] = [[r.prefix, r.via] for r in rt.routes]

    def physical_host(self, ph: Any) -> None:
        ns = self.netns("p", ph.id, f"physical host {ph.name}")
        taken: set[str] = set()
        addresses = {}
        for i, nic in enumerate(ph.nics):
            name = guest_ifname(nic.name, i, taken)
            taken.add(name)
            addr = self._iface(nic.ip, f"physical host {ph.name} NIC {nic.name} ip", self.reasons)
            if addr:
                addresses[nic.id] = addr
            self.attach_to_port(ns, name, nic.id, nic.vlan, addr, ph.name, ph.id)
            if addr and nic.gateway and ns not in self.routes:
                self.routes[ns] = _default_route(addr, nic.gateway)
        self.endpoints[ph.id] = EndpointInfo(ns, addresses)

    def uplinks(self) -> None:
        """Each segment's bridge reaches the physical switch VLAN its wire lands in (``Fabric.segment_wire``).

        An SR-IOV embedded switch joins the segment of the same pNIC and VLAN directly (a veth inside the host,
        as the NIC switches between its VFs and its own traffic) and reaches the wire through it.
        """
        wires = {key: self.fabric.segment_wire(key) for key in self.segments}
        wires = {key: w for key, w in wires.items() if w is not None and w.pnic is not None}
        for key, wire in wires.items():
            seg = self.segments[key]
            if key.switching is Switching.EMBEDDED:
                partner = next((self.segments[k] for k, w in wires.items() if k.switching is Switching.VIRTUAL
                                and shares_embedded_switch(wire, w)), None)
                if partner is not None:
                    self.veth(_end(seg.ns, ifname("e", seg.bridge), seg.bridge),
                              _end(partner.ns, ifname("e", partner.bridge, seg.bridge), partner.bridge),
                              f"{self.ix.get(key.switch).name} embedded switch - {partner.bridge}", key.switch)
                    continue
            guests = seg.switch is not None and seg.switch.kind in PER_GUEST
            self.groups.setdefault((wire.pnic, wire.vlan), []).append((seg.bridge, seg.ns, guests))
        shaped: dict[tuple[str, str, bool], list[str]] = {}     # (ns, pNIC, inbound) -> veth ends
        for (pnic_id, phys), members in self.groups.items():
            pnic, port = self.ix.get(pnic_id), self.fabric.port_of(pnic_id)
            host_ns = members[0][1]
            mtu = min(pnic.mtu, port.mtu)    # the pNIC and its port, as the cable between them
            ps_ns, ps_br = self.ps_bridge(self.ix.parent(port.id).id, phys)
            shared = len(members) > 1 or members[0][2]
            if not shared:
                top = members[0][0]
            else:
                # Several in-host domains behind one (port, VLAN), or macvtap guests: a pNIC bridge that does
                # not learn, so every frame from a member goes up and only the switch's hairpin brings it back.
                top = next((br for br, _, is_q in members if is_q), None) or self.bridge(
                    host_ns, ifname("q", pnic_id, phys), f"{pnic.name} VLAN {phys}", pnic_id)
                for br, ns, _ in members:
                    if br != top:
                        self.veth(_end(ns, ifname("g", pnic_id, phys, br), br),
                                  _end(ns, ifname("k", pnic_id, phys, br), top, isolated=True, learning=False),
                                  f"{pnic.name}: segment {br} onto the pNIC", pnic_id, mtu)
            up, down = ifname("u", pnic_id, phys), ifname("p", pnic_id, phys)
            self.veth(_end(host_ns, up, top, learning=not shared),
                      _end(ps_ns, down, ps_br, hairpin=shared and port.hairpin),
                      f"{pnic.name} VLAN {phys} to {port.name}", pnic_id, mtu)
            shaped.setdefault((host_ns, pnic_id, False), []).append(up)
            shaped.setdefault((ps_ns, pnic_id, True), []).append(down)
            if pnic_id in self.private_macs:
                macs = ", ".join(sorted(set(self.private_macs[pnic_id])))
                self.bridge_rules.setdefault(host_ns, []).append(
                    f'iifname "{up}" ether saddr {{ {macs} }} drop comment "macvtap private {pnic.name}"')
        for (ns, pnic_id, inbound), members in shaped.items():
            pnic = self.ix.get(pnic_id)
            self.shaper(ns, ifname("j" if inbound else "i", pnic_id), pnic.speed_mbps, members,
                        f"{pnic.name} {'inbound' if inbound else 'outbound'}", pnic_id)

    def shaper(self, ns: str, ifb: str, rate: int, members: list[str], what: str, object_id: str) -> None:
        """One ifb + tbf that every listed veth end sends through: a speed shared by all their VLANs."""
        deps = [f"netns/{ns}"] + [k for k, r in self.res.items() if r.kind == "veth"
                                  and any(r.spec[s]["ns"] == ns and r.spec[s]["name"] in members for s in "ab")]
        self._add(Want("shaper", f"shaper/{ns}/{ifb}",
                           {"ns": ns, "ifb": ifb, "rate_mbit": rate, "members": sorted(members)},
                           f"{what} at {rate} Mbit/s", object_id, tuple(deps)))

    def dlr(self, dlr: Any) -> None:
        """An NSX DLR: one instance per host, each with the same addresses on the local segments.

        The instance on the source host routes (SEMANTICS 4.3). As in NSX, where the controller knows every
        guest's IP and MAC, each instance gets static neighbour entries and needs no ARP of its own; bridge
        rules keep ARP for the DLR's addresses inside each host, so a guest always finds its local instance.
        """
        per_host: dict[str, list[tuple[Any, _Segment]]] = {}
        for itf in dlr.interfaces:
            net = self.ix.get(itf.network)
            sw = self.ix.parent(itf.network) if self.ix.kind(itf.network) == "portgroup" else net
            if sw is None or self.ix.kind(sw.id) != "switch":
                self.reasons.append(f"DLR {dlr.name} interface {itf.name}: network {itf.network!r} is not a "
                                    "portgroup or switch")
                continue
            for host in self.fabric.switch_hosts(sw):
                seg, why = self.switch_segment(host, itf.network, f"DLR {dlr.name} interface {itf.name}")
                if why:
                    self.reasons.append(why)
                if seg:
                    per_host.setdefault(host, []).append((itf, seg))
        lif_ips = sorted({str(ipaddress.IPv4Interface(i.ip).ip) for i in dlr.interfaces
                          if self._iface(i.ip, f"DLR {dlr.name} interface {i.name} ip", [])})
        for host, items in per_host.items():
            ns = self.netns("d", dlr.id, f"DLR {dlr.name} on {self.ix.get(host).name}", True, host)
            taken: set[str] = set()
            for i, (itf, seg) in enumerate(items):
                addr = self._iface(itf.ip, f"DLR {dlr.name} interface {itf.name} ip", self.reasons)
                name = guest_ifname(itf.name, i, taken)
                taken.add(name)
                self.veth(_end(ns, name, mac=mac_for(self.tag, itf.id, host), addrs=(addr,) if addr else ()),
                          _end(seg.ns, ifname("d", itf.id, host), seg.bridge),
                          f"DLR {dlr.name} {itf.name} on {self.ix.get(host).name}", dlr.id, seg.mtu)
                if addr:
                    net = ipaddress.IPv4Interface(addr).network
                    for vm in self.d.vms:
                        for nic in vm.vnics:
                            if nic.network == itf.network and nic.ip and "/" in nic.ip and \
                                    ipaddress.IPv4Interface(nic.ip).ip in net:
                                self.neighbours.setdefault(ns, []).append(
                                    [str(ipaddress.IPv4Interface(nic.ip).ip), nic.mac or mac_for(self.tag, nic.id),
                                     name])
                if lif_ips:
                    ips = "{ " + ", ".join(lif_ips) + " }"
                    rules = self.bridge_rules.setdefault(seg.ns, [])
                    for rule in (f'arp daddr ip {ips} iifname != "n*" drop comment "{dlr.name} ARP stays local"',
                                 f'arp saddr ip {ips} oifname != "n*" drop comment "{dlr.name} ARP stays local"'):
                        if rule not in rules:
                            rules.append(rule)

    def patches(self) -> None:
        """A KVM patch (OVS patch port, veth between bridges) between two switches of one host: a veth."""
        for link in self.d.links:
            if self.ix.kind(link.a) != "switch" or self.ix.kind(link.b) != "switch":
                continue
            a, b = self.ix.get(link.a), self.ix.get(link.b)
            if not (a.host and a.host == b.host and {a.kind, b.kind} <= {SwitchKind.OVS, SwitchKind.LINUX_BRIDGE}):
                self.reasons.append(f"link {link.id}: only Linux bridges and OVS switches of one host can be "
                                    f"patched together, not {a.name} ({a.kind.value}) and {b.name} ({b.kind.value})")
                continue
            sa, _ = self.switch_segment(a.host, a.id, f"patch {link.id}")
            sb, _ = self.switch_segment(b.host, b.id, f"patch {link.id}")
            if sa and sb:
                self.veth(_end(sa.ns, ifname("c", link.id, "a"), sa.bridge),
                          _end(sb.ns, ifname("c", link.id, "b"), sb.bridge), f"patch {a.name} - {b.name}", link.id)

    def hosted_nat(self, sw: Any) -> None:
        """A hosted hypervisor's NAT service: a namespace that masquerades the NAT network onto the host's LAN.

        It sends from the host OS's own address on the NAT's pNIC and routes through the host's gateway, where
        the design gives them (``PNic.ip``/``gateway``). Without them the service borrows, in every subnet of
        the physical network's endpoints, the highest address nobody uses, and routes through the gateway most
        LAN endpoints use. A destination not on the LAN stays unreachable, and nothing outside reaches in (no
        port forwarding), as SEMANTICS.md describes.
        """
        if not sw.host or not sw.nat_gateway:
            return
        seg, why = self.switch_segment(sw.host, sw.id, f"switch {sw.name}")
        if seg is None:
            self.reasons.append(why or f"switch {sw.name}: no NAT network")
            return
        gateway = ipaddress.IPv4Address(sw.nat_gateway.split("/")[0])
        nets = [ipaddress.IPv4Interface(n.ip).network for v in self.d.vms for n in v.vnics
                if n.network == sw.id and n.ip and "/" in n.ip]
        inside = next((n for n in nets if gateway in n), ipaddress.IPv4Network(f"{gateway}/24", strict=False))
        ns = self.netns("n", sw.id, f"NAT of {sw.name}", True)
        self.veth(_end(ns, "inside", addrs=(f"{gateway}/{inside.prefixlen}",)),
                  _end(seg.ns, ifname("a", sw.id), seg.bridge), f"{sw.name} NAT inside", sw.id)
        wire = self.fabric.nat_wire(sw)
        if wire.pnic is None:
            return
        own = self.ix.get(wire.pnic)
        lan = [*(n for ph in self.d.physical_hosts for n in ph.nics),
               *(i for rt in self.d.physical_routers for i in rt.interfaces),
               *(n for v in self.d.vms for n in v.vnics if self.ix.kind(n.network) == "switch"
                 and self.ix.get(n.network).kind is SwitchKind.HOSTED_BRIDGED)]
        used = {ipaddress.IPv4Interface(x.ip).ip for x in lan if x.ip and "/" in x.ip}
        borrowed = []
        for net in sorted({ipaddress.IPv4Interface(x.ip).network for x in lan if x.ip and "/" in x.ip} - {inside}):
            free = next((a for a in reversed(list(net.hosts())[-64:]) if a not in used), None)
            if free is not None:
                borrowed.append(f"{free}/{net.prefixlen}")
        gateways = [x.gateway for x in lan if getattr(x, "gateway", None)]
        address = self._iface(own.ip, f"{self.ix.parent(own.id).name}/{own.name} ip", self.reasons)
        if address:
            borrowed, gateways = [address], [own.gateway] if own.gateway else []
        hv = self.hv(sw.host)
        br = self.bridge(hv, ifname("w", sw.id), f"{sw.name} NAT outside", sw.id)
        self.veth(_end(ns, "outside", addrs=tuple(borrowed)), _end(hv, ifname("e", sw.id), br),
                  f"{sw.name} NAT outside", sw.id)
        self.groups.setdefault((wire.pnic, wire.vlan), []).append((br, hv, False))
        if gateways:
            self.routes[ns] = [["default", max(set(gateways), key=gateways.count)]]
        self._add(Want("nft", f"nft/{ns}/ip", {"ns": ns, "family": "ip", "text": nft.nat_ruleset("outside")},
                           f"NAT of {sw.name} (masquerade, nothing in from outside)", sw.id, (f"netns/{ns}",)))

    def overlay(self) -> None:
        """NSX segments: a bridge per member host, joined by VXLAN between the hosts' tunnel endpoints.

        Each host with NSX segments gets a transport bridge holding its VTEP address; it reaches the physical
        network through the host's transport pNIC in the transport VLAN (``Fabric.transport``) like any segment,
        so the tunnels really cross the pNICs, and only where the physical network carries that VLAN. The VXLAN
        device takes guest frames up to the transport MTU less the overlay's bytes (``inner_mtu``: VXLAN 50,
        Geneve 54, which the lab's VXLAN emulates at the sending host), and the physical ports on the way drop
        encapsulated frames larger than their own MTU, as real ones do.
        """
        if not self.overlay_members:
            return
        vteps: dict[str, str] = {}
        transport_mtu: dict[str, int] = {}
        for host_id in sorted({seg.host for segs in self.overlay_members.values() for seg in segs}):
            wire = self.fabric.transport(host_id)
            if wire.pnic is None:
                continue
            ns = self.hv(host_id)
            index = next(i for i, h in enumerate(self.d.hosts) if h.id == host_id)
            vteps[host_id] = str(VTEP_NET[index + 1])
            transport_mtu[host_id] = min(self.ix.get(wire.pnic).mtu, wire.port.mtu)
            br = self.bridge(ns, ifname("x", host_id), "NSX transport", host_id, transport_mtu[host_id],
                             (f"{vteps[host_id]}/{VTEP_NET.prefixlen}",))
            self.groups.setdefault((wire.pnic, wire.vlan), []).append((br, ns, False))
        for n, (sw_id, segs) in enumerate(self.overlay_members.items()):
            sw = self.ix.get(sw_id)
            vni = sw.vni or 5000 + n
            for seg in segs:
                if seg.host not in vteps:
                    continue
                remotes = sorted(vteps[s.host] for s in segs if s.host != seg.host and s.host in vteps)
                name = ifname("o", sw_id)
                self._add(Want("vxlan", f"vxlan/{seg.ns}/{name}",
                                   {"ns": seg.ns, "name": name, "vni": vni, "local": vteps[seg.host],
                                    "remotes": remotes, "master": seg.bridge,
                                    "mtu": min(sw.mtu, inner_mtu(sw, transport_mtu[seg.host]))},
                                   f"VXLAN {vni} of {sw.name} on {self.ix.get(seg.host).name}", sw_id,
                                   (f"netns/{seg.ns}", f"bridge/{seg.ns}/{seg.bridge}",
                                    f"bridge/{seg.ns}/{ifname('x', seg.host)}")))

    def dfw(self) -> None:
        """The NSX distributed firewall: its rules filter each guest port of every host, both directions (not an
        SR-IOV or DirectPath adapter's: it bypasses the virtual switch the DFW sits in)."""
        dfw = self.d.nsx.dfw
        if not dfw.rules and dfw.default_policy is Action.ALLOW:
            return
        chains: dict[tuple[str, tuple[int, ...]], str] = {}
        for ns, port, vm, nic in self.vm_ports:
            if nic.type in BYPASS_TYPES:
                continue
            picked = tuple(i for i, r in enumerate(dfw.rules)
                           if not r.applied_to or nic.id in r.applied_to or vm.id in r.applied_to)
            if (ns, picked) not in chains:
                name = chains[(ns, picked)] = f"dfw{sum(1 for k in chains if k[0] == ns)}"
                fw = Forwarding(ForwardMode.BRIDGED, dfw.stateful, dfw.default_policy,
                                [dfw.rules[i] for i in picked])
                try:
                    body = nft.chain_body(fw, self.address_of, "DFW", conntrack=False)
                except nft.RuleError as exc:
                    self.reasons.append(str(exc))
                    return
                verdict = "accept" if dfw.default_policy is Action.ALLOW else "drop"
                self.bridge_chains.setdefault(ns, []).append((name, [*body, f'{verdict} comment "DFW default"']))
                if len(self.bridge_chains[ns]) == 1:
                    self.bridge_rules.setdefault(ns, []).append("ether type arp accept")
            chain = chains[(ns, picked)]
            self.bridge_rules.setdefault(ns, []).extend([f'iifname "{port}" jump {chain}',
                                                         f'oifname "{port}" jump {chain}'])

    def trunks(self) -> None:
        """Veths between physical switches, one per VLAN the trunk carries and some switch uses."""
        trunks = []
        for link in self.d.links:
            if self.ix.kind(link.a) == "port" and self.ix.kind(link.b) == "port":
                trunks.append((self.ix.get(link.a), self.ix.get(link.b), link))
        changed = True
        while changed:
            changed = False
            for pa, pb, _ in trunks:
                for src, dst in ((pa, pb), (pb, pa)):
                    sa, sb = self.ix.parent(src.id).id, self.ix.parent(dst.id).id
                    for vlan in sorted(self.ps_used.get(sa, set())):
                        other = trunk_vlan(src, dst, vlan)
                        if other is not None and other not in self.ps_used.get(sb, set()):
                            self.ps_bridge(sb, other)
                            changed = True
        shaped: dict[tuple[str, str], list[str]] = {}      # (ns, link) -> veth ends of a trunk with a speed
        for pa, pb, link in trunks:
            sa, sb = self.ix.parent(pa.id), self.ix.parent(pb.id)
            for vlan in sorted(self.ps_used.get(sa.id, set())):
                other = trunk_vlan(pa, pb, vlan)
                if other is None:
                    continue
                ns_a, br_a = self.ps_bridge(sa.id, vlan)
                ns_b, br_b = self.ps_bridge(sb.id, other)
                ends = (ifname("t", link.id, vlan, "a"), ifname("t", link.id, vlan, "b"))
                self.veth(_end(ns_a, ends[0], br_a),       # no hairpin: two reflecting
                          _end(ns_b, ends[1], br_b),       # ends would loop frames
                          f"trunk {sa.name} {pa.name} - {sb.name} {pb.name} VLAN {vlan}", link.id,
                          min(pa.mtu, pb.mtu))
                if link.speed_mbps:
                    shaped.setdefault((ns_a, link.id), []).append(ends[0])
                    shaped.setdefault((ns_b, link.id), []).append(ends[1])
        for (ns, link_id), members in shaped.items():
            self.shaper(ns, ifname("i", link_id, ns), self.ix.get(link_id).speed_mbps, members,
                        f"trunk {link_id}", link_id)

    def finish(self) -> None:
        for ns, routes in {**{n: [] for n in self.neighbours}, **self.routes}.items():
            deps = [f"netns/{ns}"] + [k for k, r in self.res.items()
                                      if (r.kind == "veth" and ns in (r.spec["a"]["ns"], r.spec["b"]["ns"]))
                                      or (r.kind == "bridge" and r.spec["ns"] == ns)]
            owner = self.res[f"netns/{ns}"].object_id
            spec: dict[str, Any] = {"ns": ns, "routes": routes}
            if ns in self.neighbours:
                spec["neigh"] = self.neighbours[ns]
            what = [f"{p} via {v}" for p, v in routes] + ([f"{len(self.neighbours[ns])} static neighbours"]
                                                           if ns in self.neighbours else [])
            self._add(Want("routes", f"routes/{ns}", spec, f"routes in {ns} ({', '.join(what)})", owner,
                               tuple(deps)))
        for ns, body in self.bridge_rules.items():
            chains = [("forward", "forward", "accept", body),
                      *((name, "", "", stmts) for name, stmts in self.bridge_chains.get(ns, []))]
            self._add(Want("nft", f"nft/{ns}/bridge", {"ns": ns, "family": "bridge",
                                                          "text": nft.ruleset("bridge", chains)},
                               f"bridge filter in {ns} ({len(body)} rules)", self.res[f"netns/{ns}"].object_id,
                               (f"netns/{ns}",)))
        self.check_loops()

    def check_loops(self) -> None:
        """Linux bridges run no spanning tree here: a layer-2 loop would flood the machine, so refuse it."""
        parent: dict[tuple[str, str], tuple[str, str]] = {}

        def find(x: tuple[str, str]) -> tuple[str, str]:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for r in self.res.values():
            if r.kind != "veth":
                continue
            a, b = r.spec["a"], r.spec["b"]
            if a["master"] and b["master"]:
                ra, rb = find((a["ns"], a["master"])), find((b["ns"], b["master"]))
                if ra == rb:
                    self.reasons.append(f"the layer-2 network has a loop through {r.description}: the lab "
                                        "runs no spanning tree (remove a trunk, uplink or bridged firewall leg)")
                    return
                parent[ra] = rb

    def build(self) -> DesiredLab:
        self.check_supported()
        for vm in self.d.vms:
            self.vm(vm)
        for dlr in self.d.nsx.dlrs:
            self.dlr(dlr)
        for rt in self.d.physical_routers:
            self.physical_router(rt)
        for ph in self.d.physical_hosts:
            self.physical_host(ph)
        self.check_passthrough()
        self.patches()
        for sw in self.d.switches:
            if sw.kind is SwitchKind.HOSTED_NAT:
                self.hosted_nat(sw)
        self.overlay()
        self.uplinks()
        self.trunks()
        self.dfw()
        self.finish()
        ordered = dict(sorted(self.res.items(), key=lambda kv: (PHASES.index(kv[1].kind), kv[0])))
        return DesiredLab(self.tag, ordered, self.endpoints, self.reasons)


def desired_lab(design: Topology) -> DesiredLab:
    """The lab ``design`` needs, with the reasons it cannot be built (empty when it can)."""
    return _Builder(design).build()
