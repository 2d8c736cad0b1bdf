"""``LocalLabBackend``: the backend contract over network namespaces on this machine.

``plan`` diffs the lab the design needs (``desired``) against the record of what was built (``state``) and
the namespaces the kernel really has; ``apply`` runs the changes in batches (``runner``). Everything is
named ``vnb<tag>-...`` (``names``), which is the "managed by vnetbench" mark ``teardown`` relies on.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vnetbench.backends import (Backend, BackendError, CancelToken, Capabilities, ChangeResult, DeployState,
                                Deployment, ObjectState, Op, Plan, PlannedChange, ProgressFn, Unsupported)
from vnetbench.model import Index, Topology

from .context import Context, RootlessContext, default_state_dir, make_context
from .desired import PHASES, SUPPORTED_SWITCHES, DesiredLab, desired_lab
from .endpoint import LabEndpoint
from .names import NS_PATTERN, design_tag, ns_prefix
from .runner import create_steps, delete_steps, execute, wait_carrier
from .state import LabState


def _phase(kind: str) -> int:
    return PHASES.index(kind)


class LocalLabBackend(Backend):
    """Settings: ``mode`` (auto, root, rootless) and ``state_dir`` (where the records live)."""

    name = "local"
    title = "Local lab (network namespaces)"
    capabilities = Capabilities(switch_kinds=SUPPORTED_SWITCHES, vlan_trunks=True, firewalls=True,
                                bridged_firewalls=True, nsx=True, physical_network=True,
                                import_inventory=False, measure=True, needs_credentials=False)

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        super().__init__(settings)
        self.mode = str(self.settings.get("mode") or os.environ.get("VNETBENCH_LAB_MODE") or "auto")
        self.state_dir = Path(self.settings.get("state_dir") or default_state_dir())
        make_context(self.mode, self.state_dir, "000000")       # a bad mode fails here, not halfway
        self._names: dict[str, str] = {}                          # design id -> name, from plan to apply

    # --- helpers ----------------------------------------------------------------------------------

    def context(self, tag: str) -> Context:
        """The lab of ``tag``: rootless if a holder was recorded for it, else as the mode says."""
        if RootlessContext(self.state_dir, tag).holder_file.exists():
            return RootlessContext(self.state_dir, tag)
        return make_context(self.mode, self.state_dir, tag)

    def _state(self, tag: str) -> LabState:
        return LabState.load(self.state_dir / f"{tag}.json")

    def unsupported(self, design: Topology) -> list[str]:
        return desired_lab(design).reasons

    def desired(self, design: Topology) -> DesiredLab:
        lab = desired_lab(design)
        if lab.reasons:
            raise Unsupported(lab.reasons)
        return lab

    # --- plan ---------------------------------------------------------------------------------------

    def plan(self, design: Topology) -> Plan:
        lab = self.desired(design)
        self._names[design.id] = design.name
        ctx = self.context(lab.tag)
        state = self._state(lab.tag)
        kernel = set(ctx.namespaces(ns_prefix(lab.tag))) if ctx.alive else set()
        recorded, desired = state.resources, lab.resources
        ops: dict[str, tuple[Op, str]] = {}
        for key, rec in recorded.items():
            if key not in desired:
                ops[key] = (Op.DELETE, "no longer in the design")
        for key, res in desired.items():
            rec = recorded.get(key)
            on_kernel = res.kind != "netns" or res.spec["ns"] in kernel
            if rec is None and (key in state.inflight or (res.kind == "netns" and on_kernel)):
                ops[key] = (Op.UPDATE, "left over from an interrupted deploy")     # delete what may exist, rebuild
            elif rec is None:
                ops[key] = (Op.CREATE, "")
            elif key in state.inflight:
                ops[key] = (Op.UPDATE, "an earlier apply did not finish it")
            elif rec["spec"] != res.spec:
                ops[key] = (Op.UPDATE, "changed in the design")
            elif not on_kernel:
                ops[key] = (Op.CREATE, "gone from the kernel")
        grew = True
        while grew:
            grew = False
            for key, res in desired.items():
                if key not in ops:
                    hit = next((d for d in res.deps if d in ops and ops[d][0] is not Op.DELETE), None)
                    if hit:
                        ops[key] = (Op.UPDATE, f"rebuilt with {hit.split('/')[-1]}")
                        grew = True
        known = {r["spec"]["ns"] for r in recorded.values() if r["kind"] == "netns"}
        known |= {r.spec["ns"] for r in desired.values() if r.kind == "netns"}
        changes = []
        for ns in sorted(kernel - known):
            changes.append(PlannedChange(Op.DELETE, "netns", f"netns/{ns}", f"namespace {ns} (left over)",
                                         None, {"spec": {"ns": ns, "forward": False}}))
        for key in sorted((k for k, (op, _) in ops.items() if op is Op.DELETE),
                          key=lambda k: (-_phase(recorded[k]["kind"]), k)):
            rec = recorded[key]
            changes.append(PlannedChange(Op.DELETE, rec["kind"], key, rec["description"], rec.get("object_id"),
                                         {"spec": rec["spec"]}))
        for key, res in desired.items():
            if key in ops:
                op, why = ops[key]
                data: dict[str, Any] = {"spec": res.spec, "label": res.description}
                if op is Op.UPDATE and key in recorded:
                    data["old"] = recorded[key]["spec"]
                changes.append(PlannedChange(op, res.kind, key, res.description + (f": {why}" if why else ""),
                                             res.object_id, data))
        return Plan(self.name, design.id, tuple(changes))

    # --- apply --------------------------------------------------------------------------------------

    def apply(self, plan: Plan, progress: ProgressFn | None = None,
              cancel: CancelToken | None = None) -> list[ChangeResult]:
        if plan.empty:
            return []
        tag = design_tag(plan.design_id)
        ctx = self.context(tag)
        ctx.ensure()
        state = self._state(tag)
        state.design_id = plan.design_id
        state.name = self._names.get(plan.design_id, state.name)
        state.inflight |= {c.key for c in plan.changes}
        state.save()
        steps, skip_ns = [], set()
        for i, ch in enumerate(plan.changes):
            spec, old = ch.data["spec"], ch.data.get("old", ch.data["spec"])
            if ch.op in (Op.DELETE, Op.UPDATE):
                steps += delete_steps(ctx, ch.kind, old, i)
                if ch.kind == "netns":
                    skip_ns.add(old["ns"])
            if ch.op in (Op.CREATE, Op.UPDATE):
                steps += create_steps(ctx, ch.kind, spec, i)
        total = len(plan.changes)
        report = (lambda done, msg: progress(done, total, msg)) if progress else (lambda done, msg: None)
        failed = execute(ctx, steps, total, report, cancel, skip_ns)
        expected: dict[str, set[str]] = {}
        for i, ch in enumerate(plan.changes):
            ends = (ch.data["spec"]["a"], ch.data["spec"]["b"]) if ch.kind == "veth" else ()
            if ch.op is not Op.DELETE and i not in failed and all(e.get("up", True) for e in ends):
                for e in ends:
                    expected.setdefault(e["ns"], set()).add(e["name"])
        if expected:
            report(total, "waiting for the links to carry")
            wait_carrier(ctx, expected)
        left = set(ctx.namespaces(ns_prefix(tag)))
        results = []
        for i, ch in enumerate(plan.changes):
            error = failed.get(i)
            if error is None and ch.kind == "netns" and ch.op is Op.DELETE and ch.data["spec"]["ns"] in left:
                error = "the namespace is still there (a process may hold it)"
            results.append(ChangeResult(ch, error is None, error))
            if error is not None:
                state.failed[ch.key] = error
                state.resources.pop(ch.key, None)
                continue
            state.inflight.discard(ch.key)
            state.failed.pop(ch.key, None)
            if ch.op is Op.DELETE:
                state.resources.pop(ch.key, None)
            else:
                state.resources[ch.key] = {"kind": ch.kind, "spec": ch.data["spec"], "object_id": ch.object_id,
                                           "description": ch.data.get("label", ch.description)}
        state.save()
        return results

    # --- teardown -----------------------------------------------------------------------------------

    def _tags(self) -> set[str]:
        tags = set()
        if self.state_dir.is_dir():
            for f in self.state_dir.iterdir():
                if re.fullmatch(r"[0-9a-f]{6}\.(json|holder)", f.name):
                    tags.add(f.name.split(".")[0])
        if os.geteuid() == 0 and self.mode != "rootless":
            for name in Context(self.state_dir, "").namespaces("vnb"):
                m = NS_PATTERN.match(name)
                if m:
                    tags.add(m.group(1))
        return tags

    def teardown(self, design_id: str | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None) -> list[ChangeResult]:
        tags = [design_tag(design_id)] if design_id else sorted(self._tags())
        results = []
        for n, tag in enumerate(tags):
            if cancel is not None:
                cancel.check()
            ctx = self.context(tag)
            names = ctx.namespaces(ns_prefix(tag)) if ctx.alive else []
            changes = [PlannedChange(Op.DELETE, "netns", f"netns/{ns}", f"namespace {ns}", None,
                                     {"spec": {"ns": ns, "forward": False}}) for ns in names]
            failed: dict[int, str] = {}
            if isinstance(ctx, RootlessContext):
                ctx.destroy()
            elif changes:
                steps = [s for i, c in enumerate(changes) for s in delete_steps(ctx, "netns", c.data["spec"], i)]
                failed = execute(ctx, steps, len(changes), lambda done, msg: None, None, set())
                left = set(ctx.namespaces(ns_prefix(tag)))
                failed.update({i: "the namespace is still there" for i, c in enumerate(changes)
                               if c.data["spec"]["ns"] in left})
            results += [ChangeResult(c, i not in failed, failed.get(i)) for i, c in enumerate(changes)]
            if not failed:
                self._state(tag).remove()
            if progress:
                progress(n + 1, len(tags), f"lab {tag}: {len(changes)} namespaces removed")
        return results

    # --- status and endpoints ------------------------------------------------------------------------

    def status(self, design: Topology) -> dict[str, ObjectState]:
        lab = desired_lab(design)
        ctx = self.context(lab.tag)
        state = self._state(lab.tag)
        kernel = set(ctx.namespaces(ns_prefix(lab.tag))) if ctx.alive else set()
        per_object: dict[str, list[tuple[DeployState, str]]] = {}
        for key, res in lab.resources.items():
            if res.object_id is None:
                continue
            rec = state.resources.get(key)
            if key in state.failed:
                item = (DeployState.FAILED, f"{res.description}: {state.failed[key]}")
            elif rec and rec["spec"] == res.spec and key not in state.inflight and \
                    (res.kind != "netns" or res.spec["ns"] in kernel):
                item = (DeployState.DEPLOYED, "")
            else:
                item = (DeployState.ABSENT, f"{res.description} is not built")
            per_object.setdefault(res.object_id, []).append(item)
        out = {}
        for obj_id, items in per_object.items():
            states = {s for s, _ in items}
            if DeployState.FAILED in states:
                out[obj_id] = ObjectState(DeployState.FAILED,
                                          "; ".join(r for s, r in items if s is DeployState.FAILED))
            elif states == {DeployState.DEPLOYED}:
                out[obj_id] = ObjectState(DeployState.DEPLOYED)
            elif states == {DeployState.ABSENT}:
                out[obj_id] = ObjectState(DeployState.ABSENT)
            else:
                out[obj_id] = ObjectState(DeployState.PENDING,
                                          next(r for s, r in items if s is DeployState.ABSENT))
        return out

    def deployments(self) -> list[Deployment]:
        out = []
        for tag in sorted(self._tags()):
            state, ctx = self._state(tag), self.context(tag)
            names = ctx.namespaces(ns_prefix(tag)) if ctx.alive else []
            detail = f"{ctx.mode}, {len(names)} namespaces" + (f", {len(state.failed)} failed" if state.failed else "")
            if state.inflight - set(state.failed):
                detail += ", interrupted (run up or down again)"
            out.append(Deployment(state.design_id or f"(unknown, tag {tag})", state.name or "", len(state.resources),
                                  detail))
        return out

    def endpoint(self, design: Topology, vm_id: str) -> LabEndpoint:
        lab = desired_lab(design)
        try:
            obj = Index(design).endpoint(vm_id)
        except LookupError as exc:
            raise BackendError(str(exc), "name a VM or physical host of the design") from None
        info = lab.endpoints.get(obj.id)
        ctx = self.context(lab.tag)
        if info is None or not ctx.alive or info.ns not in ctx.namespaces(info.ns):
            raise BackendError(f"{obj.name} is not deployed in the local lab", "run `vnetbench lab up FILE` first")
        return LabEndpoint(ctx, obj.name, info.ns, info.addresses)
