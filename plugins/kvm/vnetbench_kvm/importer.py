"""Read libvirt hosts into a design: networks (Linux bridges, OVS bridges with their portgroups and VLANs,
macvtap networks, the VLAN-filtering Linux bridges vnetbench deployed on OVS with their ports' VLANs:
``import_filtering``, an OVS switch's private VLAN map from the network's mark: ``xml.read_pvlans``), bridges
guests name directly, and domains with their interfaces (model, MAC, source, VLAN, direct mode). One listing
call per object kind and host (``listAllNetworks``, ``listAllDomains``); libvirt has no bulk XML call, so each
object's XML is one more local call on the same connection.

vnetbench's own objects come back under their design names (the ``vnb-<tag>-`` prefix is dropped). A guest
vnetbench deployed (it carries the mark) keeps its addresses of both families, gateways and guest VLANs (its
kernel command line names them: ``cmdline``) and its role (the mark's ``role``, else ``vnb.fwd``: a forwarding
guest); any other running guest's addresses (IPv4 and global IPv6) come from the guest agent, else libvirt's DHCP
leases. What none of them knows stays empty, and ``validate`` says so.
"""

from __future__ import annotations

import ipaddress
import re
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any

from vnetbench.backends import ProgressFn
from vnetbench.model import (VM, BridgeVlans, ForwardMode, Host, HostKind, Layout, MacvtapMode, NicType, Place, PNic,
                             Portgroup, Pvlan, PvlanType, Switch, SwitchKind, Topology, Uplink, VmRole, VNic)
from vnetbench.model.forwarding import pvlan_entry
from vnetbench.model.vlan import UNTAGGED
from vnetbench.model.families import addresses, link_local

from . import cmdline
from .config import split_libvirt_name
from .import_filtering import bridge_vlans, filtering_groups
from .xml import read_mark, read_pvlans

MODELS = {"pcnet": NicType.VLANCE, "e1000": NicType.E1000, "e1000e": NicType.E1000E, "vmxnet3": NicType.VMXNET3,
          "virtio": NicType.VIRTIO, "rtl8139": NicType.RTL8139}
MACVTAP_MODES = {m.value for m in MacvtapMode}


def _id(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts))


def _plain(name: str) -> str:
    split = split_libvirt_name(name)
    return split[1] if split else name


def _vlan(el: ET.Element | None) -> tuple[int | str, int | None]:
    """libvirt ``<vlan>`` -> (portgroup vlan, native VLAN)."""
    if el is None:
        return "trunk", None
    tags = [t for t in el.findall("tag") if t.get("id", "").isdigit()]
    native = next((int(t.get("id")) for t in tags if t.get("nativeMode")), None)
    ids = sorted(int(t.get("id")) for t in tags)
    if el.get("trunk") == "yes" or len(ids) > 1:
        listed = [i for i in ids if i != native] or ids
        return "trunk " + ",".join(map(str, listed)), native
    return (ids[0] if ids else 0), None


def host_name(conn: Any) -> str:
    """What a design calls this KVM host: the host name vnetbench's guests there were deployed under (when they
    agree), else the machine's own name, else "kvm"."""
    names = set()
    for dom in conn.listAllDomains(0):
        mark = read_mark(dom.XMLDesc(0))
        if mark is not None and mark.host:
            names.add(mark.host)
    if len(names) == 1:
        return names.pop()
    try:
        return str(conn.getHostname()).split(".")[0] or "kvm"
    except Exception:  # noqa: BLE001 - libvirt errors: a generic name will do
        return "kvm"


