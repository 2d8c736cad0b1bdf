"""Turn an inventory snapshot into a vnetbench design that validates, opens on the canvas and predicts at once.

Ids come from MoRefs (stable across imports of the same vCenter). Names are what vSphere shows, made unique
the way an admin reads an inventory path: vSphere lets names repeat (a vDS "DVS0" in each of two datacenters,
VMs of one name in two folders), the design may not, so only names that clash get the path that tells them
apart ("DC1/DVS0", "prod/web01"); the ``vnb-xxxxxx-`` prefix of vnetbench's own standard switches and
portgroups is dropped unless that makes two names one. Each datacenter is a band of the canvas with a note
naming it.

What cannot be carried over exactly is imported as close as it is known, with a warning (returned, and kept
in the design's description): adapters vnetbench does not model, addresses without a prefix, networks a
host lacks, NSX (opaque) networks, and values vSphere holds twice where the design allows them once.
"""

from __future__ import annotations

import ipaddress
import re
import uuid
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field, replace

from vnetbench.model import (
    VM,
    Host,
    HostKind,
    LacpMode,
    Lag,
    Layout,
    Link,
    NicType,
    Note,
    Place,
    PhysicalSwitch,
    PNic,
    Port,
    Portgroup,
    PortMode,
    Switch,
    SwitchKind,
    Teaming,
    Topology,
    Uplink,
    VNic,
)
from vnetbench.model.families import family
from vnetbench.model.index import Index
from vnetbench.model.nictypes import PLATFORM_NIC_TYPES
from vnetbench.model.validate import validate
from vnetbench.model.vlan import format_ranges

from . import marking
from .guests import guest_os
from .inventory import DvsInfo, HostInfo, Inventory, NicInfo, VmInfo, unmodelled_adapter
from .lacp import LagInfo, lag_hash
from .neighbours import Neighbour
from .teaming import fold_teaming
from .uplinkorder import pnics_of

VM_W, VM_H, PG_W, PG_H, PAD, HEADER, GAP = 110.0, 70.0, 120.0, 44.0, 16.0, 36.0, 20.0
VMS_PER_ROW = 6
#: The prefix suggested (per family) for a guest address whose prefix neither Tools nor the guest's routes tell.
GUESSED_PREFIX = {4: 24, 6: 64}


@dataclass
class Imported:
    topology: Topology
    warnings: list[str] = field(default_factory=list)


def _id(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts))


def unique_names(candidates: dict[Hashable, list[str]]) -> dict[Hashable, str]:
    """Each holder's first candidate name where that is unique (case-insensitive). Holders whose first
    candidates clash move on together to their next ones (a longer inventory path, the name before the
    ``vnb-`` prefix was dropped) until they differ; the holder's key is appended as a last resort."""
    groups: dict[str, list[Hashable]] = defaultdict(list)
    for key, names in candidates.items():
        groups[names[0].strip().lower()].append(key)
    out: dict[Hashable, str] = {}
    for group in groups.values():
        deepest = max(len(candidates[k]) for k in group) - 1
        for level in range(deepest + 1):
            names = [candidates[k][min(level, len(candidates[k]) - 1)] for k in group]
            if len({n.strip().lower() for n in names}) == len(names):
                break
        else:
            names = [f"{n} ({k})" for n, k in zip(names, group, strict=True)]
        out.update(zip(group, names, strict=True))
    return out


def _plain(name: str) -> list[str]:
    split = marking.split_standard_name(name)
    return [split[1], name] if split else [name]


def _path(*parts: str) -> list[str]:
    """Candidates from the bare name (last part) to the whole path, joined with '/'."""
    return ["/".join(parts[-k:]) for k in range(1, len(parts) + 1)]


