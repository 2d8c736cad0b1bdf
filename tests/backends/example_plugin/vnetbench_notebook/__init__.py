"""A complete third-party vnetbench backend in one file: it "deploys" a design into a JSON notebook.

It shows the whole contract a real plugin implements, without any infrastructure: capabilities, plan as a
diff against what the backend holds, apply with progress and cancellation, teardown of only its own
(marked) objects, status, and endpoints that run probes (here: on this machine). Register it with one
entry point in the plugin's own pyproject.toml::

    [project.entry-points."vnetbench.backends"]
    notebook = "vnetbench_notebook:NotebookBackend"
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from vnetbench.backends import (Backend, BackendError, CancelToken, Capabilities, ChangeResult, DeployState,
                                Endpoint, ObjectState, Op, Plan, PlannedChange, ProgressFn, RunningCommand,
                                Unsupported)
from vnetbench.model import SwitchKind, Topology

MARK = "managed-by-vnetbench"


class NotebookBackend(Backend):
    name = "notebook"
    title = "JSON notebook (example plugin)"
    capabilities = Capabilities(switch_kinds=frozenset({SwitchKind.VSS, SwitchKind.LINUX_BRIDGE}),
                                firewalls=False, bridged_firewalls=False, physical_network=False)

    def _path(self) -> Path:
        if "path" not in self.settings:
            raise BackendError("the notebook backend needs a file", "set path=/some/notebook.json")
        return Path(self.settings["path"])

    def _held(self) -> dict[str, dict]:
        path = self._path()
        return json.loads(path.read_text()) if path.exists() else {}

    def plan(self, design: Topology) -> Plan:
        reasons = self.unsupported(design)
        if reasons:
            raise Unsupported(reasons)
        held = {k: v for k, v in self._held().items() if v.get("mark") == MARK and v["design"] == design.id}
        wanted = {vm.id: {"mark": MARK, "design": design.id, "name": vm.name} for vm in design.vms}
        changes = [PlannedChange(Op.DELETE, "vm", k, f"VM {v['name']}", k) for k, v in held.items()
                   if k not in wanted]
        for key, obj in wanted.items():
            if key not in held:
                changes.append(PlannedChange(Op.CREATE, "vm", key, f"VM {obj['name']}", key, obj))
            elif held[key] != obj:
                changes.append(PlannedChange(Op.UPDATE, "vm", key, f"VM {obj['name']} renamed", key, obj))
        return Plan(self.name, design.id, tuple(changes))

    def apply(self, plan: Plan, progress: ProgressFn | None = None,
              cancel: CancelToken | None = None) -> list[ChangeResult]:
        held, results = self._held(), []
        for i, change in enumerate(plan.changes):
            if cancel:
                cancel.check()
            if change.op is Op.DELETE:
                held.pop(change.key, None)
            else:
                held[change.key] = dict(change.data)
            results.append(ChangeResult(change, True))
            if progress:
                progress(i + 1, len(plan.changes), str(change))
        self._path().write_text(json.dumps(held))
        return results

    def teardown(self, design_id: str | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None) -> list[ChangeResult]:
        held = self._held()
        mine = [k for k, v in held.items() if v.get("mark") == MARK and design_id in (None, v["design"])]
        results = [ChangeResult(PlannedChange(Op.DELETE, "vm", k, f"VM {held.pop(k)['name']}", k), True)
                   for k in mine]
        self._path().write_text(json.dumps(held))
        return results

    def status(self, design: Topology) -> dict[str, ObjectState]:
        held = self._held()
        return {vm.id: ObjectState(DeployState.DEPLOYED if vm.id in held else DeployState.ABSENT)
                for vm in design.vms}

    def endpoint(self, design: Topology, vm_id: str) -> Endpoint:
        if vm_id not in self._held():
            raise BackendError(f"{vm_id} is not deployed", "apply the plan first")
        return LocalProcessEndpoint(vm_id)


class LocalProcessCommand(RunningCommand):
    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self._proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def lines(self) -> Iterator[str]:
        assert self._proc.stdout is not None
        yield from (line.rstrip("\n") for line in self._proc.stdout)

    def wait(self, timeout: float | None = None) -> int:
        try:
            return self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(self.argv[0]) from None

    def stderr(self) -> str:
        return self._proc.stderr.read() if self._proc.stderr else ""

    def terminate(self) -> None:
        self._proc.terminate()
        self._proc.wait()


class LocalProcessEndpoint(Endpoint):
    """Probes run on this machine; a real plugin would reach into the VM (guest tools, SSH, a namespace)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def address(self, vnic_id: str | None = None) -> str:
        return "127.0.0.1"

    def start(self, argv: list[str], cpu: int | None = None) -> RunningCommand:
        return LocalProcessCommand(["taskset", "-c", str(cpu), *argv] if cpu is not None else argv)

    def has_program(self, program: str) -> bool:
        return shutil.which(program) is not None
