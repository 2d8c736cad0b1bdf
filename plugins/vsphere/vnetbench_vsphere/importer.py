"""Turn an inventory snapshot into a vnetbench design that opens on the canvas and predicts at once.

Ids come from MoRefs (stable across imports of the same vCenter), names are what vSphere shows (the
``vnb-xxxxxx-`` prefix of vnetbench's own standard switches and portgroups is dropped). Every object gets
a place: hosts in a row, each with its VMs on top and its standard switches below, distributed switches
in a row beneath the hosts.
"""

from __future__ import annotations

import re
import uuid

from vnetbench.model import (
    VM,
    Host,
    HostKind,
    Layout,
    Place,
    PNic,
    Portgroup,
    Switch,
    SwitchKind,
    Topology,
    Uplink,
    VNic,
)

from . import marking
from .guests import guest_os
from .inventory import HostInfo, Inventory, VmInfo

VM_W, VM_H, PG_W, PG_H, PAD, HEADER, GAP = 110.0, 70.0, 120.0, 44.0, 16.0, 36.0, 20.0
VMS_PER_ROW = 6


def _id(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts))


def _plain(name: str) -> str:
    split = marking.split_standard_name(name)
    return split[1] if split else name


def to_topology(inv: Inventory, name: str) -> Topology:
    topo = Topology(id=f"import-{uuid.uuid4().hex[:12]}", name=name,
                    description="Imported from vSphere by vnetbench.")
    pnic_ids: dict[tuple[str, str], str] = {}
    std_pg_ids: dict[tuple[str, str], str] = {}
    dvpg_ids: dict[str, str] = {}
    for h in inv.hosts:
        host = Host(_id(h.moid), h.name, HostKind.ESXI, cpus=h.cpus)
        for p in h.pnics:
            pid = _id(h.moid, p.device)
            pnic_ids[(h.moid, p.device)] = pid
            host.pnics.append(PNic(pid, p.device, p.speed_mbps or 1000, up=p.speed_mbps is not None))
        topo.hosts.append(host)
        for vs in h.vswitches:
            sw = Switch(_id(h.moid, vs.name), _plain(vs.name), SwitchKind.VSS, host=host.id, mtu=vs.mtu or 1500)
            for device in vs.pnics or []:
                if (h.moid, device) in pnic_ids:
                    sw.uplinks.append(Uplink(pnic_ids[(h.moid, device)]))
            for pg in h.portgroups:
                if pg.vswitch != vs.name:
                    continue
                pg_id = _id(h.moid, vs.name, pg.name)
                std_pg_ids[(h.moid, pg.name)] = pg_id
                standby = set(pg.standby)
                uplinks = [Uplink(pnic_ids[(h.moid, d)], d in standby) for d in pg.active + pg.standby
                           if (h.moid, d) in pnic_ids]
                if uplinks and not sw.uplinks:
                    sw.uplinks = uplinks
                sw.portgroups.append(Portgroup(pg_id, _plain(pg.name), pg.vlan, security=pg.security))
            topo.switches.append(sw)
    for d in inv.dvses:
        sw = Switch(_id(d.ref._moId), d.name, SwitchKind.VDS, mtu=d.mtu or 1500,
                    members=[_id(m) for m in d.members if inv.host_by_moid(m)])
        for moid, devices in d.uplinks.items():
            sw.uplinks.extend(Uplink(pnic_ids[(moid, dev)]) for dev in devices if (moid, dev) in pnic_ids)
        for pg in inv.dvpgs:
            if pg.dvs == d.name and pg.datacenter == d.datacenter and not pg.uplink:
                dvpg_ids[pg.key] = _id(pg.ref._moId)
                sw.portgroups.append(Portgroup(dvpg_ids[pg.key], pg.name, pg.vlan, security=pg.security))
        topo.switches.append(sw)
    for v in inv.vms:
        if not v.template:
            topo.vms.append(_vm(v, inv, std_pg_ids, dvpg_ids))
    topo.layout = layout(topo)
    return topo


def _vm(v: VmInfo, inv: Inventory, std_pg_ids: dict[tuple[str, str], str], dvpg_ids: dict[str, str]) -> VM:
    host: HostInfo | None = inv.host_by_moid(v.host) if v.host else None
    vm = VM(_id(v.ref._moId), v.name, host=_id(host.moid) if host else None, cpus=v.cpus,
            guest_os=guest_os(v.guest_id))
    if v.version.startswith("vmx-") and v.version[4:].isdigit():
        vm.hardware_version = int(v.version[4:])
    for i, n in enumerate(v.nics):
        network = dvpg_ids.get(n.dvpg_key or "") if n.dvpg_key else (
            std_pg_ids.get((host.moid, n.network or "")) if host else None)
        vnic = VNic(_id(v.ref._moId, f"nic{n.key}"), f"eth{i}", network=network, mac=n.mac,
                    ip=n.ips[0] if n.ips else None, connected=n.connected)
        if n.type is not None:
            vnic.type = n.type
        vm.vnics.append(vnic)
    return vm


def layout(topo: Topology) -> Layout:
    """Hosts side by side (VMs on top, standard switches below), distributed switches underneath."""
    places: dict[str, Place] = {}

    def switch(sw: Switch, x: float, y: float) -> tuple[float, float]:
        width = max(220.0, 2 * PAD + len(sw.portgroups) * (PG_W + GAP) - GAP)
        height = HEADER + PG_H + 2 * PAD
        places[sw.id] = Place(x, y, width, height)
        for j, pg in enumerate(sw.portgroups):
            places[pg.id] = Place(x + PAD + j * (PG_W + GAP), y + HEADER + PAD)
        return width, height

    x = 0.0
    bottom = 0.0
    for host in topo.hosts:
        vms = [vm for vm in topo.vms if vm.host == host.id]
        for i, vm in enumerate(vms):
            places[vm.id] = Place(x + PAD + (i % VMS_PER_ROW) * (VM_W + GAP),
                                  HEADER + PAD + (i // VMS_PER_ROW) * (VM_H + 50))
        rows = (len(vms) + VMS_PER_ROW - 1) // VMS_PER_ROW
        width = min(len(vms), VMS_PER_ROW) * (VM_W + GAP)
        y = HEADER + PAD + rows * (VM_H + 50)
        for sw in topo.switches:
            if sw.kind is SwitchKind.VSS and sw.host == host.id:
                w, h = switch(sw, x + PAD, y)
                width, y = max(width, w), y + h + GAP
        width = max(260.0, width + 2 * PAD)
        places[host.id] = Place(x, 0.0, width, y + PAD)
        bottom = max(bottom, y + PAD)
        x += width + 60
    x, y = 0.0, bottom + 80
    for sw in topo.switches:
        if sw.kind is SwitchKind.VDS:
            w, _ = switch(sw, x, y)
            x += w + 40
    loose = [vm for vm in topo.vms if vm.id not in places]
    for i, vm in enumerate(loose):
        places[vm.id] = Place(x + i * (VM_W + GAP), y)
    return Layout(places=places)
