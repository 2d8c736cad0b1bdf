"""Compare a design with the inventory snapshot and list the changes that make vSphere match it.

Planning is pure: it reads an ``Inventory``, the ledger's entries and a ``Topology`` and returns
``PlannedChange``s whose ``data`` is plain (names, and managed object ids as strings), so a plan can be shown,
stored and applied later against fresh state.

Ownership comes from the mark alone (``marking``; the ``ledger`` for standard switches and portgroups), never
from a name: only owned objects are ever updated or deleted. An object that has a designed object's name but
is not owned is a *conflict*: a change that fails on its own with the reason, sends nothing, and blocks only
what needs it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from vnetbench.backends.contract import Op, PlannedChange, Unsupported
from vnetbench.model import VM, Index, LacpMode, Lag, NicType, Security, Switch, SwitchKind, Teaming, Topology
from vnetbench.model.vlan import VlanError, VlanMode, parse_vlan

from . import marking
from .guests import guest_id
from .inventory import ADAPTERS, DvsInfo, HostInfo, Inventory, NicInfo, VmInfo, adapter_name
from .lacp import MULTIPLE_LAG, lag_data, lag_ports, lag_specs
from .ledger import Entry
from .pvlan import pvlan_data
from .teaming import teaming_data
from .uplinkorder import portgroup_order, standalone, uplink_names

#: The ledger's entries on one server: design id -> what that design created there.
Owned = dict[str, set[Entry]]

SUPPORTED_NICS = frozenset(ADAPTERS)
#: ESXi refuses longer standard switch names.
MAX_VSWITCH_NAME = 32

#: Order of stages: builds before the VMs that use them, deletions after the moves away from them.
ORDER = [(Op.CREATE, "vswitch"), (Op.UPDATE, "vswitch"), (Op.CREATE, "dvswitch"), (Op.UPDATE, "dvswitch"),
         (Op.UPDATE, "lacp"), (Op.CREATE, "portgroup"), (Op.UPDATE, "portgroup"), (Op.CREATE, "dvportgroup"),
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


def unsupported_nic(vm: VM, nic: Any) -> str:
    return (f"vNIC {nic.name!r} of VM {vm.name!r} is a {nic.type.value} adapter, which vnetbench does not deploy "
            "on vSphere; use vmxnet3, e1000e or sriov")


class Planner:
    """One design against one inventory snapshot: ``problems()`` first, then ``plan()``."""

    def __init__(self, design: Topology, inv: Inventory, settings: dict[str, Any] | None = None,
                 owned: Owned | None = None) -> None:
        self.design, self.inv, self.settings = design, inv, settings or {}
        self.owned = owned or {}
        self.index = Index(design)
        self.did = design.id
        self.changes: list[PlannedChange] = []
        self._kept_vms: set[str] = set()

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
                out += [f"LAG {lag.name!r} of {sw.name!r} is static; a vDS LAG negotiates LACP: set its mode to "
                        "active or passive (a static EtherChannel goes with IP hash on single uplinks)"
                        for lag in sw.lags if lag.mode is LacpMode.STATIC]
                for pg in sw.portgroups:
                    order = self._order(sw, pg)
                    if isinstance(order, str):
                        out.append(f"distributed portgroup {pg.name!r}: {order}")
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
            return [unsupported_nic(vm, nic)]
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
        if nic.type is NicType.SRIOV and self._pf_pci(vm, nic) is None:
            return [f"{where} is an SR-IOV adapter, but its physical_function is not a pNIC of its host whose PCI "
                    "address vSphere reports; pick the pNIC whose virtual function it uses"]
        return []

    def _pf_pci(self, vm: VM, nic: Any) -> str | None:
        """The PCI address of an SR-IOV vNIC's physical function, as the VM's host reports it."""
        pnic = self.index.get(nic.physical_function)
        host = self.inv.host(self.index.get(vm.host).name) if self.index.get(vm.host) else None
        if pnic is None or host is None or self.index.parent(pnic.id) is not self.index.get(vm.host):
            return None
        info = host.pnic(pnic.name)
        return info.pci if info is not None and info.pci else None

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

    def _add(self, op: Op, kind: str, key: str, description: str, object_id: str | None, connectivity: str = "",
             **data: Any) -> None:
        self.changes.append(PlannedChange(op, kind, key, description, object_id, data, connectivity))

    def _conflict(self, kind: str, key: str, title: str, what: str, object_id: str, **data: Any) -> None:
        reason = f"conflict: {what} exists that vnetbench did not create; rename one of them"
        self._add(Op.CREATE, kind, key, f"{title}: {reason}", object_id, conflict=reason, **data)

    def _mine(self, host: HostInfo, name: str, vswitch: str = "") -> bool:
        return Entry(host.name, name, vswitch) in self.owned.get(self.did, ())

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
        label = f"standard switch {sw.name} on {host.name}"
        want = dict(host=host.name, name=name, mtu=sw.mtu, active=active, standby=standby, label=label,
                    teaming=teaming_data(effective_teaming(sw, None)))
        have = host.vswitch(name)
        mine = have is not None and self._mine(host, name)
        if have is None:
            self._add(Op.CREATE, "vswitch", key, label, sw.id, taken_pnics(host, active + standby, name, self.inv),
                      **want)
        elif not mine:
            self._conflict("vswitch", key, label, f"a standard switch named {name}", sw.id, **want)
        elif (have.mtu is not None and have.mtu != sw.mtu) or (have.pnics is not None
                                                                and sorted(have.pnics) != sorted(active + standby)) \
                or (have.mtu is not None and sw.teaming is not None and have.teaming != effective_teaming(sw, None)):
            uplinks = ", ".join(active + standby) or "none"
            risky = [f"the uplinks of {sw.name} become {uplinks}, MTU {sw.mtu}",
                     taken_pnics(host, active + standby, name, self.inv)]
            self._add(Op.UPDATE, "vswitch", key, f"{label}: MTU {sw.mtu}, uplinks {uplinks}", sw.id,
                      "; ".join(r for r in risky if r), **want)
        for pg in sw.portgroups:
            self._portgroup(host, sw, pg, name, key if not mine else None)

    def _portgroup(self, host: HostInfo, sw: Switch, pg: Any, vswitch: str, needs: str | None) -> None:
        pg_name = marking.standard_name(self.did, pg.name)
        vlan = parse_vlan(pg.vlan, SwitchKind.VSS)
        vlan_id = 0 if vlan.mode is VlanMode.NONE else (4095 if vlan.mode is VlanMode.TRUNK else vlan.tag)
        pg_active, pg_standby = self._pnic_names(pg.uplinks) if pg.uplinks is not None else (None, None)
        label = f"portgroup {pg.name} on {host.name}/{sw.name}"
        teaming = effective_teaming(sw, pg)
        data = dict(host=host.name, name=pg_name, vswitch=vswitch, vlan=vlan_id, security=security_data(pg.security),
                    active=pg_active, standby=pg_standby, needs=[needs] if needs else [], label=label,
                    teaming=teaming_data(teaming))
        current = host.portgroup(pg_name)
        key = f"{host.name}/{pg_name}"
        if current is None:
            self._add(Op.CREATE, "portgroup", key, f"{label}, VLAN {vlan_id}", pg.id, **data)
            return
        if not self._mine(host, pg_name, current.vswitch):
            self._conflict("portgroup", key, label, f"a portgroup named {pg_name}", pg.id, **data)
            return
        diffs = []
        if current.vlan != vlan_id:
            diffs.append(f"VLAN {current.vlan} -> {vlan_id}")
        if current.vswitch != vswitch:
            diffs.append(f"switch {current.vswitch} -> {vswitch}")
        if current.security != pg.security:
            diffs.append("security policy")
        if pg_active is not None and (current.active, current.standby) != (pg_active, pg_standby):
            diffs.append("teaming order")
        if teaming is not None and current.teaming != teaming:
            diffs.append("teaming policy")
        if diffs:
            risky = [d for d in diffs if d not in ("security policy", "teaming policy")]
            self._add(Op.UPDATE, "portgroup", key, f"{label}: {', '.join(diffs)}", pg.id,
                      f"portgroup {pg.name} on {host.name}: {', '.join(risky)}" if risky else "", was=current.vswitch,
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
        lag_pnics: dict[str, dict[str, list[str]]] = {}     # host -> LAG -> its pNICs there, in port order
        alone = standalone(sw, self._host_name)
        for host_id in sw.members:
            host = self.index.get(host_id)
            lag_pnics[host.name] = {lag.name: [self.index.get(p).name for p in lag.pnics
                                               if self.index.parent(p) is host] for lag in sw.lags}
            members[host.name] = [self.index.get(p).name for p in alone.get(host.name, [])] + \
                [p for pnics in lag_pnics[host.name].values() for p in pnics]
        have = self.inv.dvs(sw.name, dc)
        label = f"distributed switch {sw.name}"
        teaming = effective_teaming(sw, None)
        lag = self._lag(sw, sw.teaming)
        names = uplink_names(sw, self._host_name)
        # The switch's ports send through a LAG: said with the switch only once the LAG exists, else by the LAG
        # change that makes it (a port order naming no LAG of the switch is refused).
        lag_order = [[lag.name], []] if lag else None
        held = lag is not None and have is not None and any(h.name == lag.name for h in have.lags)
        want: dict[str, Any] = dict(datacenter=dc, name=sw.name, mtu=sw.mtu, label=label,
                                    teaming=teaming_data(teaming), pvlans=pvlan_data(sw.pvlans), uplinks=names, lacp=MULTIPLE_LAG if sw.lags else None,
                    order=lag_order if held else None, lag_pnics=lag_pnics)
        if have is None:
            self._add(Op.CREATE, "dvswitch", key, f"{label} with {len(members)} hosts", sw.id,
                      self._taken_by_dvs(members, sw.name), add=members, remove=[], edit={}, **want)
        elif have.managed != self.did:
            self._conflict("dvswitch", key, label, f"a distributed switch named {sw.name}", sw.id, add=members,
                           remove=[], edit={}, **want)
        else:
            present = {self.inv.host_by_moid(m).name: m for m in have.members if self.inv.host_by_moid(m)}
            add = {h: p for h, p in members.items() if h not in present}
            remove = sorted(set(present) - set(members))
            # Uplinks of hosts already in: only a real vCenter reports them (vcsim leaves config.host empty).
            edit = {h: p for h, p in members.items() if h in present and present[h] in have.uplinks
                    and sorted(have.uplinks[present[h]]) != sorted(p)}
            mtu = have.mtu is not None and have.mtu != sw.mtu
            policy = teaming is not None and have.teaming != teaming
            pvlans = pvlan_data(have.pvlans) != want["pvlans"]
            used = {n for pg in sw.portgroups if isinstance(o := self._order(sw, pg), tuple) for n in o[0] + o[1]}
            named = bool(used - set(have.uplink_names) - {lag.name for lag in sw.lags})
            lacp = bool(sw.lags) and have.lacp_version != MULTIPLE_LAG
            order = want["order"] is not None and have.order != tuple(want["order"])
            if add or remove or edit or mtu or policy or pvlans or named or lacp or order:
                parts = [f"add {', '.join(add)}" if add else "", f"remove {', '.join(remove)}" if remove else "",
                         "; ".join(f"uplinks of {h}: {', '.join(p) or 'none'}" for h, p in edit.items()),
                         f"MTU {sw.mtu}" if mtu else "", "teaming policy" if policy else "",
                         "private VLANs" if pvlans else "", f"uplinks {', '.join(names)}" if named else "",
                         "enhanced LACP" if lacp else "", f"traffic through LAG {lag.name}" if order and lag else ""]
                risky = [f"uplinks of {h} become {', '.join(p) or 'none'}" for h, p in edit.items()]
                risky += [f"MTU {have.mtu} -> {sw.mtu}"] if mtu else []
                taken = self._taken_by_dvs(add, sw.name)
                self._add(Op.UPDATE, "dvswitch", key, f"{label}: " + ", ".join(p for p in parts if p), sw.id,
                          "; ".join(risky + ([taken] if taken else [])), add=add, remove=remove, edit=edit,
                          moid=have.ref._moId, owner=self.did, **want)
        mine = have is not None and have.managed == self.did
        lags_key = self._lags(sw, dc, key, have if mine else None, members, lag_pnics, want["teaming"], lag_order)
        for pg in sw.portgroups:
            needs = [] if mine else [key]
            if lags_key and self._lag(sw, pg.teaming):
                needs.append(lags_key)
            self._dvportgroup(sw, pg, dc, needs)

    def _host_name(self, pnic: str) -> str | None:
        return getattr(self.index.parent(pnic), "name", None) if pnic in self.index else None

    def _lag(self, sw: Switch, policy: Teaming | None) -> Lag | None:
        return next((lag for lag in sw.lags if lag.id == policy.lag), None) if policy and policy.lag else None

    def _order(self, sw: Switch, pg: Any) -> tuple[list[str], list[str]] | str | None:
        """A distributed portgroup's explicit uplink order as vSphere names it (a LAG: its only active uplink),
        None when it has none of its own, or why it cannot be said."""
        lag = self._lag(sw, pg.teaming)
        if lag is not None:
            return [lag.name], []
        return portgroup_order(sw, pg.uplinks, self._host_name) if pg.uplinks is not None else None

    def _lags(self, sw: Switch, dc: str, key: str, have: DvsInfo | None, members: dict[str, list[str]],
              lag_pnics: dict[str, dict[str, list[str]]], teaming: dict[str, Any] | None,
              order: list[list[str]] | None) -> str | None:
        """Plan the switch's LAGs (``UpdateDVSLacpGroupConfig``), its members' pNICs on their ports and (``order``)
        its ports sending through one of them; the change's key, or None when nothing changes."""
        want = [lag_data(lag.name, lag.mode, lag.hash,
                         max([len(by_lag[lag.name]) for by_lag in lag_pnics.values()] + [1])) for lag in sw.lags]
        held = have.lags if have is not None else []
        specs = lag_specs(want, held)
        placed = {}           # host -> pNICs not yet on their LAG's ports (only where vCenter reports ports)
        if have is not None:
            for host, lags in lag_pnics.items():
                info = self.inv.host(host)
                ports = have.ports.get(info.moid) if info is not None else None
                if ports is None:
                    continue
                wanted = lag_ports(lags, held)
                if any(ports.get(p) != wanted.get(p) for pnics in lags.values() for p in pnics):
                    placed[host] = sorted(p for pnics in lags.values() for p in pnics)
        if not specs and not placed:
            return None
        lags_key = f"{key}/lags"
        parts = [f"{s.operation} {s.lacpGroupConfig.name}" for s in specs]
        parts += [f"{', '.join(p)} of {h} into their LAGs" for h, p in placed.items()]
        self._add(Op.UPDATE, "lacp", lags_key, f"LAGs of distributed switch {sw.name}: {'; '.join(parts)}", sw.id,
                  datacenter=dc, name=sw.name, lags=want, lag_pnics=lag_pnics, members=members, needs=[key],
                  teaming=teaming, order=order, label=f"LAGs of distributed switch {sw.name}")
        return lags_key

    def _taken_by_dvs(self, members: dict[str, list[str]], dvs: str) -> str:
        """What joining ``dvs`` with these pNICs takes away from the switches that use them now."""
        taken = [taken_pnics(host, pnics, dvs, self.inv) for name, pnics in members.items()
                 if (host := self.inv.host(name)) is not None]
        return "; ".join(t for t in taken if t)

    def _dvportgroup(self, sw: Switch, pg: Any, dc: str, needs: list[str]) -> None:
        vlan = parse_vlan(pg.vlan, SwitchKind.VDS)
        teaming = replace(pg.teaming, lag=None) if pg.teaming is not None else None   # else the switch's
        order = self._order(sw, pg)
        data = dict(datacenter=dc, dvs=sw.name, name=pg.name, vlan=str(vlan.tag or 0) if vlan.mode is not VlanMode.TRUNK
                    else "trunk", ranges=[list(r) for r in vlan.ranges], security=security_data(pg.security),
                    needs=needs, label=f"distributed portgroup {pg.name}",
                    teaming=teaming_data(teaming), pvlan=pg.pvlan, order=list(order) if order else None)
        current = self.inv.dvpg(pg.name, dc)
        if order is None and current is not None and current.order is not None:
            data["order"] = []          # back to the switch's order
        key = f"{dc}/{pg.name}"
        label = data["label"]
        if current is None:
            self._add(Op.CREATE, "dvportgroup", key, f"{label} on {sw.name}, {vlan}", pg.id, **data)
            return
        if current.managed != self.did:
            self._conflict("dvportgroup", key, label, f"a distributed portgroup named {pg.name}", pg.id, **data)
            return
        diffs = []
        if pg.pvlan is None and not parse_vlan(current.vlan, SwitchKind.VDS).means(vlan):   # (a private VLAN: no VLAN)
            diffs.append(f"{parse_vlan(current.vlan, SwitchKind.VDS)} -> {vlan}")
        if current.security != pg.security:
            diffs.append("security policy")
        if teaming is not None and current.teaming != teaming:
            diffs.append("teaming policy")
        if current.pvlan != pg.pvlan:
            diffs.append(f"private VLAN {current.pvlan or 'none'} -> {pg.pvlan or 'none'}")
        if isinstance(order, tuple) and current.order != order:
            diffs.append("uplink order " + " > ".join(order[0] + [f"{n} (standby)" for n in order[1]]))
        elif data["order"] == []:
            diffs.append("uplink order of the switch")
        if diffs:
            self._add(Op.UPDATE, "dvportgroup", key, f"{label}: {', '.join(diffs)}", pg.id,
                      moid=current.ref._moId, owner=self.did, **data)

    def network_of(self, nic: Any) -> Network:
        pg = self.index.get(nic.network)
        sw: Switch = self.index.parent(nic.network)
        if sw.kind is SwitchKind.VSS:
            return Network("standard", marking.standard_name(self.did, pg.name))
        return Network("dvpg", pg.name, sw.name)

    def nic_data(self, vm: VM, nic: Any) -> dict[str, Any]:
        """A designed vNIC as plan data (what ``match_nics`` and apply read)."""
        net = self.network_of(nic)
        return dict(id=nic.id, name=nic.name, type=nic.type.value, kind=net.kind, network=net.name, dvs=net.dvs,
                    mac=nic.mac, connected=nic.connected,
                    pf=self._pf_pci(vm, nic) if nic.type is NicType.SRIOV else None)

    def _vm(self, vm: VM) -> None:
        host = self._host(vm.host)
        dc = host.datacenter
        key = f"{dc}/{vm.name}"
        nics = [self.nic_data(vm, nic) for nic in vm.vnics]
        needs = {f"{host.name}/{n['network']}" if n["kind"] == "standard" else f"{dc}/{n['network']}" for n in nics}
        data = dict(datacenter=dc, name=vm.name, host=host.name, cpus=vm.cpus, guest_id=guest_id(vm.guest_os),
                    version=f"vmx-{vm.hardware_version:02d}", nics=nics, needs=sorted(needs))
        label = f"VM {vm.name}"
        mine = sorted((v for v in self.inv.vms if v.managed == self.did and v.name == vm.name and v.datacenter == dc),
                      key=lambda v: v.host != host.moid)
        if not mine:
            if self.inv.vm(vm.name, dc) is not None:
                self._conflict("vm", key, f"{label} on {host.name}", f"a VM named {vm.name}", vm.id, **data)
            else:
                self._add(Op.CREATE, "vm", key, f"{label} on {host.name} with {len(nics)} vNICs", vm.id, **data)
            return
        have = mine[0]  # any others are copies an interrupted apply left: deleted below
        self._kept_vms.add(have.moid)
        diffs = []
        current_host = self.inv.host_by_moid(have.host) if have.host else None
        if current_host is None or current_host.name != host.name:
            diffs.append(f"move to host {host.name}")
        if have.cpus != vm.cpus:
            diffs.append(f"{have.cpus} -> {vm.cpus} CPUs")
        diffs.extend(edit.description for edit in nic_edits(have, nics, self.inv, dc))
        if self.inv.managed_field_key is not None and have.custom_marker != self.did:
            diffs.append("mark as vnetbench's")
        if diffs:
            self._add(Op.UPDATE, "vm", key, f"{label}: {'; '.join(diffs)}", vm.id, moid=have.moid, owner=self.did,
                      **data)

    def _deletions(self) -> None:
        """Owned objects of this design that the design no longer has."""
        for vm in self.inv.vms:
            if vm.managed == self.did and vm.moid not in self._kept_vms:
                self.changes.append(delete_vm(vm))
        wanted_dv = {(sw.name, pg.name) for sw in self.design.switches if sw.kind is SwitchKind.VDS
                     for pg in sw.portgroups}
        wanted_dvs = {sw.name for sw in self.design.switches if sw.kind is SwitchKind.VDS}
        for pg in self.inv.dvpgs:
            if pg.managed == self.did and (pg.dvs, pg.name) not in wanted_dv and pg.dvs in wanted_dvs:
                self.changes.append(delete_marked("dvportgroup", "distributed portgroup", pg))
        for dvs in self.inv.dvses:
            if dvs.managed == self.did and dvs.name not in wanted_dvs:
                self.changes.append(delete_marked("dvswitch", "distributed switch", dvs))
        wanted_std = {(self.index.get(sw.host).name, marking.standard_name(self.did, name))
                      for sw in self.design.switches if sw.kind is SwitchKind.VSS
                      for name in [sw.name, *(pg.name for pg in sw.portgroups)]}
        self.changes.extend(delete_standard(entry) for entry in standard_objects(self.inv, self.owned.get(self.did, ()))
                            if (entry.host, entry.name) not in wanted_std)