class _Builder:
    def __init__(self, inv: Inventory, hints: Iterable[Neighbour]) -> None:
        self.inv = inv
        self.hints = list(hints)
        self.topo = Topology(id=f"import-{uuid.uuid4().hex[:12]}")
        self.warnings: list[str] = []
        self.pnic_ids: dict[tuple[str, str], str] = {}
        self.std_pg_ids: dict[tuple[str, str], str] = {}
        self.dvpg_ids: dict[str, str] = {}
        self.dvpg_switch: dict[str, Switch] = {}
        self.segments: dict[str, Switch] = {}
        self.bands: dict[str, list[str]] = defaultdict(list)  # datacenter -> host and switch ids, in order

    def warn(self, text: str) -> None:
        self.warnings.append(text)

    def build(self, name: str) -> Imported:
        inv = self.inv
        datacenters = sorted({h.datacenter for h in inv.hosts} | {d.datacenter for d in inv.dvses})
        many = len(datacenters) > 1
        host_names = unique_names({h.moid: _path(h.datacenter, h.name) for h in inv.hosts})
        dvs_names = unique_names({d.ref._moId: _path(d.datacenter, d.name) for d in inv.dvses})
        for h in inv.hosts:
            self._host(h, host_names[h.moid])
        for d in inv.dvses:
            self._dvs(d, dvs_names[d.ref._moId])
        vms = [v for v in inv.vms if not v.template]
        vm_names = unique_names({v.moid: _path(v.datacenter, *v.folder, v.name) for v in vms})
        for v in vms:
            self.topo.vms.append(self._vm(v, vm_names[v.moid]))
        for opaque_id, opaque_name in sorted(inv.opaque.items(), key=lambda item: item[1]):
            if opaque_id not in self.segments:
                self.warn(f"NSX network {opaque_name} is used by no VM and is not imported: vnetbench knows an NSX "
                          "segment only by the hosts whose VMs use it (vCenter does not tell its transport zone)")
        self._physical()
        self._settle()
        topo = self.topo
        topo.name = name
        topo.description = "Imported from vSphere by vnetbench" + (
            f" (datacenter{'s' if many else ''} {', '.join(datacenters)})." if datacenters else ".")
        if self.warnings:
            topo.description += "\nImport warnings:\n" + "\n".join(f"- {w}" for w in self.warnings)
        topo.layout = layout(topo, self.bands)
        return Imported(topo, self.warnings)

    # --- hosts, switches, portgroups ------------------------------------------------------------------

    def _host(self, h: HostInfo, name: str) -> None:
        host = Host(_id(h.moid), name, HostKind.ESXI, cpus=h.cpus)
        for p in h.pnics:
            pid = _id(h.moid, p.device)
            self.pnic_ids[(h.moid, p.device)] = pid
            host.pnics.append(PNic(pid, p.device, p.speed_mbps or 1000, up=p.speed_mbps is not None))
        self.topo.hosts.append(host)
        self.bands[h.datacenter].append(host.id)
        vss_names = unique_names({vs.name: _plain(vs.name) for vs in h.vswitches})
        pg_names = unique_names({pg.name: _plain(pg.name) for pg in h.portgroups})
        for vs in h.vswitches:
            sw = Switch(_id(h.moid, vs.name), vss_names[vs.name], SwitchKind.VSS, host=host.id, mtu=vs.mtu or 1500)
            for device in vs.pnics or []:
                if (h.moid, device) in self.pnic_ids:
                    sw.uplinks.append(Uplink(self.pnic_ids[(h.moid, device)]))
            for pg in h.portgroups:
                if pg.vswitch != vs.name:
                    continue
                pg_id = _id(h.moid, vs.name, pg.name)
                self.std_pg_ids[(h.moid, pg.name)] = pg_id
                standby = set(pg.standby)
                uplinks = [Uplink(self.pnic_ids[(h.moid, d)], d in standby) for d in pg.active + pg.standby
                           if (h.moid, d) in self.pnic_ids]
                if uplinks and not sw.uplinks:
                    sw.uplinks = uplinks
                sw.portgroups.append(Portgroup(pg_id, pg_names[pg.name], pg.vlan, security=pg.security,
                                               teaming=pg.teaming))
            sw.teaming = vs.teaming
            fold_teaming(sw)
            self.topo.switches.append(sw)

    def _dvs(self, d: DvsInfo, name: str) -> None:
        sw = Switch(_id(d.ref._moId), name, SwitchKind.VDS, mtu=d.mtu or 1500,
                    members=[_id(m) for m in d.members if self.inv.host_by_moid(m)])
        on_lags = {port for lag in d.lags for port in lag.ports}
        alone = {moid: [dev for dev in devices if d.ports.get(moid, {}).get(dev) not in on_lags]
                 for moid, devices in d.uplinks.items()}
        for moid, devices in alone.items():
            sw.uplinks.extend(Uplink(self.pnic_ids[(moid, dev)]) for dev in devices if (moid, dev) in self.pnic_ids)
        lag_ids = {lag.name: _id(d.ref._moId, "lag", lag.key or lag.name) for lag in d.lags}
        for lag in d.lags:
            sw.lags.append(self._lag(d, lag, lag_ids[lag.name], name))
        for pg in self.inv.dvpgs:
            if pg.dvs == d.name and pg.datacenter == d.datacenter and not pg.uplink:
                self.dvpg_ids[pg.key] = _id(pg.ref._moId)
                self.dvpg_switch[pg.key] = sw
                sw.portgroups.append(Portgroup(self.dvpg_ids[pg.key], pg.name, pg.vlan, security=pg.security,
                                               teaming=pg.teaming, pvlan=pg.pvlan))
                self._order(sw.portgroups[-1], pg.order, d, alone, lag_ids, f"portgroup {pg.name} of {name}")
        sw.teaming, sw.pvlans = d.teaming, list(d.pvlans)
        if d.order is not None and len(d.order[0]) == 1 and d.order[0][0] in lag_ids and not d.order[1]:
            sw.teaming = replace(sw.teaming or Teaming(), lag=lag_ids[d.order[0][0]])
        fold_teaming(sw, guess=False)
        self.topo.switches.append(sw)
        self.bands[d.datacenter].append(sw.id)

    def _lag(self, d: DvsInfo, lag: LagInfo, lag_id: str, switch: str) -> Lag:
        """A LAG the switch holds, with the members' pNICs on its ports (where vCenter reports them)."""
        pnics = [self.pnic_ids[(moid, dev)] for moid, ports in d.ports.items() for port in lag.ports
                 for dev, key in ports.items() if key == port and (moid, dev) in self.pnic_ids]
        hash_, exact = lag_hash(lag.algorithm)
        if not exact:
            self.warn(f"LAG {lag.name} of {switch} hashes {lag.algorithm}, which vnetbench does not model; imported "
                      f"as {hash_.value}")
        mode = LacpMode.PASSIVE if lag.mode == LacpMode.PASSIVE.value else LacpMode.ACTIVE
        return Lag(lag_id, lag.name, pnics, mode, hash_)

    def _order(self, pg: Portgroup, order: tuple[list[str], list[str]] | None, d: DvsInfo,
               alone: dict[str, list[str]], lag_ids: dict[str, str], where: str) -> None:
        """A distributed portgroup's explicit uplink order: a LAG it sends through, or its dvUplinks as the pNICs
        each member has on them (``uplinkorder``)."""
        if order is None:
            return
        if len(order[0]) == 1 and order[0][0] in lag_ids and not order[1]:
            pg.teaming = replace(pg.teaming or Teaming(), lag=lag_ids[order[0][0]])
            return
        found = pnics_of(order, d.uplink_names, alone)
        if not found:
            self.warn(f"the uplink order of {where} ({', '.join(order[0] + [f'{n} standby' for n in order[1]])}) is "
                      "not imported: vCenter does not tell which pNIC each member host has on those uplinks")
            return
        pg.uplinks = [Uplink(self.pnic_ids[(moid, dev)], standby) for moid, dev, standby in found
                      if (moid, dev) in self.pnic_ids]

    def _segment(self, opaque_id: str, host: Host, datacenter: str) -> str:
        """The portgroup of an NSX (opaque) network, modelled as an NSX segment of the hosts that use it."""
        sw = self.segments.get(opaque_id)
        if sw is None:
            name = self.inv.opaque.get(opaque_id, opaque_id)
            sw = Switch(_id("nsx", opaque_id), name, SwitchKind.NSX_SEGMENT,
                        portgroups=[Portgroup(_id("nsx", opaque_id, "pg"), name)])
            self.segments[opaque_id] = sw
            self.topo.switches.append(sw)
            self.bands[datacenter].append(sw.id)
            self.warn(f"NSX network {name} is imported as an NSX segment of the hosts whose VMs use it; vCenter "
                      "does not tell its VNI, transport zone or other hosts")
        if host.id not in sw.members:
            sw.members.append(host.id)
        return sw.portgroups[0].id

    # --- VMs and vNICs ----------------------------------------------------------------------------------

    def _vm(self, v: VmInfo, name: str) -> VM:
        info: HostInfo | None = self.inv.host_by_moid(v.host) if v.host else None
        host = next((h for h in self.topo.hosts if info and h.id == _id(info.moid)), None)
        vm = VM(_id(v.ref._moId), name, host=host.id if host else None, cpus=v.cpus, guest_os=guest_os(v.guest_id))
        if v.version.startswith("vmx-") and v.version[4:].isdigit():
            vm.hardware_version = int(v.version[4:])
        for i, n in enumerate(v.nics):
            vnic = VNic(_id(v.ref._moId, f"nic{n.key}"), f"eth{i}", mac=n.mac, connected=n.connected)
            where = f"vNIC {vnic.name} of VM {name}"
            if n.type is not None:
                vnic.type = n.type
            else:
                self.warn(f"{where} is {unmodelled_adapter(n.device)}, which vnetbench does not model; imported as "
                          f"{vnic.type.value}")
            vnic.network = self._network(n, info, host, v, where)
            found = self._addresses(n, where)
            vnic.ip, vnic.addresses = (found[0], found[1:]) if found else (None, [])
            if n.type is NicType.SRIOV:
                vnic.physical_function = self._physical_function(n.pf, info)
                if vnic.physical_function is None:  # a virtual function of nothing known is no valid design
                    vnic.type = NicType.VMXNET3
                    self.warn(f"{where} is an SR-IOV adapter whose physical function ({n.pf or 'none given'}) is "
                              f"no pNIC of its host; imported as {vnic.type.value}")
            vm.vnics.append(vnic)
        return vm

    def _network(self, n: NicInfo, info: HostInfo | None, host: Host | None, v: VmInfo, where: str) -> str | None:
        if n.opaque:
            return self._segment(n.opaque, host, v.datacenter) if host else None
        if n.dvpg_key:
            pg_id = self.dvpg_ids.get(n.dvpg_key)
            sw = self.dvpg_switch.get(n.dvpg_key)
            if pg_id is None or sw is None:
                self.warn(f"{where} is on a distributed portgroup ({n.dvpg_key}) that is not in the inventory; "
                          "imported unconnected")
                return None
            if host is None or host.id not in sw.members:
                self.warn(f"{where} is on {sw.name}, of which its host is not a member; imported unconnected")
                return None
            return pg_id
        if info is None or n.network is None:
            return None
        pg_id = self.std_pg_ids.get((info.moid, n.network))
        if pg_id is None:
            self.warn(f"{where} is on the network {n.network!r}, which its host {info.name} has no portgroup for; "
                      "imported unconnected")
        return pg_id

    def _physical_function(self, pci: str | None, info: HostInfo | None) -> str | None:
        """The design id of the host's pNIC with PCI address ``pci``."""
        pnic = next((p for p in info.pnics if p.pci == pci), None) if info and pci else None
        return self.pnic_ids[(info.moid, pnic.device)] if pnic else None

    def _addresses(self, n: NicInfo, where: str) -> list[str]:
        """Every guest address of a vNIC as ``address/prefix`` (``ip`` takes the first, ``addresses`` the rest)."""
        return [self._address(address, prefix, where) for address, prefix in n.ips]

    def _address(self, address: str, prefix: int | None, where: str) -> str:
        if prefix is not None:
            return f"{address}/{prefix}"
        guess = self._known_prefix(address) or GUESSED_PREFIX[family(address) or 4]
        self.warn(f"{where} has the address {address}, but VMware Tools gave no prefix length and the guest's "
                  f"routes do not tell it; imported as {address}/{guess}: check it")
        return f"{address}/{guess}"

    def _known_prefix(self, address: str) -> int | None:
        """The prefix of another guest address in the inventory whose subnet holds ``address``."""
        ip = ipaddress.ip_address(address)
        for vm in self.inv.vms:
            for nic in vm.nics:
                for other, prefix in nic.ips:
                    if prefix and other != address and ip in ipaddress.ip_network(f"{other}/{prefix}", strict=False):
                        return prefix
        return None

    # --- the physical neighbours (CDP/LLDP) ---------------------------------------------------------------

    def _physical(self) -> None:
        switches: dict[str, PhysicalSwitch] = {}
        names = unique_names({n.switch: [n.switch] for n in self.hints})
        for n in self.hints:
            pnic = self.pnic_ids.get((n.host, n.pnic))
            if pnic is None:
                continue
            ps = switches.get(n.switch)
            if ps is None:
                ps = switches[n.switch] = PhysicalSwitch(_id("psw", n.switch), names[n.switch])
                self.topo.physical_switches.append(ps)
            port_id = _id("port", n.switch, n.port)
            if any(p.id == port_id for p in ps.ports):
                self.warn(f"{n.protocol} puts two pNICs on port {n.port} of {ps.name}; cabled only the first")
                continue
            tagged = [v for v in n.vlans if v != n.native_vlan]
            native = n.native_vlan or 1
            port = (Port(port_id, n.port, PortMode.TRUNK, allowed=format_ranges(tuple((v, v) for v in tagged)),
                         native_vlan=native) if tagged else Port(port_id, n.port, access_vlan=native))
            ps.ports.append(port)
            self.topo.links.append(Link(_id("link", pnic), pnic, port_id))
        for ps in switches.values():
            trunks = [p.name for p in ps.ports if p.mode is PortMode.TRUNK]
            if trunks:
                self.warn(f"ports {', '.join(trunks)} of {ps.name} are trunks of the VLANs the hosts saw traffic on; "
                          "the switch may carry more: check them")

    # --- what the design allows once ------------------------------------------------------------------

    def _settle(self) -> None:
        """vSphere can hold the same MAC or address twice in a segment (vcsim generates repeating MACs), and run
        an adapter its guest-OS table does not list; the design cannot. Keep the first holder of a repeated
        MAC or address and leave it out of the later ones, and check the guest's adapters no more, each with a
        warning."""
        index = Index(self.topo)
        dropped: dict[str, set[str]] = defaultdict(set)    # vNIC id -> further addresses left out
        for problem in validate(self.topo):
            if problem.severity != "error" or problem.object_id not in index:
                continue
            field_name = problem.path.rsplit(".", 1)[-1]
            obj = index.get(problem.object_id)
            if index.kind(problem.object_id) == "vnic" and field_name in ("mac", "ip"):
                setattr(obj, field_name, None)
                self.warn(f"{problem.message}; left out of {obj.name} of {index.parent(obj.id).name}")
            elif index.kind(problem.object_id) == "vnic" and (extra := re.fullmatch(r"addresses\[(\d+)]", field_name)):
                dropped[obj.id].add(obj.addresses[int(extra.group(1))])
                self.warn(f"{problem.message}; left out of {obj.name} of {index.parent(obj.id).name}")
            elif (index.kind(problem.object_id) == "vnic" and field_name == "type"
                  and obj.type in PLATFORM_NIC_TYPES[HostKind.ESXI]):  # the guest's table, not the platform
                vm = index.parent(obj.id)
                self.warn(f"{problem.message}, but vSphere runs it; {vm.name} imported with guest OS 'other' "
                          f"instead of {vm.guest_os!r}, so its adapters are not checked")
                vm.guest_os = "other"
        for nic_id, addresses in dropped.items():
            nic = index.get(nic_id)
            nic.addresses = [a for a in nic.addresses if a not in addresses]


