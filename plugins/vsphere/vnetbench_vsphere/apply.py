"""Carry out a plan against vSphere: stage by stage, tasks of a stage submitted together.

Each change is re-resolved against a fresh inventory snapshot when its stage starts (objects created by
earlier stages have MoRefs by then), and a change whose prerequisite failed is not sent at all. What a change
updates or deletes is found by its managed object id and must still carry the mark it had at planning
(standard switches and portgroups: still be in the ledger, where they were created); anything else is left
alone. vNICs are only ever sent bound to a network that exists now: vcsim crashes on a vNIC bound to a missing
network and vCenter refuses it, so that check happens here, before the call.

When the server goes away, or shows another certificate than the pinned one, the run stops and every change
not finished is reported ``lost``; the next apply settles them.

A stage sends at most ``IN_FLIGHT`` changes before waiting for them, so a cancel (Ctrl-C) stops what is not
sent yet: the changes in flight end on the server and are reported as they ended, the others are reported
``cancelled`` (never sent). Sending all of a stage at once would leave nothing to cancel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pyVmomi import vim, vmodl
from vnetbench.backends.contract import (CONFIRM_CONNECTIVITY, BackendError, CancelToken, ChangeResult, Op,
                                        PlannedChange, ProgressFn)
from vnetbench.model import NicType

from . import marking
from .connection import Connection, session_failure
from .inventory import ADAPTERS, Inventory, read_inventory
from .ledger import Entry, Ledger
from .planner import ORDER, nic_edits, nic_keys
from .tasks import TaskWaiter, fault_text
from .lacp import lag_ports, lag_specs, read_lags
from .pvlan import pvlan_changes, pvlan_spec, read_pvlans
from .teaming import dvs_teaming, host_teaming

log = logging.getLogger("vnetbench.vsphere")

DVS = vim.dvs.VmwareDistributedVirtualSwitch

#: What a started change hands back: a task to wait for (or None when the call was synchronous) and what
#: to do with its result (which may start a follow-up task).
Then = Callable[[Any], Any] | None
Report = Callable[..., None]

#: Changes of a stage sent before waiting for them: enough for vCenter to work in parallel, few enough that a
#: cancel still has something to stop.
IN_FLIGHT = 8
NOT_SENT = "cancelled: not sent"


# --- specs ----------------------------------------------------------------------------------------------


def _host_security(sec: dict[str, bool]) -> Any:
    return vim.host.NetworkPolicy.SecurityPolicy(allowPromiscuous=sec["promiscuous"], macChanges=sec["mac_changes"],
                                                 forgedTransmits=sec["forged_transmits"])


def vswitch_spec(d: dict[str, Any]) -> Any:
    pnics = d["active"] + d["standby"]
    spec = vim.host.VirtualSwitch.Specification(numPorts=128, mtu=d["mtu"])
    if pnics:
        spec.bridge = vim.host.VirtualSwitch.BondBridge(nicDevice=pnics)
        spec.policy = vim.host.NetworkPolicy(nicTeaming=host_teaming(d["active"], d["standby"], d.get("teaming")))
    return spec


def portgroup_spec(d: dict[str, Any]) -> Any:
    return vim.host.PortGroup.Specification(
        name=d["name"], vlanId=d["vlan"], vswitchName=d["vswitch"],
        policy=vim.host.NetworkPolicy(security=_host_security(d["security"]),
                                      nicTeaming=host_teaming(d["active"], d["standby"], d.get("teaming"))))


def dvportgroup_spec(d: dict[str, Any], design_id: str, config_version: str | None = None) -> Any:
    if d.get("pvlan") is not None:
        vlan = pvlan_spec(d["pvlan"])
    elif d["vlan"] == "trunk":
        vlan = DVS.TrunkVlanSpec(inherited=False, vlanId=[vim.NumericRange(start=lo, end=hi) for lo, hi in d["ranges"]])
    else:
        vlan = DVS.VlanIdSpec(inherited=False, vlanId=int(d["vlan"]))
    sec = d["security"]
    security = DVS.SecurityPolicy(inherited=False,
                                  allowPromiscuous=vim.BoolPolicy(inherited=False, value=sec["promiscuous"]),
                                  macChanges=vim.BoolPolicy(inherited=False, value=sec["mac_changes"]),
                                  forgedTransmits=vim.BoolPolicy(inherited=False, value=sec["forged_transmits"]))
    return vim.dvs.DistributedVirtualPortgroup.ConfigSpec(
        name=d["name"], type="earlyBinding", numPorts=8, autoExpand=True, configVersion=config_version,
        description=marking.description(design_id),
        defaultPortConfig=DVS.VmwarePortConfigPolicy(vlan=vlan, securityPolicy=security,
                                                     uplinkTeamingPolicy=dvs_teaming(d.get("teaming"), d.get("order"))))


def _dvs_ports(d: dict[str, Any]) -> Any:
    """A distributed switch's default port policy: its teaming policy and its LAG, when the design sets them."""
    team = dvs_teaming(d.get("teaming"), d.get("order"))
    return DVS.VmwarePortConfigPolicy(uplinkTeamingPolicy=team) if team is not None else None