class _Host:
    def __init__(self, topo: Topology, name: str, conn: Any) -> None:
        self.topo, self.conn = topo, conn
        name = name or host_name(conn)
        info = conn.getInfo()
        self.host = Host(_id("host", name), name, HostKind.KVM, cpus=int(info[2]) or 1)
        topo.hosts.append(self.host)
        self.by_network: dict[str, Switch] = {}
        self.by_bridge: dict[str, Switch] = {}
        self.macvtaps: dict[tuple[str, str], Switch] = {}
        self.filtering: dict[str, dict[str, BridgeVlans]] = {}     # switch id -> its ports' portgroups

    def pnic(self, dev: str) -> str:
        pid = _id(self.host.id, "pnic", dev)
        if all(p.id != pid for p in self.host.pnics):
            self.host.pnics.append(PNic(pid, dev))
        return pid

    def switch(self, name: str, kind: SwitchKind, key: str) -> Switch:
        sw = Switch(_id(self.host.id, key), name, kind, host=self.host.id)
        self.topo.switches.append(sw)
        return sw

    def macvtap(self, dev: str, mode: str, name: str | None = None) -> Switch:
        key = (dev, mode)
        if key not in self.macvtaps:
            sw = self.switch(name or f"macvtap-{dev}-{mode}", SwitchKind.MACVTAP, f"macvtap-{dev}-{mode}")
            sw.macvtap_mode = MacvtapMode(mode) if mode in MACVTAP_MODES else MacvtapMode.VEPA
            sw.uplinks = [Uplink(self.pnic(dev))]
            self.macvtaps[key] = sw
        return self.macvtaps[key]

    def network(self, xml_text: str) -> None:
        root = ET.fromstring(xml_text)
        name = root.findtext("name") or "network"
        fwd = root.find("forward")
        mode = fwd.get("mode", "nat") if fwd is not None else "isolated"
        bridge = root.find("bridge")
        devs = [i.get("dev") for i in (fwd.findall("interface") if fwd is not None else []) if i.get("dev")]
        if mode in MACVTAP_MODES and (mode != "bridge" or bridge is None) and devs:
            self.by_network[name] = self.macvtap(devs[0], mode, _plain(name))
            return
        ovs = (root.find("virtualport") is not None and root.find("virtualport").get("type") == "openvswitch")
        sw = self.switch(_plain(name), SwitchKind.OVS if ovs else SwitchKind.LINUX_BRIDGE, f"net-{name}")
        mtu = root.find("mtu")
        if mtu is not None and mtu.get("size", "").isdigit():
            sw.mtu = int(mtu.get("size"))
        groups = filtering_groups(xml_text) if ovs else None
        if groups is not None:
            sw.kind, sw.vlan_filtering = SwitchKind.LINUX_BRIDGE, True
            self.filtering[sw.id] = groups
        elif ovs:
            sw.pvlans = [Pvlan(int(e["primary"]), int(e["secondary"]), PvlanType(e["type"]))
                         for e in read_pvlans(xml_text)]
            for pg in root.findall("portgroup"):
                vlan, native = _vlan(pg.find("vlan"))
                port = Portgroup(_id(sw.id, pg.get("name", "pg")), pg.get("name", "pg"), vlan, native_vlan=native)
                if isinstance(vlan, int) and pvlan_entry(sw.pvlans, vlan) is not None:
                    port.vlan, port.pvlan = UNTAGGED, vlan       # a private VLAN port: its role's VLAN
                sw.portgroups.append(port)
        self.by_network[name] = sw
        if bridge is not None and bridge.get("name"):
            self.by_bridge[bridge.get("name")] = sw

    def portgroup(self, sw: Switch, name: str | None, vlan_el: ET.Element | None) -> str:
        if vlan_el is not None:
            vlan, native = _vlan(vlan_el)
            label = f"VLAN {vlan}" if isinstance(vlan, int) else str(vlan)
            found = next((p for p in sw.portgroups if p.vlan == vlan and p.native_vlan == native
                          or isinstance(vlan, int) and p.pvlan == vlan), None)      # (a private VLAN port)
            if found is None:
                found = Portgroup(_id(sw.id, label), label, vlan, native_vlan=native)
                sw.portgroups.append(found)
            return found.id
        if name:
            found = next((p for p in sw.portgroups if p.name == name), None)
            if found is not None:
                return found.id
        if not sw.portgroups:
            sw.portgroups.append(Portgroup(_id(sw.id, "default"), "default", "trunk"))
        return sw.portgroups[0].id

    def domain(self, xml_text: str, dom: Any = None) -> None:
        root = ET.fromstring(xml_text)
        name = root.findtext("name") or "domain"
        vcpu = (root.findtext("vcpu") or "1").strip()
        vm = VM(_id(self.host.id, "vm", name), _plain(name), host=self.host.id, guest_os="linux",
                cpus=int(vcpu) if vcpu.isdigit() else 1)
        mark = read_mark(xml_text)
        words = dict(w.split("=", 1) for w in (root.findtext("os/cmdline") or "").split() if "=" in w) \
            if mark is not None else {}
        nics, gateways = cmdline.parse(root.findtext("os/cmdline") or "") if mark is not None else ({}, {})
        if mark is not None and mark.role in {r.value for r in VmRole}:
            vm.role = VmRole(mark.role)
        elif "vnb.fwd" in words:
            vm.role = VmRole.FIREWALL
        if vm.role is not VmRole.VM and words.get("vnb.fwd") in {m.value for m in ForwardMode}:
            vm.forwarding.mode = ForwardMode(words["vnb.fwd"])
        if mark is None and dom is not None:
            nics = _reported_addresses(dom)
        for i, itf in enumerate(root.findall("devices/interface")):
            kind, source = itf.get("type"), itf.find("source")
            src = source.attrib if source is not None else {}
            vport = itf.find("virtualport")
            sw: Switch | None = None
            if kind == "network":
                sw = self.by_network.get(src.get("network", ""))
            elif kind == "bridge":
                bridge = src.get("bridge", "")
                sw = self.by_bridge.get(bridge)
                if sw is None:
                    is_ovs = vport is not None and vport.get("type") == "openvswitch"
                    sw = self.switch(bridge, SwitchKind.OVS if is_ovs else SwitchKind.LINUX_BRIDGE, f"br-{bridge}")
                    self.by_bridge[bridge] = sw
            elif kind == "direct":
                sw = self.macvtap(src.get("dev", "eth0"), src.get("mode", "vepa"))
            network, vlans = None, None
            if sw is not None and sw.id in self.filtering:
                vlan_el = itf.find("vlan")
                vlans = bridge_vlans(vlan_el) if vlan_el is not None else \
                    self.filtering[sw.id].get(src.get("portgroup", ""))
            if sw is not None:
                network = self.portgroup(sw, src.get("portgroup"), itf.find("vlan")) \
                    if sw.kind is SwitchKind.OVS else sw.id
            model = itf.find("model")
            mac = itf.find("mac")
            link = itf.find("link")
            address = mac.get("address", "").lower() if mac is not None else ""
            guest = nics.get(address, cmdline.GuestNic(""))
            vm.vnics.append(VNic(_id(vm.id, f"nic{i}"), f"eth{i}",
                                 MODELS.get(model.get("type", "") if model is not None else "", NicType.VIRTIO),
                                 network=network, mac=address or None, guest_vlan=guest.vlan,
                                 ip=guest.addresses[0] if guest.addresses else None, addresses=guest.addresses[1:],
                                 connected=link is None or link.get("state") != "down", bridge_vlans=vlans))
        _place_gateways(vm, nics, gateways)
        self.topo.vms.append(vm)


