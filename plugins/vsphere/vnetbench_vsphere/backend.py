"""The vSphere backend: plan, apply, teardown, status, import and endpoints over one pyvmomi session."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from vnetbench.backends.manifest import Manifest
from vnetbench.backends.contract import (
    Backend,
    BackendError,
    CancelToken,
    ChangeResult,
    Deployment,
    DeployState,
    Endpoint,
    ObjectState,
    Op,
    Plan,
    ProgressFn,
    Unsupported,
)
from vnetbench.model import Index, Topology

from . import marking
from .apply import Applier
from .connection import KEYRING_SERVICE, Connection, keyring_account, parse_url
from .hostcounters import HostCounters
from .importer import to_topology
from .inventory import Inventory, read_inventory
from .ledger import Ledger
from .neighbours import read_hints
from .planner import (
    SUPPORTED_NICS,
    Planner,
    match_nics,
    standard_object,
    standard_objects,
    teardown_changes,
    unsupported_nic,
)
from .ssh import SshEndpoint

log = logging.getLogger("vnetbench.vsphere")


#: name, title, capabilities and settings, from the manifest that discovery reads without importing this
MANIFEST = Manifest.of(__file__)


class VSphereBackend(Backend):
    """vCenter or a standalone ESXi host.

    Settings: ``url``, ``user``, ``password`` (typed for one session; else from the OS keyring),
    ``trust_fingerprint``, ``pin_file``, ``ledger_file``,
    ``datacenter``, ``datastore``, ``template`` (clone VMs from it instead of creating empty shells),
    ``memory_mb``, for probes ``ssh_user``, ``ssh_port``, ``ssh_known_hosts``, and for verify's pNIC
    counters ``esxi_ssh_user``, ``esxi_ssh_identity``, ``esxi_ssh_port``, ``esxi_ssh_timeout``
    (``hostcounters``).
    """

    name = MANIFEST.name
    title = MANIFEST.title
    capabilities = MANIFEST.capabilities
    settings_fields = MANIFEST.settings_fields
    probe_capabilities = MANIFEST.probes
    keyring_service = KEYRING_SERVICE

    @classmethod
    def secret_account(cls, settings: Mapping[str, Any]) -> str:
        return keyring_account(str(settings.get("user") or ""), parse_url(str(settings.get("url") or "")))

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        super().__init__(settings)
        self.conn: Connection | None = None
        self.ledger: Ledger | None = None
        #: What the last ``import_design`` could not carry over exactly (also in the design's description).
        self.import_warnings: list[str] = []
        self.host_counters = HostCounters(self.settings)

    def connect(self) -> None:
        self.close()
        conn = Connection(self.settings)
        conn.open()
        self.conn = conn
        self.ledger = Ledger(conn.identity, self.settings.get("ledger_file"))

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
        return super().unsupported(design) + [unsupported_nic(vm, nic) for vm in design.vms for nic in vm.vnics
                                              if nic.type not in SUPPORTED_NICS]

    def _ledger(self) -> Ledger:
        self._session()
        assert self.ledger is not None
        return self.ledger

    def _planner(self, design: Topology) -> Planner:
        inv = self.inventory()
        return Planner(design, inv, self.settings, self._ledger().designs())

    def plan(self, design: Topology) -> Plan:
        planner = self._planner(design)
        reasons = list(dict.fromkeys(self.unsupported(design) + planner.problems()))
        if reasons:
            raise Unsupported(reasons)
        return Plan(self.name, design.id, tuple(planner.plan()))

    def apply(self, plan: Plan, progress: ProgressFn | None = None,
              cancel: CancelToken | None = None) -> list[ChangeResult]:
        conn = self._session()
        return Applier(conn, self.settings, plan.design_id or None, self._ledger()).run(plan.changes, progress,
                                                                                         cancel)

    def teardown_plan(self, design_id: str | None = None) -> Plan:
        """What ``teardown`` removes: objects marked as vnetbench's and standard ones the ledger names, and
        nothing else (so ``teardown --all`` can list it first). Ledger entries whose object is gone are dropped."""
        inv = self.inventory()
        ledger = self._ledger()
        owned = ledger.designs()
        for did, entries in owned.items():
            for entry in entries:
                if design_id in (None, did) and inv.host(entry.host) and standard_object(inv, entry) is None:
                    ledger.remove(entry)
        return Plan(self.name, design_id or "", tuple(teardown_changes(inv, design_id, owned)))

    def teardown(self, design_id: str | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None) -> list[ChangeResult]:
        return self.apply(self.teardown_plan(design_id), progress, cancel)

    def status(self, design: Topology) -> dict[str, ObjectState]:
        index = Index(design)
        try:
            changes = self._planner(design).plan()
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
            elif change.data.get("conflict"):
                out[oid] = ObjectState(DeployState.FAILED, change.description)
            elif change.op is Op.CREATE:
                out[oid] = ObjectState(DeployState.ABSENT, change.description)
            else:
                out[oid] = ObjectState(DeployState.PENDING, change.description)
        return out

    def import_design(self, progress: ProgressFn | None = None) -> Topology:
        if progress:
            progress(0, 3, "reading the inventory")
        inv = self.inventory()
        if progress:
            progress(1, 3, f"read {len(inv.hosts)} hosts, {len(inv.vms)} VMs; asking for CDP/LLDP neighbours")
        conn = self._session()
        hints = conn.call(lambda: read_hints(inv))
        if progress:
            progress(2, 3, "building the design")
        imported = to_topology(inv, f"vSphere {conn.server.hostport}", hints)
        self.import_warnings = imported.warnings
        for warning in imported.warnings:
            log.warning("import: %s", warning)
        if progress:
            count = len(imported.warnings)
            progress(3, 3, "done" + (f" with {count} warning{'s' if count > 1 else ''}" if count else ""))
        return imported.topology

    def deployments(self) -> list[Deployment]:
        """Designs with objects vnetbench owns here (marked, or standard ones in the ledger). Standard switches
        and portgroups named like vnetbench's but in no ledger of this machine are listed apart: teardown
        leaves them alone."""
        inv = self.inventory()
        counts: dict[str, int] = {}
        marks = [vm.managed for vm in inv.vms] + [d.managed for d in inv.dvses] + [p.managed for p in inv.dvpgs]
        for managed in marks:
            if managed:
                counts[managed] = counts.get(managed, 0) + 1
        owned = self._ledger().designs()
        known = set()
        for did, entries in owned.items():
            present = standard_objects(inv, entries)
            known |= {(e.host, e.name) for e in present}
            if present:
                counts[did] = counts.get(did, 0) + len(present)
        foreign: dict[str, int] = {}
        for host in inv.hosts:
            for name in [v.name for v in host.vswitches] + [p.name for p in host.portgroups]:
                split = marking.split_standard_name(name)
                if split and (host.name, name) not in known:
                    foreign[split[0]] = foreign.get(split[0], 0) + 1
        out = [Deployment(did, did, n) for did, n in sorted(counts.items())]
        note = "named like vnetbench's standard switches/portgroups, but in no ledger here: teardown leaves them"
        out += [Deployment(f"vnb-{tag}", f"vnb-{tag}-*", n, note) for tag, n in sorted(foreign.items())]
        return out

    def endpoint(self, design: Topology, vm_id: str) -> Endpoint:
        vm = Index(design).get(vm_id)
        if vm is None or not hasattr(vm, "vnics"):
            raise BackendError(f"no VM with id {vm_id!r} in the design", "pick a VM of this design")
        planner = self._planner(design)
        have = next((v for v in planner.inv.vms if v.name == vm.name and v.managed == design.id), None)
        if have is None:
            raise BackendError(f"VM {vm.name} is not deployed on vSphere", "deploy the design first")
        wanted = [planner.nic_data(vm, n) for n in vm.vnics if planner.index.kind(n.network) == "portgroup"]
        pairs, _ = match_nics(have, wanted, planner.inv, have.datacenter)
        found = {want["id"]: cur for want, cur in pairs if cur is not None}
        addresses: dict[str, str] = {}
        for nic in vm.vnics:
            guest = found[nic.id].ips[0][0] if nic.id in found and found[nic.id].ips else None
            ip = nic.ip.split("/")[0] if nic.ip else guest
            if ip:
                addresses[nic.id] = ip
        return SshEndpoint(vm.name, addresses, self.settings)

    def pnic_counters(self, design: Topology) -> dict[str, int]:
        """Bytes each design pNIC carried, both ways, read with esxcli over SSH on its ESXi host: exact counts
        right before and after a burst, which the performance manager's 20 s samples cannot give."""
        return self.host_counters.read(design)
