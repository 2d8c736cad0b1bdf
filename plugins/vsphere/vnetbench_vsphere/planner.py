"""Compare a design with the inventory snapshot and list the changes that make vSphere match it.

Planning is pure: it reads an ``Inventory`` and a ``Topology`` and returns ``PlannedChange``s whose ``data``
names objects (never MoRefs), so a plan can be shown, stored and applied later against fresh state.
Only objects marked as vnetbench's (``marking``) are ever updated or deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vnetbench.backends.contract import Op, PlannedChange, Unsupported
from vnetbench.model import VM, Index, NicType, Security, Switch, SwitchKind, Topology
from vnetbench.model.vlan import VlanError, VlanMode, parse_vlan

from . import marking
from .guests import guest_id
from .inventory import HostInfo, Inventory, NicInfo, VmInfo

SUPPORTED_NICS = frozenset({NicType.VLANCE, NicType.FLEXIBLE, NicType.E1000, NicType.E1000E,
                            NicType.VMXNET2, NicType.VMXNET3})
#: ESXi refuses longer standard switch names.
MAX_VSWITCH_NAME = 32

#: Order of stages: builds before the VMs that use them, deletions after the moves away from them.
ORDER = [(Op.CREATE, "vswitch"), (Op.UPDATE, "vswitch"), (Op.CREATE, "dvswitch"), (Op.UPDATE, "dvswitch"),
         (Op.CREATE, "portgroup"), (Op.UPDATE, "portgroup"), (Op.CREATE, "dvportgroup"),
         (Op.UPDATE, "dvportgroup"), (Op.CREATE, "vm"), (Op.UPDATE, "vm"), (Op.DELETE, "vm"),
         (Op.DELETE, "dvportgroup"), (Op.DELETE, "portgroup"), (Op.DELETE, "dvswitch"), (Op.DELETE, "vswitch")]


def security_data(sec: Security) -> dict[str, bool]:
    return {"promiscuous": sec.promiscuous, "mac_changes": sec.mac_changes, "forged_transmits": sec.forged_transmits}


@dataclass(frozen=True)
class Network:
    """Where a vNIC plugs in: a standard portgroup (by its vSphere name) or a distributed portgroup."""

    kind: str  # "standard" or "dvpg"
    name: str
    dvs: str | None = None


class Planner:
    """One design against one inventory snapshot: ``problems()`` first, then ``plan()``."""

    def __init__(self, design: Topology, inv: Inventory, settings: dict[str, Any] | None = None) -> None:
        self.design, self.inv, self.settings = design, inv, settings or {}
        self.index = Index(design)
        self.did = design.id
        self.changes: list[PlannedChange] = []

    # --- checks before anything is sent --------------------------------------------------------------

    def problems(self) -> list[str]:
        """Everything in the design vSphere cannot take, checked against the inventory (never sent)."""
        out: list[str] = []
        host_names = {h.id: h.name for h in self.design.hosts}
        for host in self.design.hosts:
            if self.inv.host(host.name) is None:
                known = ", ".join(sorted(h.name for h in self.inv.hosts)) or "none"
                out.append(f"host {host.name!r} is not in the vSphere inventory (hosts there: {known})")
        seen_dvpg: dict[str, str] = {}
        for sw in self.design.switches:
            if sw.kind is SwitchKind.VSS:
                if sw.host not in host_names:
                    out.append(f"standard switch {sw.name!r} has no host; set its host")
                if len(marking.standard_name(self.did, sw.name)) > MAX_VSWITCH_NAME:
                    out.append(f"standard switch name {sw.name!r} is too long; use at most "
                               f"{MAX_VSWITCH_NAME - len(marking.standard_name(self.did, ''))} characters")
            elif sw.kind is SwitchKind.VDS:
                for member in sw.members:
                    if member not in host_names:
                        out.append(f"distributed switch {sw.name!r} names a member {member!r} that is not a host")
            for pg in sw.portgroups:
                try:
                    parse_vlan(pg.vlan, sw.kind)
                except VlanError as exc:
                    out.append(f"portgroup {pg.name!r}: {exc}")
                if sw.kind is SwitchKind.VDS:
                    if pg.name in seen_dvpg:
                        out.append(f"distributed portgroup name {pg.name!r} is used twice; names are unique "
                                   "per datacenter")
                    seen_dvpg[pg.name] = sw.name
        names: set[str] = set()
        for vm in self.design.vms:
            if vm.name in names:
                out.append(f"VM name {vm.name!r} is used twice; vSphere needs unique VM names per folder")
            names.add(vm.name)
            if vm.host not in host_names:
                out.append(f"VM {vm.name!r} has no host; place it on an ESXi host")
            for nic in vm.vnics:
                out.extend(self._nic_problems(vm, nic))
        return out

    def _nic_problems(self, vm: VM, nic: Any) -> list[str]:
        where = f"vNIC {nic.name!r} of VM {vm.name!r}"
        if nic.type not in SUPPORTED_NICS:
            return [f"{where} is a {nic.type.value} adapter, which vSphere has not; use vmxnet3 or e1000e"]
        if nic.network is None:
            return [f"{where} is on no network; connect it to a portgroup"]
        if self.index.kind(nic.network) != "portgroup":
            return [f"{where} is on {nic.network!r}, which is not a portgroup of this design"]
        sw: Switch = self.index.parent(nic.network)
        if sw.kind is SwitchKind.VSS and sw.host != vm.host:
            return [f"{where} is on a standard switch of another host; a VM reaches only its own host's "
                    "standard switches"]
        if sw.kind is SwitchKind.VDS and vm.host not in sw.members:
            return [f"{where} is on distributed switch {sw.name!r}, but the VM's host is not a member; add it"]
        return []

    # --- the plan ------------------------------------------------------------------------------------

    def plan(self) -> list[PlannedChange]:
        problems = self.problems()
        if problems:
            raise Unsupported(problems)
        for sw in self.design.switches:
            if sw.kind is SwitchKind.VSS:
                self._vswitch(sw)
            else:
                self._dvswitch(sw)
        for vm in self.design.vms:
            self._vm(vm)
        self._deletions()
        rank = {stage: i for i, stage in enumerate(ORDER)}
        return sorted(self.changes, key=lambda c: rank[(c.op, c.kind)])

    def _add(self, op: Op, kind: str, key: str, description: str, object_id: str | None,
             **data: Any) -> None:
        self.changes.append(PlannedChange(op, kind, key, description, object_id, data))

    def _host(self, host_id: str | None) -> HostInfo:
        host = self.inv.host(self.index.get(host_id).name)
        assert host is not None  # problems() checked it
        return host

    def _pnic_names(self, uplinks: list[Any]) -> tuple[list[str], list[str]]:
        active = [self.index.get(u.pnic).name for u in uplinks if not u.standby and self.index.get(u.pnic)]
        standby = [self.index.get(u.pnic).name for u in uplinks if u.standby and self.index.get(u.pnic)]
        return active, standby

    def _vswitch(self, sw: Switch) -> None:
        host = self._host(sw.host)
        name = marking.standard_name(self.did, sw.name)
        key = f"{host.name}/{name}"
        active, standby = self._pnic_names(sw.uplinks)
        want = dict(host=host.name, name=name, mtu=sw.mtu, active=active, standby=standby)
        have = host.vswitch(name)
        if have is None:
            self._add(Op.CREATE, "vswitch", key, f"standard switch {sw.name} on {host.name}", sw.id, **want)
        elif (have.mtu is not None and have.mtu != sw.mtu) or (have.pnics is not None
                                                                and sorted(have.pnics) != sorted(active + standby)):
            self._add(Op.UPDATE, "vswitch", key, f"standard switch {sw.name} on {host.name}: MTU {sw.mtu}, "
                      f"uplinks {', '.join(active + standby) or 'none'}", sw.id, **want)
        for pg in sw.portgroups:
            pg_name = marking.standard_name(self.did, pg.name)
            vlan = parse_vlan(pg.vlan, SwitchKind.VSS)
            vlan_id = 0 if vlan.mode is VlanMode.NONE else (4095 if vlan.mode is VlanMode.TRUNK else vlan.tag)
            pg_active, pg_standby = self._pnic_names(pg.uplinks) if pg.uplinks is not None else (None, None)
            data = dict(host=host.name, name=pg_name, vswitch=name, vlan=vlan_id, security=security_data(pg.security),
                        active=pg_active, standby=pg_standby, needs=[key] if have is None else [])
            current = host.portgroup(pg_name)
            label = f"portgroup {pg.name} on {host.name}/{sw.name}"
            if current is None:
                self._add(Op.CREATE, "portgroup", f"{host.name}/{pg_name}", f"{label}, VLAN {vlan_id}", pg.id, **data)
                continue
            diffs = []
            if current.vlan != vlan_id:
                diffs.append(f"VLAN {current.vlan} -> {vlan_id}")
            if current.vswitch != name:
                diffs.append(f"switch {current.vswitch} -> {name}")
            if current.security != pg.security:
                diffs.append("security policy")
            if pg_active is not None and (current.active, current.standby) != (pg_active, pg_standby):
                diffs.append("teaming order")
            if diffs:
                self._add(Op.UPDATE, "portgroup", f"{host.name}/{pg_name}", f"{label}: {', '.join(diffs)}", pg.id,
                          **data)

    def _datacenter_for(self, host_ids: list[str]) -> str:
        for host_id in host_ids:
            return self._host(host_id).datacenter
        wanted = self.settings.get("datacenter")
        if wanted:
            return str(wanted)
        if len(self.inv.datacenters) == 1:
            return self.inv.datacenters[0].name
        raise Unsupported(["a distributed switch without member hosts needs the datacenter setting"])

    def _dvswitch(self, sw: Switch) -> None:
        dc = self._datacenter_for(sw.members)
        key = f"{dc}/{sw.name}"
        members: dict[str, list[str]] = {}
        for host_id in sw.members:
            host = self.index.get(host_id)
            members[host.name] = [self.index.get(u.pnic).name for u in sw.uplinks
                                  if self.index.parent(u.pnic) is host]
        have = self.inv.dvs(sw.name, dc)
        if have is None:
            self._add(Op.CREATE, "dvswitch", key, f"distributed switch {sw.name} with {len(members)} hosts", sw.id,
                      datacenter=dc, name=sw.name, mtu=sw.mtu, add=members, remove=[])
        elif have.managed == self.did:
            present = {self.inv.host_by_moid(m).name for m in have.members if self.inv.host_by_moid(m)}
            add = {h: p for h, p in members.items() if h not in present}
            remove = sorted(present - set(members))
            if add or remove or (have.mtu is not None and have.mtu != sw.mtu):
                parts = [f"add {', '.join(add)}" if add else "", f"remove {', '.join(remove)}" if remove else "",
                         f"MTU {sw.mtu}" if have.mtu is not None and have.mtu != sw.mtu else ""]
                self._add(Op.UPDATE, "dvswitch", key, f"distributed switch {sw.name}: "
                          + ", ".join(p for p in parts if p), sw.id, datacenter=dc, name=sw.name, mtu=sw.mtu,
                          add=add, remove=remove)
        else:
            # Someone else's switch of that name: creating it lets vCenter refuse with its own reason.
            self._add(Op.CREATE, "dvswitch", key, f"distributed switch {sw.name} with {len(members)} hosts", sw.id,
                      datacenter=dc, name=sw.name, mtu=sw.mtu, add=members, remove=[])
        for pg in sw.portgroups:
            self._dvportgroup(sw, pg, dc, have, key)

    def _dvportgroup(self, sw: Switch, pg: Any, dc: str, dvs: Any, dvs_key: str) -> None:
        vlan = parse_vlan(pg.vlan, SwitchKind.VDS)
        data = dict(datacenter=dc, dvs=sw.name, name=pg.name, vlan=str(vlan.tag or 0) if vlan.mode is not VlanMode.TRUNK
                    else "trunk", ranges=[list(r) for r in vlan.ranges], security=security_data(pg.security),
                    needs=[dvs_key] if dvs is None or dvs.managed != self.did else [])
        current = self.inv.dvpg(pg.name, dc)
        key = f"{dc}/{pg.name}"
        if current is None or current.managed != self.did:
            self._add(Op.CREATE, "dvportgroup", key, f"distributed portgroup {pg.name} on {sw.name}, {vlan}",
                      pg.id, **data)
            return
        diffs = []
        if not parse_vlan(current.vlan, SwitchKind.VDS).means(vlan):
            diffs.append(f"{parse_vlan(current.vlan, SwitchKind.VDS)} -> {vlan}")
        if current.security != pg.security:
            diffs.append("security policy")
        if diffs:
            self._add(Op.UPDATE, "dvportgroup", key, f"distributed portgroup {pg.name}: {', '.join(diffs)}", pg.id,
                      **data)

    def network_of(self, nic: Any) -> Network:
        pg = self.index.get(nic.network)
        sw: Switch = self.index.parent(nic.network)
        if sw.kind is SwitchKind.VSS:
            return Network("standard", marking.standard_name(self.did, pg.name))
        return Network("dvpg", pg.name, sw.name)

    def _vm(self, vm: VM) -> None:
        host = self._host(vm.host)
        dc = host.datacenter
        key = f"{dc}/{vm.name}"
        nics = []
        needs = set()
        for nic in vm.vnics:
            net = self.network_of(nic)
            nics.append(dict(id=nic.id, name=nic.name, type=nic.type.value, kind=net.kind, network=net.name,
                             dvs=net.dvs, mac=nic.mac, connected=nic.connected))
            needs.add(f"{host.name}/{net.name}" if net.kind == "standard" else f"{dc}/{net.name}")
        data = dict(datacenter=dc, name=vm.name, host=host.name, cpus=vm.cpus, guest_id=guest_id(vm.guest_os),
                    version=f"vmx-{vm.hardware_version:02d}", nics=nics, needs=sorted(needs))
        have = self.inv.vm(vm.name, dc)
        if have is None or have.managed != self.did:
            self._add(Op.CREATE, "vm", key, f"VM {vm.name} on {host.name} with {len(nics)} vNICs", vm.id, **data)
            return
        diffs = []
        current_host = self.inv.host_by_moid(have.host) if have.host else None
        if current_host is None or current_host.name != host.name:
            diffs.append(f"move to host {host.name}")
        if have.cpus != vm.cpus:
            diffs.append(f"{have.cpus} -> {vm.cpus} CPUs")
        diffs.extend(edit.description for edit in nic_edits(have.nics, nics, self.inv, dc))
        if self.inv.managed_field_key is not None and have.custom_marker != self.did:
            diffs.append("mark as vnetbench's")
        if diffs:
            self._add(Op.UPDATE, "vm", key, f"VM {vm.name}: {'; '.join(diffs)}", vm.id, **data)

    def _deletions(self) -> None:
        """Marked objects of this design that the design no longer has."""
        tag = marking.design_tag(self.did)
        wanted_vms = {vm.name for vm in self.design.vms}
        for have in self.inv.vms:
            if have.managed == self.did and have.name not in wanted_vms:
                self._add(Op.DELETE, "vm", f"{have.datacenter}/{have.name}", f"VM {have.name}", None,
                          datacenter=have.datacenter, name=have.name)
        wanted_dv = {(sw.name, pg.name) for sw in self.design.switches if sw.kind is SwitchKind.VDS
                     for pg in sw.portgroups}
        wanted_dvs = {sw.name for sw in self.design.switches if sw.kind is SwitchKind.VDS}
        for pg in self.inv.dvpgs:
            if pg.managed == self.did and (pg.dvs, pg.name) not in wanted_dv and pg.dvs in wanted_dvs:
                self._add(Op.DELETE, "dvportgroup", f"{pg.datacenter}/{pg.name}", f"distributed portgroup {pg.name}",
                          None, datacenter=pg.datacenter, name=pg.name)
        for dvs in self.inv.dvses:
            if dvs.managed == self.did and dvs.name not in wanted_dvs:
                self._add(Op.DELETE, "dvswitch", f"{dvs.datacenter}/{dvs.name}", f"distributed switch {dvs.name}",
                          None, datacenter=dvs.datacenter, name=dvs.name)
        wanted_std = {(self.index.get(sw.host).name, marking.standard_name(self.did, pg.name))
                      for sw in self.design.switches if sw.kind is SwitchKind.VSS for pg in sw.portgroups}
        wanted_vss = {(self.index.get(sw.host).name, marking.standard_name(self.did, sw.name))
                      for sw in self.design.switches if sw.kind is SwitchKind.VSS}
        for host in self.inv.hosts:
            for pg in host.portgroups:
                split = marking.split_standard_name(pg.name)
                if split and split[0] == tag and (host.name, pg.name) not in wanted_std:
                    self._add(Op.DELETE, "portgroup", f"{host.name}/{pg.name}", f"portgroup {split[1]} on {host.name}",
                              None, host=host.name, name=pg.name)
            for vs in host.vswitches:
                split = marking.split_standard_name(vs.name)
                if split and split[0] == tag and (host.name, vs.name) not in wanted_vss:
                    self._add(Op.DELETE, "vswitch", f"{host.name}/{vs.name}",
                              f"standard switch {split[1]} on {host.name}", None, host=host.name, name=vs.name)


# --- vNIC differences (used by the plan for its text and by apply for the device changes) ---------------


@dataclass(frozen=True)
class NicEdit:
    action: str  # "add", "edit", "replace", "remove"
    index: int
    description: str


def nic_matches_network(cur: NicInfo, want: dict[str, Any], inv: Inventory, datacenter: str) -> bool:
    if want["kind"] == "standard":
        return cur.dvpg_key is None and cur.network == want["network"]
    dvpg = inv.dvpg(want["network"], datacenter)
    return dvpg is not None and cur.dvpg_key == dvpg.key


def nic_edits(current: list[NicInfo], desired: list[dict[str, Any]], inv: Inventory, datacenter: str) -> list[NicEdit]:
    """vNICs are matched by position: the n-th designed vNIC is the VM's n-th network adapter."""
    edits = []
    for i, want in enumerate(desired):
        label = f"vNIC {want['name']}"
        if i >= len(current):
            edits.append(NicEdit("add", i, f"add {label} on {want['network']}"))
            continue
        cur = current[i]
        if cur.type is None or cur.type.value != want["type"]:
            edits.append(NicEdit("replace", i, f"{label}: {cur.type.value if cur.type else '?'} -> {want['type']}"))
        elif not nic_matches_network(cur, want, inv, datacenter):
            edits.append(NicEdit("edit", i, f"move {label} to {want['network']}"))
        elif cur.connected != want["connected"] or (want["mac"] and (cur.mac or "").lower() != want["mac"].lower()):
            edits.append(NicEdit("edit", i, f"{label}: connection or MAC"))
    for i in range(len(desired), len(current)):
        edits.append(NicEdit("remove", i, f"remove {current[i].label or 'a vNIC'}"))
    return edits


