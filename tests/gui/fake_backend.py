"""A backend test double that keeps its "deployed" objects in memory, following the contract to the letter.

Every VM and switch of a design becomes one managed object. ``delay`` slows each change so a test can cancel
part way; a VM named in ``fail`` fails to apply; ``refuse`` makes ``plan`` raise ``Unsupported``.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from vnetbench.backends import (Backend, BackendError, CancelToken, Capabilities, ChangeResult, DeployState,
                                Endpoint, ObjectState, Op, Plan, PlannedChange, PluginInfo, ProgressFn,
                                Unsupported)
from vnetbench.model import SwitchKind, Topology


class FakeBackend(Backend):
    name: ClassVar[str] = "fake"
    title: ClassVar[str] = "Fake lab (test double)"
    capabilities: ClassVar[Capabilities] = Capabilities(switch_kinds=frozenset(SwitchKind))
    #: Settings used when the GUI creates the backend without any (subclasses set their own).
    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        super().__init__(settings or self.defaults)
        self.held: dict[str, dict[str, str]] = {}   # key -> {"design": id, "object_id": id, "kind": kind}
        self.delay = float(self.settings.get("delay", 0.0))
        self.fail: set[str] = set(self.settings.get("fail", ()))
        self.refuse: list[str] = list(self.settings.get("refuse", ()))
        self.connected = False
        self.calls: list[str] = []

    def connect(self) -> None:
        self.connected = True

    def _objects(self, design: Topology) -> dict[str, tuple[str, str, str]]:
        objs = {f"fake-{design.id}-sw-{sw.id}": ("switch", sw.id, sw.name) for sw in design.switches}
        objs.update({f"fake-{design.id}-vm-{vm.id}": ("vm", vm.id, vm.name) for vm in design.vms})
        return objs

    def plan(self, design: Topology) -> Plan:
        self.calls.append("plan")
        if self.refuse:
            raise Unsupported(self.refuse)
        wanted = self._objects(design)
        changes = [PlannedChange(Op.CREATE, kind, key, f"create {kind} {name}", object_id)
                   for key, (kind, object_id, name) in wanted.items() if key not in self.held]
        changes += [PlannedChange(Op.DELETE, held["kind"], key, f"delete {held['kind']} {key}", held["object_id"])
                    for key, held in self.held.items() if held["design"] == design.id and key not in wanted]
        return Plan(self.name, design.id, tuple(changes))

    def apply(self, plan: Plan, progress: ProgressFn | None = None,
              cancel: CancelToken | None = None) -> list[ChangeResult]:
        self.calls.append("apply")
        results = []
        for done, change in enumerate(plan.changes):
            if cancel is not None:
                cancel.check()
            if progress is not None:
                progress(done, len(plan.changes), change.description)
            time.sleep(self.delay)
            if change.object_id in self.fail:
                results.append(ChangeResult(change, False, f"no room for {change.object_id}"))
                continue
            if change.op is Op.DELETE:
                self.held.pop(change.key, None)
            else:
                self.held[change.key] = {"design": plan.design_id, "object_id": change.object_id or "",
                                         "kind": change.kind}
            results.append(ChangeResult(change, True))
        if progress is not None:
            progress(len(plan.changes), len(plan.changes), "done")
        return results

    def teardown(self, design_id: str | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None) -> list[ChangeResult]:
        self.calls.append("teardown")
        keys = [k for k, held in self.held.items() if design_id is None or held["design"] == design_id]
        results = []
        for done, key in enumerate(keys):
            if cancel is not None:
                cancel.check()
            if progress is not None:
                progress(done, len(keys), f"removing {key}")
            time.sleep(self.delay)
            held = self.held.pop(key)
            change = PlannedChange(Op.DELETE, held["kind"], key, f"delete {key}", held["object_id"])
            results.append(ChangeResult(change, True))
        return results

    def status(self, design: Topology) -> dict[str, ObjectState]:
        here = {held["object_id"] for held in self.held.values() if held["design"] == design.id}
        return {object_id: ObjectState(DeployState.DEPLOYED if object_id in here else DeployState.ABSENT)
                for _, object_id, _ in self._objects(design).values()}

    def endpoint(self, design: Topology, vm_id: str) -> Endpoint:
        raise BackendError(f"{vm_id} has no endpoint in the fake lab", "use the local lab to measure")


def fake_plugins(backend: type[Backend] = FakeBackend) -> list[PluginInfo]:
    """The fake backend plus a broken plugin, as ``discover()`` would list them."""
    return [PluginInfo("fake", backend=backend, distribution="tests"),
            PluginInfo("broken", exception=ModuleNotFoundError("No module named 'vendor_sdk'", name="vendor_sdk"),
                       distribution="broken-plugin")]