# --- host connectivity ---------------------------------------------------------------------------------------


def effective_teaming(sw: Switch, pg: Any) -> Teaming | None:
    """The teaming policy a portgroup sends: its own override, else its switch's, without a LAG (a distributed
    portgroup names its LAG in its uplink order), None when the design sets none (the server's own stays)."""
    policy = (pg.teaming if pg is not None else None) or sw.teaming
    return replace(policy, lag=None) if policy is not None else None


def taken_pnics(host: HostInfo, pnics: list[str], switch: str, inv: Inventory) -> str:
    """Which of ``pnics`` another switch of ``host`` uses now (so giving them to ``switch`` takes them from it,
    perhaps with the host's management network), as a sentence; empty when none, or when the server does not
    say (vcsim reports no uplinks)."""
    users = {p: vs.name for vs in host.vswitches if vs.name != switch for p in vs.pnics or []}
    for dvs in inv.dvses:
        if dvs.name != switch:
            users.update({p: dvs.name for p in dvs.uplinks.get(host.moid, [])})
    taken = [f"{p} from {users[p]}" for p in pnics if p in users]
    return f"takes {', '.join(taken)} on {host.name}" if taken else ""


# --- deletions (used by the plan and by teardown) ----------------------------------------------------------


def delete_vm(vm: VmInfo) -> PlannedChange:
    return PlannedChange(Op.DELETE, "vm", f"{vm.datacenter}/{vm.name}", f"VM {vm.name}", None,
                         {"datacenter": vm.datacenter, "name": vm.name, "moid": vm.moid, "owner": vm.managed})