def _place_gateways(vm: VM, nics: dict[str, cmdline.GuestNic], gateways: dict[int, str]) -> None:
    """Each family's default gateway on the vNIC it is reached by: an IPv4 one on the vNIC whose subnet holds it
    (``gateway``), an IPv6 one likewise (``gateway6``), a link-local IPv6 one on the vNIC its scope names (the
    guest's name of it), written with the imported vNIC's name as scope."""
    for fam, gateway in gateways.items():
        address, _, scope = gateway.partition("%")
        if scope:
            macs = {mac for mac, nic in nics.items() if scope in (nic.name, f"{nic.name}.{nic.vlan}")}
            on = next((n for n in vm.vnics if n.mac in macs), None)
            address = f"{address}%{on.name}" if on is not None else address
        else:
            on = next((n for n in vm.vnics if any(_contains(a, address) for a in addresses(n))), None)
        if on is not None and fam == 4:
            on.gateway = address
        elif on is not None:
            on.gateway6 = address


def _reported_addresses(dom: Any) -> dict[str, cmdline.GuestNic]:
    """MAC -> its IPv4 and global IPv6 addresses/prefixes (IPv4 first) as the guest agent, else libvirt's DHCP
    leases, report them."""
    try:
        import libvirt
    except ImportError:
        return {}
    try:
        if not dom.isActive():
            return {}
    except libvirt.libvirtError:
        return {}
    for source in (libvirt.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT, libvirt.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_LEASE):
        try:
            found = dom.interfaceAddresses(source, 0) or {}
        except libvirt.libvirtError:
            continue
        out: dict[str, cmdline.GuestNic] = {}
        for info in found.values():
            kinds = {libvirt.VIR_IP_ADDR_TYPE_IPV4: 0, libvirt.VIR_IP_ADDR_TYPE_IPV6: 1}
            addrs = sorted((a for a in info.get("addrs") or [] if a.get("type") in kinds
                            and not link_local(a.get("addr"))), key=lambda a: kinds[a["type"]])
            if info.get("hwaddr") and addrs:
                out[info["hwaddr"].lower()] = cmdline.GuestNic("", None, [f"{a['addr']}/{a['prefix']}" for a in addrs])
        if out:
            return out
    return {}