def pnic_backing(pnics: list[str], ports: dict[str, str], lag_pnics: set[str]) -> Any:
    """A member host's pNICs on the switch: those in a LAG on their LAG's port (left out while the LAG does not
    exist yet), the others on the standalone uplinks in order."""
    return vim.dvs.HostMember.PnicBacking(pnicSpec=[
        vim.dvs.HostMember.PnicSpec(pnicDevice=p, uplinkPortKey=ports.get(p)) for p in pnics
        if p not in lag_pnics or p in ports])


def _sriov(d: dict[str, Any]) -> bool:
    """ESXi starts a VM with an SR-IOV adapter only with all its memory reserved."""
    return any(n.get("pf") for n in d["nics"])


class Applier:
    def __init__(self, conn: Connection, settings: dict[str, Any], design_id: str | None, ledger: Ledger) -> None:
        self.conn, self.settings, self.design_id, self.ledger = conn, settings, design_id, ledger
        self.inv: Inventory | None = None
        self._temp_key = -100
        self._field_key: int | None = None
        self._touched: dict[str, dict[str, Any]] = {}  # VM moid -> plan data of an edit that added devices
        self._note: Callable[[str], None] = lambda message: None

    # --- the run ---------------------------------------------------------------------------------------

    def run(self, changes: tuple[PlannedChange, ...], progress: ProgressFn | None = None,
            cancel: CancelToken | None = None) -> list[ChangeResult]:
        results: dict[int, ChangeResult] = {}
        failed: dict[str, str] = {}  # key -> what the user calls it (the design's object, not vSphere's name)
        total = len(changes)
        position = {id(c): i for i, c in enumerate(changes)}

        def report(change: PlannedChange, error: str | None, lost: bool = False) -> None:
            results[position[id(change)]] = ChangeResult(change, error is None, error, lost)
            if error is not None:
                failed[change.key] = str(change.data.get("label") or change.key)
                log.warning("%s %s failed: %s", change.op.value, change.description, error)
            if progress:
                progress(len(results), total, f"{'done' if error is None else 'FAILED'}: {change}")

        def note(message: str) -> None:
            if progress:
                progress(len(results), total, message)

        self._note = note
        waiter = None
        try:
            if changes:
                self.conn.ensure_session()
                waiter = self.conn.call(lambda: TaskWaiter(self.conn.content))
            for stage in ORDER:
                batch = [c for c in changes if (c.op, c.kind) == stage]
                if not batch:
                    continue
                if cancel is not None and cancel.cancelled:
                    break
                self.inv = self.conn.call(lambda: read_inventory(self.conn.content))
                self._run_stage(batch, failed, report, waiter, cancel)
                if stage[1] == "vm" and stage[0] is not Op.DELETE:
                    self._record_nic_keys(waiter)
        except BackendError as exc:  # ConnectionLost or CertificateChanged, from conn.call or the stage
            for c in changes:
                if position[id(c)] not in results:
                    report(c, f"not finished: {exc}", lost=True)
        finally:
            if waiter is not None and self.conn.si is not None:
                try:
                    waiter.close()
                except Exception:  # noqa: BLE001 - a dead connection cannot destroy anything
                    log.debug("closing the task waiter failed", exc_info=True)
        for c in changes:
            if position[id(c)] not in results:
                results[position[id(c)]] = ChangeResult(c, False, NOT_SENT, cancelled=True)
        return [results[i] for i in range(total)]

    def _lost(self, exc: Exception) -> Exception:
        """What a failure in the middle of a run means: the server lost or untrusted (a ``BackendError`` that
        ends the run), or else the failure itself."""
        return session_failure(self.conn.server, exc, self.conn.pinned) or exc

    def _run_stage(self, batch: list[PlannedChange], failed: dict[str, str], report: Report, waiter: Any,
                   cancel: CancelToken | None) -> None:
        """Send the stage's changes ``IN_FLIGHT`` at a time, waiting for each group before the next; a cancel
        stops the sending, and what is in flight is waited for."""
        pending = list(batch)
        while pending:
            running: dict[str, tuple[Any, PlannedChange, Then]] = {}
            while pending and len(running) < IN_FLIGHT:
                if cancel is not None and cancel.cancelled:
                    break
                self._send(pending.pop(0), failed, report, running)
            if cancel is not None and cancel.cancelled and running:
                self._note(f"cancelled: waiting for the {len(running)} changes already sent to end; "
                           f"{len(pending)} of this stage not sent")
            self._wait(running, report, waiter, cancel)
            if cancel is not None and cancel.cancelled:
                return  # what is left is reported as not sent

    def _send(self, change: PlannedChange, failed: dict[str, str], report: Report,
              running: dict[str, tuple[Any, PlannedChange, Then]]) -> None:
        blocked = [k for k in change.data.get("needs", ()) if k in failed]
        if blocked:
            report(change, f"not tried: {failed[blocked[0]]} failed")
            return
        try:
            task, then = self._start(change)
        except BackendError as exc:
            report(change, exc.message)
            return
        except vmodl.MethodFault as exc:
            report(change, fault_text(exc))
            return
        except Exception as exc:  # noqa: BLE001 - sorted: a lost or untrusted server ends the run
            lost = self._lost(exc)
            if lost is not exc:
                report(change, f"outcome unknown: {lost}", lost=True)
            raise lost from None
        if task is None:
            report(change, None)
        else:
            running[task._moId] = (task, change, then)

    def _wait(self, running: dict[str, tuple[Any, PlannedChange, Then]], report: Report, waiter: Any,
              cancel: CancelToken | None) -> None:
        """Wait for a stage's tasks; a finished task may start a follow-up, waited for in the next round."""
        while running:
            follow: dict[str, tuple[Any, PlannedChange, Then]] = {}

            def done(task: Any, error: Any, result: Any, running: dict = running, follow: dict = follow) -> None:
                _, change, then = running[task._moId]
                if error is not None:
                    report(change, fault_text(error))
                    return
                try:
                    nxt = then(result) if then else None
                except vmodl.MethodFault as exc:
                    report(change, fault_text(exc))
                    return
                except BackendError as exc:
                    report(change, exc.message)
                    return
                if isinstance(nxt, tuple):
                    follow[nxt[0]._moId] = (nxt[0], change, nxt[1])
                else:
                    report(change, None)

            try:
                waiter.wait([task for task, _, _ in running.values()], done, cancel)
            except Exception as exc:  # noqa: BLE001 - only a lost connection is expected here
                raise self._lost(exc) from None
            running = follow

    def _record_nic_keys(self, waiter: Any) -> None:
        """Remember which new device is which designed vNIC on VMs whose edit added devices (their keys exist only
        now), so the next plan matches them by identity even after vSphere reorders the devices. (An edit of
        existing devices records the keys in its own spec; a new VM needs none: its devices are in design order.)"""
        if not self._touched:
            return
        self.inv = self.conn.call(lambda: read_inventory(self.conn.content))
        tasks = {}
        for moid, d in self._touched.items():
            vm = self.inv.by_moid(moid)
            if vm is None or vm.managed != self.design_id:
                continue
            keys = nic_keys(vm, d["nics"], self.inv, d["datacenter"])
            if keys != vm.nic_keys:
                option = vim.option.OptionValue(key=marking.NIC_KEYS, value=marking.nic_keys_value(keys))
                task = self.conn.call(lambda vm=vm, option=option: vm.ref.ReconfigVM_Task(
                    vim.vm.ConfigSpec(extraConfig=[option])))
                tasks[task._moId] = (task, vm.name)
        self._touched.clear()

        def done(task: Any, error: Any, _: Any) -> None:
            if error is not None:  # the next plan falls back to adapter + network matching
                log.warning("could not record the vNIC keys of VM %s: %s", tasks[task._moId][1], fault_text(error))

        try:
            waiter.wait([t for t, _ in tasks.values()], done)
        except Exception as exc:  # noqa: BLE001 - only a lost connection is expected here
            raise self._lost(exc) from None

    # --- one change -------------------------------------------------------------------------------------

    def _start(self, change: PlannedChange) -> tuple[Any, Then]:
        if change.data.get("conflict"):
            raise BackendError(str(change.data["conflict"]))
        if change.connectivity and not self.settings.get(CONFIRM_CONNECTIVITY):
            raise BackendError(f"not sent: it affects host connectivity ({change.connectivity}); confirm such "
                               "changes separately (deploy --confirm-connectivity, or yes when asked)")
        handler = getattr(self, f"_{change.op.value}_{change.kind}")
        return handler(dict(change.data))

    def _host(self, name: str) -> Any:
        assert self.inv is not None
        host = self.inv.host(name)
        if host is None:
            raise BackendError(f"host {name} is no longer in the inventory")
        return host

    def _dc(self, name: str) -> Any:
        assert self.inv is not None
        dc = self.inv.datacenter(name)
        if dc is None:
            raise BackendError(f"datacenter {name} is no longer in the inventory")
        return dc

    def _owned(self, d: dict[str, Any]) -> Any:
        """The object a change updates or deletes, by its id, if it still carries the mark it was planned with;
        None when it is gone."""
        assert self.inv is not None
        obj = self.inv.by_moid(d["moid"])
        if obj is not None and obj.managed != d["owner"]:
            raise BackendError(f"{d['name']} no longer carries vnetbench's mark for {d['owner']}; left alone")
        return obj

    # --- standard switches and portgroups: the ledger says which are vnetbench's ----------------------------

    def _created(self, entry: Entry, call: Callable[[], Any]) -> tuple[Any, Then]:
        """Write ``entry`` to the ledger, then create it; a refused call takes the entry back out."""
        assert self.design_id is not None
        self.ledger.add(self.design_id, entry)
        try:
            call()
        except vmodl.MethodFault:
            self.ledger.remove(entry)
            raise
        return None, None

    def _removed(self, entry: Entry, call: Callable[[], Any]) -> tuple[Any, Then]:
        """Remove what the ledger names, if it still looks as created, and take it out of the ledger."""
        host = self._host(entry.host)
        if self.ledger.owner(entry) is None:
            raise BackendError(f"{entry.name} on {entry.host} is not in vnetbench's ledger; left alone")
        current = host.portgroup(entry.name) if entry.vswitch else host.vswitch(entry.name)
        if current is not None and entry.vswitch and current.vswitch != entry.vswitch:
            raise BackendError(f"portgroup {entry.name} on {entry.host} is no longer on {entry.vswitch}; left alone")
        if current is not None:
            try:
                call()
            except vim.fault.NotFound:
                pass
        self.ledger.remove(entry)
        return None, None

    def _create_vswitch(self, d: dict[str, Any]) -> tuple[Any, Then]:
        ns = self._host(d["host"]).network_system
        return self._created(Entry(d["host"], d["name"]),
                             lambda: ns.AddVirtualSwitch(vswitchName=d["name"], spec=vswitch_spec(d)))

    def _update_vswitch(self, d: dict[str, Any]) -> tuple[Any, Then]:
        self._host(d["host"]).network_system.UpdateVirtualSwitch(vswitchName=d["name"], spec=vswitch_spec(d))
        return None, None

    def _delete_vswitch(self, d: dict[str, Any]) -> tuple[Any, Then]:
        ns = self._host(d["host"]).network_system
        return self._removed(Entry(d["host"], d["name"]), lambda: ns.RemoveVirtualSwitch(vswitchName=d["name"]))

    def _create_portgroup(self, d: dict[str, Any]) -> tuple[Any, Then]:
        ns = self._host(d["host"]).network_system
        return self._created(Entry(d["host"], d["name"], d["vswitch"]),
                             lambda: ns.AddPortGroup(portgrp=portgroup_spec(d)))

    def _update_portgroup(self, d: dict[str, Any]) -> tuple[Any, Then]:
        ns = self._host(d["host"]).network_system
        if d["was"] == d["vswitch"]:
            ns.UpdatePortGroup(pgName=d["name"], portgrp=portgroup_spec(d))
            return None, None
        self._created(Entry(d["host"], d["name"], d["vswitch"]),
                      lambda: ns.UpdatePortGroup(pgName=d["name"], portgrp=portgroup_spec(d)))
        self.ledger.remove(Entry(d["host"], d["name"], d["was"]))
        return None, None

    def _delete_portgroup(self, d: dict[str, Any]) -> tuple[Any, Then]:
        ns = self._host(d["host"]).network_system
        return self._removed(Entry(d["host"], d["name"], d["vswitch"]), lambda: ns.RemovePortGroup(pgName=d["name"]))

    # --- distributed switches and portgroups: marked in their description -----------------------------------

    def _create_dvswitch(self, d: dict[str, Any]) -> tuple[Any, Then]:
        assert self.design_id is not None
        names = vim.DistributedVirtualSwitch.NameArrayUplinkPortPolicy(uplinkPortName=d["uplinks"]) \
            if d.get("uplinks") else None
        spec = vim.DistributedVirtualSwitch.CreateSpec(configSpec=DVS.ConfigSpec(
            name=d["name"], description=marking.description(self.design_id), maxMtu=d["mtu"],
            defaultPortConfig=_dvs_ports(d), pvlanConfigSpec=pvlan_changes(d.get("pvlans", []), []) or None,
            uplinkPortPolicy=names, lacpApiVersion=d.get("lacp")))
        task = self._dc(d["datacenter"]).network_folder.CreateDVS_Task(spec)

        def add_members(dvs: Any) -> Any:
            if not d["add"]:
                return None
            return self._reconfigure_dvs(dvs, d), None

        return task, add_members

    def _update_dvswitch(self, d: dict[str, Any]) -> tuple[Any, Then]:
        dvs = self._owned(d)
        if dvs is None:
            raise BackendError(f"distributed switch {d['name']} is gone")
        return self._reconfigure_dvs(dvs.ref, d), None

    def _reconfigure_dvs(self, dvs_ref: Any, d: dict[str, Any]) -> Any:
        assert self.inv is not None
        members = []
        lags = read_lags(getattr(dvs_ref.config, "lacpGroupConfig", None))
        for op in ("add", "edit"):   # edit: a member's uplink pNICs
            for host_name, pnics in d.get(op, {}).items():
                by_lag = d.get("lag_pnics", {}).get(host_name, {})
                backing = pnic_backing(pnics, lag_ports(by_lag, lags), {p for ps in by_lag.values() for p in ps})
                members.append(vim.dvs.HostMember.ConfigSpec(operation=op, host=self._host(host_name).ref,
                                                             backing=backing))
        for host_name in d["remove"]:
            members.append(vim.dvs.HostMember.ConfigSpec(operation="remove", host=self._host(host_name).ref))
        config = dvs_ref.config
        held = read_pvlans(getattr(config, "pvlanConfig", None))
        names = list(getattr(getattr(config, "uplinkPortPolicy", None), "uplinkPortName", None) or [])
        more = [n for n in d.get("uplinks", []) if n not in names]
        return dvs_ref.ReconfigureDvs_Task(DVS.ConfigSpec(
            configVersion=config.configVersion, host=members, maxMtu=d["mtu"], defaultPortConfig=_dvs_ports(d),
            pvlanConfigSpec=pvlan_changes(d["pvlans"], held) if "pvlans" in d else None,
            uplinkPortPolicy=vim.DistributedVirtualSwitch.NameArrayUplinkPortPolicy(uplinkPortName=names + more)
            if more else None,
            lacpApiVersion=d.get("lacp") if d.get("lacp") != getattr(config, "lacpApiVersion", None) else None))

    def _update_lacp(self, d: dict[str, Any]) -> tuple[Any, Then]:
        """The switch's LAGs (``UpdateDVSLacpGroupConfig``), then its members' pNICs on the LAGs' ports (their
        keys exist only once the LAGs do; where vCenter reports the members' pNICs) and its ports' order naming
        a LAG (``order``), in one reconfigure."""
        assert self.inv is not None
        dvs = self.inv.dvs(d["name"], d["datacenter"])
        if dvs is None or dvs.managed != self.design_id:
            raise BackendError(f"distributed switch {d['name']} is gone or not vnetbench's; its LAGs were not sent")

        def place(_: Any) -> Any:
            config = dvs.ref.config
            lags = read_lags(getattr(config, "lacpGroupConfig", None))
            edits = []
            for host_name, by_lag in d["lag_pnics"].items():
                if config.host and any(by_lag.values()):   # (vcsim reports no member pNICs to place)
                    backing = pnic_backing(d["members"][host_name], lag_ports(by_lag, lags),
                                           {p for ps in by_lag.values() for p in ps})
                    edits.append(vim.dvs.HostMember.ConfigSpec(operation="edit", host=self._host(host_name).ref,
                                                               backing=backing))
            ports = _dvs_ports(d) if d.get("order") else None
            if not edits and ports is None:
                return None
            return dvs.ref.ReconfigureDvs_Task(DVS.ConfigSpec(configVersion=config.configVersion, host=edits or None,
                                                              defaultPortConfig=ports)), None

        specs = lag_specs(d["lags"], dvs.lags)
        if not specs:
            return place(None) or (None, None)
        vds = dvs.ref if isinstance(dvs.ref, DVS) else DVS(dvs.ref._moId, dvs.ref._stub)   # vcsim: the base type
        return vds.UpdateDVSLacpGroupConfig_Task(lacpGroupSpec=specs), place

    def _create_dvportgroup(self, d: dict[str, Any]) -> tuple[Any, Then]:
        assert self.inv is not None and self.design_id is not None
        dvs = self.inv.dvs(d["dvs"], d["datacenter"])
        if dvs is None:
            raise BackendError(f"distributed switch {d['dvs']} does not exist")
        if dvs.managed != self.design_id:
            raise BackendError(f"distributed switch {d['dvs']} exists but was not created by vnetbench for this "
                               "design", "rename the switch in the design")
        return dvs.ref.AddDVPortgroup_Task([dvportgroup_spec(d, self.design_id)]), None

    def _update_dvportgroup(self, d: dict[str, Any]) -> tuple[Any, Then]:
        assert self.design_id is not None
        pg = self._owned(d)
        if pg is None:
            raise BackendError(f"distributed portgroup {d['name']} is gone")
        return pg.ref.ReconfigureDVPortgroup_Task(dvportgroup_spec(d, self.design_id, pg.config_version)), None

    def _delete_dvportgroup(self, d: dict[str, Any]) -> tuple[Any, Then]:
        pg = self._owned(d)
        return (pg.ref.Destroy_Task(), None) if pg is not None else (None, None)

    def _delete_dvswitch(self, d: dict[str, Any]) -> tuple[Any, Then]:
        dvs = self._owned(d)
        return (dvs.ref.Destroy_Task(), None) if dvs is not None else (None, None)

    # --- VMs ----------------------------------------------------------------------------------------

    def _next_key(self) -> int:
        self._temp_key -= 1
        return self._temp_key

    def _nic_device(self, want: dict[str, Any], host: Any, dc: str, device: Any = None) -> Any:
        """A vNIC bound to a network that exists now; ``BackendError`` (nothing sent) otherwise."""
        assert self.inv is not None
        if want["kind"] == "standard":
            network = self.inv.networks.get(f"{dc}/{want['network']}")
            if network is None or host.portgroup(want["network"]) is None:
                raise BackendError(f"portgroup {want['network']} does not exist on {host.name}; "
                                   "the vNIC was not sent")
            backing = vim.vm.device.VirtualEthernetCard.NetworkBackingInfo(deviceName=want["network"], network=network)
        else:
            pg = self.inv.dvpg(want["network"], dc)
            dvs = self.inv.dvs(want["dvs"], dc)
            if pg is None or dvs is None:
                raise BackendError(f"distributed portgroup {want['network']} does not exist; the vNIC was not sent")
            backing = vim.vm.device.VirtualEthernetCard.DistributedVirtualPortBackingInfo(
                port=vim.dvs.PortConnection(switchUuid=dvs.uuid, portgroupKey=pg.key))
        if device is None:
            device = ADAPTERS[NicType(want["type"])](key=self._next_key())
        device.backing = backing
        if want.get("pf"):  # a virtual function of that pNIC; the portgroup gives it its VLAN
            device.sriovBacking = vim.vm.device.VirtualSriovEthernetCard.SriovBackingInfo(
                physicalFunctionBacking=vim.vm.device.VirtualPCIPassthrough.DeviceBackingInfo(
                    id=want["pf"], deviceName=want["pf"]))
        if want["mac"]:
            device.addressType, device.macAddress = "manual", want["mac"]
        elif device.addressType is None:
            device.addressType = "generated"
        device.connectable = vim.vm.device.VirtualDevice.ConnectInfo(
            startConnected=want["connected"], allowGuestControl=True)
        return device

    def _nic_changes(self, d: dict[str, Any], host: Any, have: Any) -> tuple[list[Any], list[Any]]:
        """The device changes that make ``have``'s vNICs the design's, and the extraConfig that records which
        device is which designed vNIC (empty when devices are added: their keys are known only afterwards)."""
        assert self.inv is not None
        Spec = vim.vm.device.VirtualDeviceSpec
        out = []
        edits = nic_edits(have, d["nics"], self.inv, d["datacenter"])
        for edit in edits:
            if edit.action in ("remove", "replace"):
                out.append(Spec(operation="remove", device=edit.have.device))
            if edit.action in ("add", "replace"):
                out.append(Spec(operation="add", device=self._nic_device(edit.want, host, d["datacenter"])))
            if edit.action == "edit":
                out.append(Spec(operation="edit", device=self._nic_device(edit.want, host, d["datacenter"],
                                                                          edit.have.device)))
        if any(edit.action in ("add", "replace") for edit in edits):
            self._touched[have.moid] = d
            return out, []
        keys = nic_keys(have, d["nics"], self.inv, d["datacenter"])
        if not out or keys == have.nic_keys:
            return out, []
        return out, [vim.option.OptionValue(key=marking.NIC_KEYS, value=marking.nic_keys_value(keys))]

    def _marker(self) -> list[Any]:
        assert self.design_id is not None
        return [vim.option.OptionValue(key=marking.EXTRA_CONFIG_KEY, value=self.design_id)]

    def _mark(self, vm: Any) -> None:
        """The custom attribute admins see; vCenter only (a standalone ESXi has no custom fields)."""
        fields = self.conn.content.customFieldsManager
        if fields is None or self.design_id is None:
            return
        if self._field_key is None:
            self._field_key = self._managed_field(fields)
        fields.SetField(entity=vm, key=self._field_key, value=self.design_id)

    @staticmethod
    def _managed_field(fields: Any) -> int:
        key = next((f.key for f in fields.field or [] if f.name == marking.MANAGED_FIELD), None)
        if key is not None:
            return key
        try:
            return fields.AddCustomFieldDef(name=marking.MANAGED_FIELD, moType=vim.VirtualMachine).key
        except vim.fault.DuplicateName:  # another client added it just now
            return next(f.key for f in fields.field if f.name == marking.MANAGED_FIELD)

    def _create_vm(self, d: dict[str, Any]) -> tuple[Any, Then]:
        assert self.inv is not None
        host = self._host(d["host"])
        dc = self._dc(d["datacenter"])
        if self.inv.vm(d["name"], d["datacenter"]) is not None:
            raise BackendError(f"conflict: a VM named {d['name']} appeared in {d['datacenter']} since the plan; "
                               "nothing was created")
        Spec = vim.vm.device.VirtualDeviceSpec
        nics = [Spec(operation="add", device=self._nic_device(n, host, d["datacenter"])) for n in d["nics"]]
        template_name = self.settings.get("template")

        def marked(vm: Any) -> None:
            self._mark(vm)

        if template_name:
            template = self.inv.vm(str(template_name), d["datacenter"])
            if template is None:
                raise BackendError(f"template {template_name} is not in datacenter {d['datacenter']}",
                                   "check the template setting")
            old = [Spec(operation="remove", device=n.device) for n in template.nics]
            config = vim.vm.ConfigSpec(numCPUs=d["cpus"], deviceChange=old + nics, extraConfig=self._marker(),
                                       memoryReservationLockedToMax=_sriov(d) or None)
            spec = vim.vm.CloneSpec(location=vim.vm.RelocateSpec(host=host.ref, pool=host.resource_pool),
                                    powerOn=False, template=False, config=config)
            return template.ref.CloneVM_Task(folder=dc.vm_folder, name=d["name"], spec=spec), marked
        config = vim.vm.ConfigSpec(name=d["name"], guestId=d["guest_id"], numCPUs=d["cpus"],
                                   memoryMB=int(self.settings.get("memory_mb", 512)), version=d["version"],
                                   files=vim.vm.FileInfo(vmPathName=f"[{self._datastore(host)}]"),
                                   deviceChange=nics, extraConfig=self._marker(),
                                   memoryReservationLockedToMax=_sriov(d) or None)
        return dc.vm_folder.CreateVM_Task(config=config, pool=host.resource_pool, host=host.ref), marked

    def _datastore(self, host: Any) -> str:
        assert self.inv is not None
        wanted = self.settings.get("datastore")
        names = [self.inv.datastores.get(ds._moId, "") for ds in host.datastores]
        if wanted:
            if wanted not in names:
                raise BackendError(f"datastore {wanted} is not on host {host.name}", "check the datastore setting")
            return str(wanted)
        if not names:
            raise BackendError(f"host {host.name} has no datastore", "give one with the datastore setting")
        return names[0]

    def _update_vm(self, d: dict[str, Any]) -> tuple[Any, Then]:
        have = self._owned(d)
        if have is None:
            raise BackendError(f"VM {d['name']} is gone")
        host = self._host(d["host"])
        changes, keys = self._nic_changes(d, host, have)
        if have.custom_marker != self.design_id:
            self._mark(have.ref)
        move = have.host != host.moid

        def relocate(_: Any) -> Any:
            if not move:
                return None
            return have.ref.RelocateVM_Task(vim.vm.RelocateSpec(host=host.ref, pool=host.resource_pool)), None

        if changes or have.cpus != d["cpus"]:
            spec = vim.vm.ConfigSpec(numCPUs=d["cpus"], deviceChange=changes, extraConfig=keys,
                                     memoryReservationLockedToMax=_sriov(d) or None)
            return have.ref.ReconfigVM_Task(spec), relocate
        if move:
            return relocate(None)
        return None, None

    def _delete_vm(self, d: dict[str, Any]) -> tuple[Any, Then]:
        have = self._owned(d)
        if have is None:
            return None, None
        if have.power == "poweredOn":
            return have.ref.PowerOffVM_Task(), lambda _: (have.ref.Destroy_Task(), None)
        return have.ref.Destroy_Task(), None