def delete_marked(kind: str, label: str, obj: Any) -> PlannedChange:
    return PlannedChange(Op.DELETE, kind, f"{obj.datacenter}/{obj.name}", f"{label} {obj.name}", None,
                         {"datacenter": obj.datacenter, "name": obj.name, "moid": obj.ref._moId,
                          "owner": obj.managed})


def delete_standard(entry: Entry) -> PlannedChange:
    split = marking.split_standard_name(entry.name)
    label = f"{'portgroup' if entry.vswitch else 'standard switch'} {split[1] if split else entry.name}"
    return PlannedChange(Op.DELETE, entry.kind, f"{entry.host}/{entry.name}", f"{label} on {entry.host}", None,
                         {"host": entry.host, "name": entry.name, "vswitch": entry.vswitch})


def standard_object(inv: Inventory, entry: Entry) -> Any:
    """The standard switch or portgroup a ledger entry names, if its host has one of that name."""
    host = inv.host(entry.host)
    if host is None:
        return None
    return host.portgroup(entry.name) if entry.vswitch else host.vswitch(entry.name)


def standard_objects(inv: Inventory, entries: Any) -> list[Entry]:
    """The ledger's entries whose object is still there and still looks as created (a portgroup on the same
    standard switch)."""
    return [e for e in entries if (obj := standard_object(inv, e)) is not None
            and (not e.vswitch or obj.vswitch == e.vswitch)]