def _contains(interface: str, address: str) -> bool:
    """Whether ``address`` lies in the subnet of ``interface`` (address/prefix; either family)."""
    try:
        itf, addr = ipaddress.ip_interface(interface), ipaddress.ip_address(address)
    except ValueError:
        return False
    return itf.version == addr.version and addr in itf.network


def import_hosts(hosts: Iterable[tuple[str, Any, str]], progress: ProgressFn | None = None) -> Topology:
    """``hosts``: (design host name, or "" to find it; open libvirt connection; URI) per host."""
    hosts = list(hosts)
    topo = Topology(id=f"import-{uuid.uuid4().hex[:12]}", name=f"KVM {', '.join(h[2] for h in hosts)}",
                    description="Imported from libvirt by vnetbench.")
    for n, (name, conn, uri) in enumerate(hosts):
        if progress:
            progress(n, len(hosts), f"reading {uri}")
        host = _Host(topo, name, conn)
        for net in conn.listAllNetworks(0):
            host.network(net.XMLDesc(0))
        for dom in conn.listAllDomains(0):
            host.domain(dom.XMLDesc(0), dom)
    if progress:
        progress(len(hosts), len(hosts), f"read {len(topo.vms)} domains, {len(topo.switches)} networks and bridges")
    topo.layout = layout(topo)
    return topo


def layout(topo: Topology) -> Layout:
    """Hosts side by side: guests in rows on top, switches in a row beneath."""
    places: dict[str, Place] = {}
    x = 0.0
    for host in topo.hosts:
        vms = [vm for vm in topo.vms if vm.host == host.id]
        switches = [sw for sw in topo.switches if sw.host == host.id]
        per_row = 6
        for i, vm in enumerate(vms):
            places[vm.id] = Place(x + 16 + (i % per_row) * 130, 52 + (i // per_row) * 110, 110, 60)
        y = 52 + ((len(vms) + per_row - 1) // per_row) * 110 + 20
        sx = x + 16
        for sw in switches:
            width = max(220.0, 32 + len(sw.portgroups) * 140)
            places[sw.id] = Place(sx, y, width, 100)
            for j, pg in enumerate(sw.portgroups):
                places[pg.id] = Place(sx + 16 + j * 140, y + 40, 120, 44)
            sx += width + 20
        width = max(300.0, min(len(vms), per_row) * 130 + 32, sx - x)
        places[host.id] = Place(x, 0, width, y + 130)
        x += width + 60
    return Layout(places=places)