def managed_vm(vm: VmInfo, design_id: str | None) -> bool:
    return vm.managed is not None and (design_id is None or vm.managed == design_id)


def teardown_changes(inv: Inventory, design_id: str | None) -> list[PlannedChange]:
    """Deletions of every object marked as vnetbench's (of ``design_id``, or of any design)."""
    tag = marking.design_tag(design_id) if design_id else None
    out: list[PlannedChange] = []
    for vm in inv.vms:
        if managed_vm(vm, design_id):
            out.append(PlannedChange(Op.DELETE, "vm", f"{vm.datacenter}/{vm.name}", f"VM {vm.name}", None,
                                     {"datacenter": vm.datacenter, "name": vm.name}))
    for pg in inv.dvpgs:
        if pg.managed and (design_id is None or pg.managed == design_id):
            out.append(PlannedChange(Op.DELETE, "dvportgroup", f"{pg.datacenter}/{pg.name}",
                                     f"distributed portgroup {pg.name}", None,
                                     {"datacenter": pg.datacenter, "name": pg.name}))
    for dvs in inv.dvses:
        if dvs.managed and (design_id is None or dvs.managed == design_id):
            out.append(PlannedChange(Op.DELETE, "dvswitch", f"{dvs.datacenter}/{dvs.name}",
                                     f"distributed switch {dvs.name}", None,
                                     {"datacenter": dvs.datacenter, "name": dvs.name}))
    for host in inv.hosts:
        for pg in host.portgroups:
            split = marking.split_standard_name(pg.name)
            if split and tag in (None, split[0]):
                out.append(PlannedChange(Op.DELETE, "portgroup", f"{host.name}/{pg.name}",
                                         f"portgroup {split[1]} on {host.name}", None,
                                         {"host": host.name, "name": pg.name}))
        for vs in host.vswitches:
            split = marking.split_standard_name(vs.name)
            if split and tag in (None, split[0]):
                out.append(PlannedChange(Op.DELETE, "vswitch", f"{host.name}/{vs.name}",
                                         f"standard switch {split[1]} on {host.name}", None,
                                         {"host": host.name, "name": vs.name}))
    rank = {stage: i for i, stage in enumerate(ORDER)}
    return sorted(out, key=lambda c: rank[(c.op, c.kind)])