def teardown_changes(inv: Inventory, design_id: str | None, owned: Owned) -> list[PlannedChange]:
    """Deletions of every object owned by vnetbench (of ``design_id``, or of any design): marked VMs and
    distributed switches and portgroups, and the standard ones the ledger names. Nothing else, whatever its
    name."""
    out: list[PlannedChange] = []
    for vm in inv.vms:
        if vm.managed and design_id in (None, vm.managed):
            out.append(delete_vm(vm))
    for pg in inv.dvpgs:
        if pg.managed and design_id in (None, pg.managed):
            out.append(delete_marked("dvportgroup", "distributed portgroup", pg))
    for dvs in inv.dvses:
        if dvs.managed and design_id in (None, dvs.managed):
            out.append(delete_marked("dvswitch", "distributed switch", dvs))
    for did, entries in sorted(owned.items()):
        if design_id in (None, did):
            present = sorted(standard_objects(inv, entries), key=lambda e: (e.host, e.name))
            out.extend(delete_standard(e) for e in present)
    rank = {stage: i for i, stage in enumerate(ORDER)}
    return sorted(out, key=lambda c: rank[(c.op, c.kind)])


# --- vNICs: which device is which designed vNIC, and what differs ----------------------------------------


@dataclass(frozen=True)
class NicEdit:
    action: str  # "add", "edit", "replace", "remove"
    want: dict[str, Any] | None
    have: NicInfo | None
    description: str