def to_topology(inv: Inventory, name: str, hints: Iterable[Neighbour] = ()) -> Imported:
    return _Builder(inv, hints).build(name)


def layout(topo: Topology, bands: dict[str, list[str]]) -> Layout:
    """One band per datacenter (a note names it): hosts side by side (VMs on top, standard switches below),
    distributed switches and NSX segments underneath; physical switches at the bottom."""
    places: dict[str, Place] = {}
    notes: list[Note] = []

    def switch(sw: Switch, x: float, y: float) -> tuple[float, float]:
        width = max(220.0, 2 * PAD + len(sw.portgroups) * (PG_W + GAP) - GAP)
        height = HEADER + PG_H + 2 * PAD
        places[sw.id] = Place(x, y, width, height)
        for j, pg in enumerate(sw.portgroups):
            places[pg.id] = Place(x + PAD + j * (PG_W + GAP), y + HEADER + PAD)
        return width, height

    top = 0.0
    for dc, members in bands.items():
        notes.append(Note(_id("dc", dc), f"Datacenter {dc}", 0.0, top))
        top += 40.0
        x, bottom = 0.0, top
        for host in (h for h in topo.hosts if h.id in members):
            vms = [vm for vm in topo.vms if vm.host == host.id]
            for i, vm in enumerate(vms):
                places[vm.id] = Place(x + PAD + (i % VMS_PER_ROW) * (VM_W + GAP),
                                      top + HEADER + PAD + (i // VMS_PER_ROW) * (VM_H + 50))
            rows = (len(vms) + VMS_PER_ROW - 1) // VMS_PER_ROW
            width = min(len(vms), VMS_PER_ROW) * (VM_W + GAP)
            y = top + HEADER + PAD + rows * (VM_H + 50)
            for sw in topo.switches:
                if sw.kind is SwitchKind.VSS and sw.host == host.id:
                    w, h = switch(sw, x + PAD, y)
                    width, y = max(width, w), y + h + GAP
            width = max(260.0, width + 2 * PAD)
            places[host.id] = Place(x, top, width, y + PAD - top)
            bottom = max(bottom, y + PAD)
            x += width + 60
        x, y = 0.0, bottom + 80
        spanning = [sw for sw in topo.switches if sw.id in members and sw.kind is not SwitchKind.VSS]
        for sw in spanning:
            w, _ = switch(sw, x, y)
            x += w + 40
        top = y + (HEADER + PG_H + 2 * PAD if spanning else 0) + 80
    x = 0.0
    for ps in topo.physical_switches:
        width = max(220.0, 90.0 * len(ps.ports))
        places[ps.id] = Place(x, top, width, 50.0)
        x += width + 40
    loose = [vm for vm in topo.vms if vm.id not in places]
    for i, vm in enumerate(loose):
        places[vm.id] = Place(i * (VM_W + GAP), top + 90)
    return Layout(places=places, notes=notes)
