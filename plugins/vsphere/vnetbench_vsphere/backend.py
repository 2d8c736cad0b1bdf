"""The vSphere backend: plan, apply, teardown, status, import and endpoints over one pyvmomi session."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vnetbench.backends.contract import (
    Backend,
    BackendError,
    CancelToken,
    Capabilities,
    ChangeResult,
    Deployment,
    DeployState,
    Endpoint,
    ObjectState,
    Op,
    Plan,
    ProgressFn,
    SettingField,
    SettingKind,
    Unsupported,
)
from vnetbench.model import Index, SwitchKind, Topology

from . import marking
from .apply import Applier
from .connection import KEYRING_SERVICE, Connection, keyring_account, parse_url
from .importer import to_topology
from .inventory import Inventory, read_inventory
from .planner import SUPPORTED_NICS, Planner, teardown_changes
from .ssh import SshEndpoint


class VSphereBackend(Backend):
    """vCenter or a standalone ESXi host.

    Settings: ``url``, ``user``, ``password`` (typed for one session; else from the OS keyring),
    ``trust_fingerprint``, ``pin_file``,
    ``datacenter``, ``datastore``, ``template`` (clone VMs from it instead of creating empty shells),
    ``memory_mb``, and for probes ``ssh_user``, ``ssh_port``, ``ssh_known_hosts``.
    """

    name = "vsphere"
    title = "VMware vSphere"
    capabilities = Capabilities(switch_kinds=frozenset({SwitchKind.VSS, SwitchKind.VDS}), vlan_trunks=True,
                                firewalls=True, bridged_firewalls=True, nsx=False, physical_network=False,
                                import_inventory=True, measure=True, needs_credentials=True)
    settings_fields = (
        SettingField("url", "Server", SettingKind.URL, "", "vCenter or ESXi address, like https://vc.example/sdk",
                     required=True),
        SettingField("user", "User", SettingKind.USER, "", "like administrator@vsphere.local", required=True),
        SettingField("password", "Password", SettingKind.SECRET, "",
                     f"kept in the OS keyring (service {KEYRING_SERVICE}) when remembered, never in the design"),
    )
    keyring_service = KEYRING_SERVICE

    @classmethod
    def secret_account(cls, settings: Mapping[str, Any]) -> str:
        return keyring_account(str(settings.get("user") or ""), parse_url(str(settings.get("url") or "")))

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        super().__init__(settings)
        self.conn: Connection | None = None

    def connect(self) -> None:
        self.close()
        conn = Connection(self.settings)
        conn.open()
        self.conn = conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _session(self) -> Connection:
        if self.conn is None or self.conn.si is None:
            self.connect()
        assert self.conn is not None
        return self.conn

    def inventory(self) -> Inventory:
        conn = self._session()
        return conn.call(lambda: read_inventory(conn.content))

    def unsupported(self, design: Topology) -> list[str]:
        reasons = super().unsupported(design)
        for vm in design.vms:
            for nic in vm.vnics:
                if nic.type not in SUPPORTED_NICS:
                    reasons.append(f"vNIC {nic.name!r} of VM {vm.name!r} is a {nic.type.value} adapter, which "
                                   "vSphere has not; use vmxnet3 or e1000e")
        return reasons

    def plan(self, design: Topology) -> Plan:
        planner = Planner(design, self.inventory(), self.settings)
        reasons = list(dict.fromkeys(self.unsupported(design) + planner.problems()))
        if reasons:
            raise Unsupported(reasons)
        return Plan(self.name, design.id, tuple(planner.plan()))

    def apply(self, plan: Plan, progress: ProgressFn | None = None,
              cancel: CancelToken | None = None) -> list[ChangeResult]:
        conn = self._session()
        conn.ensure_session()
        return Applier(conn, self.settings, plan.design_id).run(plan.changes, progress, cancel)

    def teardown(self, design_id: str | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None) -> list[ChangeResult]:
        changes = teardown_changes(self.inventory(), design_id)
        assert self.conn is not None
        return Applier(self.conn, self.settings, None).run(tuple(changes), progress, cancel)

    def status(self, design: Topology) -> dict[str, ObjectState]:
        inv = self.inventory()
        index = Index(design)
        try:
            changes = Planner(design, inv, self.settings).plan()
        except Unsupported as exc:
            return {oid: ObjectState(DeployState.FAILED, "; ".join(exc.reasons)) for oid in index.entries}
        pending = {c.object_id: c for c in changes if c.object_id and c.op is not Op.DELETE}
        out: dict[str, ObjectState] = {}
        for oid, entry in index.entries.items():
            if entry.kind == "host":
                out[oid] = ObjectState(DeployState.DEPLOYED)
                continue
            if entry.kind not in ("switch", "portgroup", "vm", "vnic"):
                continue
            owner = entry.parent.id if entry.kind == "vnic" else oid
            change = pending.get(owner)
            if change is None:
                out[oid] = ObjectState(DeployState.DEPLOYED)
            elif change.op is Op.CREATE:
                out[oid] = ObjectState(DeployState.ABSENT, change.description)
            else:
                out[oid] = ObjectState(DeployState.PENDING, change.description)
        return out

    def import_design(self, progress: ProgressFn | None = None) -> Topology:
        if progress:
            progress(0, 2, "reading the inventory")
        inv = self.inventory()
        if progress:
            progress(1, 2, f"read {len(inv.hosts)} hosts, {len(inv.vms)} VMs")
        assert self.conn is not None
        topo = to_topology(inv, f"vSphere {self.conn.server.hostport}")
        if progress:
            progress(2, 2, "done")
        return topo

    def deployments(self) -> list[Deployment]:
        """Designs with marked objects here. Standard switches and portgroups carry only a hash of their
        design id, so they count towards a design that also has a VM or distributed switch here."""
        inv = self.inventory()
        counts: dict[str, int] = {}
        marks = [vm.managed for vm in inv.vms] + [d.managed for d in inv.dvses] + [p.managed for p in inv.dvpgs]
        for managed in marks:
            if managed:
                counts[managed] = counts.get(managed, 0) + 1
        by_tag = {marking.design_tag(did): did for did in counts}
        orphans: dict[str, int] = {}
        for host in inv.hosts:
            for name in [v.name for v in host.vswitches] + [p.name for p in host.portgroups]:
                split = marking.split_standard_name(name)
                if split and split[0] in by_tag:
                    counts[by_tag[split[0]]] += 1
                elif split:
                    orphans[split[0]] = orphans.get(split[0], 0) + 1
        out = [Deployment(did, did, n) for did, n in sorted(counts.items())]
        note = "standard switches/portgroups of a design whose id is not known here; teardown --all removes them"
        out += [Deployment(f"vnb-{tag}", f"vnb-{tag}-*", n, note) for tag, n in sorted(orphans.items())]
        return out

    def endpoint(self, design: Topology, vm_id: str) -> Endpoint:
        vm = Index(design).get(vm_id)
        if vm is None or not hasattr(vm, "vnics"):
            raise BackendError(f"no VM with id {vm_id!r} in the design", "pick a VM of this design")
        have = next((v for v in self.inventory().vms if v.name == vm.name and v.managed == design.id), None)
        if have is None:
            raise BackendError(f"VM {vm.name} is not deployed on vSphere", "deploy the design first")
        addresses: dict[str, str] = {}
        for i, nic in enumerate(vm.vnics):
            ip = nic.ip or (have.nics[i].ips[0] if i < len(have.nics) and have.nics[i].ips else None)
            if ip:
                addresses[nic.id] = ip.split("/")[0]
        return SshEndpoint(vm.name, addresses, self.settings)