def nic_matches_network(cur: NicInfo, want: dict[str, Any], inv: Inventory, datacenter: str) -> bool:
    if want["kind"] == "standard":
        return cur.dvpg_key is None and cur.network == want["network"]
    dvpg = inv.dvpg(want["network"], datacenter)
    return dvpg is not None and cur.dvpg_key == dvpg.key


def same_adapter(cur: NicInfo, want: dict[str, Any]) -> bool:
    """The same device class (and for SR-IOV, a virtual function of the same pNIC)."""
    return type(cur.device) is ADAPTERS.get(NicType(want["type"])) and cur.pf == want.get("pf")


def match_nics(vm: VmInfo, desired: list[dict[str, Any]], inv: Inventory,
               datacenter: str) -> tuple[list[tuple[dict[str, Any], NicInfo | None]], list[NicInfo]]:
    """Pair each designed vNIC with the device that is it, by a stable identity, never by position: the MAC
    when the design sets one, else the device key the last apply recorded, else the same adapter on the same
    network, else the same network, else the same adapter. Returns the pairs and the unpaired devices."""
    free = sorted(vm.nics, key=lambda n: n.key)
    pairs: dict[int, NicInfo] = {}
    tests = [
        lambda w, c: bool(w["mac"]) and (c.mac or "").lower() == w["mac"].lower(),
        lambda w, c: vm.nic_keys.get(w["id"]) == c.key,
        lambda w, c: same_adapter(c, w) and nic_matches_network(c, w, inv, datacenter),
        lambda w, c: nic_matches_network(c, w, inv, datacenter),
        lambda w, c: same_adapter(c, w),
    ]
    for test in tests:
        for i, want in enumerate(desired):
            if i in pairs:
                continue
            found = next((c for c in free if test(want, c)), None)
            if found is not None:
                pairs[i] = found
                free.remove(found)
    return [(want, pairs.get(i)) for i, want in enumerate(desired)], free


def nic_edits(vm: VmInfo, desired: list[dict[str, Any]], inv: Inventory, datacenter: str) -> list[NicEdit]:
    pairs, extra = match_nics(vm, desired, inv, datacenter)
    edits = []
    for want, cur in pairs:
        label = f"vNIC {want['name']}"
        if cur is None:
            edits.append(NicEdit("add", want, None, f"add {label} on {want['network']}"))
        elif not same_adapter(cur, want):
            was = cur.type.value if cur.type else adapter_name(type(cur.device))
            both_sriov = cur.type is NicType.SRIOV and want["type"] == NicType.SRIOV.value
            change = f"SR-IOV function of {cur.pf} -> {want['pf']}" if both_sriov else f"{was} -> {want['type']}"
            edits.append(NicEdit("replace", want, cur, f"{label}: {change}"))
        elif not nic_matches_network(cur, want, inv, datacenter):
            edits.append(NicEdit("edit", want, cur, f"move {label} to {want['network']}"))
        elif cur.connected != want["connected"]:
            edits.append(NicEdit("edit", want, cur, f"{label}: {'connect' if want['connected'] else 'disconnect'}"))
        elif want["mac"] and (cur.mac or "").lower() != want["mac"].lower():
            edits.append(NicEdit("edit", want, cur, f"{label}: MAC {cur.mac} -> {want['mac']}"))
    edits.extend(NicEdit("remove", None, cur, f"remove {cur.label or 'a vNIC'}") for cur in extra)
    return edits


def nic_keys(vm: VmInfo, desired: list[dict[str, Any]], inv: Inventory, datacenter: str) -> dict[str, int]:
    """vNIC id -> device key of the devices that match the design now (recorded after an apply)."""
    pairs, _ = match_nics(vm, desired, inv, datacenter)
    return {want["id"]: cur.key for want, cur in pairs if cur is not None}
