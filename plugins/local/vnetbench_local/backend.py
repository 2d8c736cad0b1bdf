"""``LocalLabBackend``: the backend contract over network namespaces on this machine.

``plan`` diffs the lab the design needs (``desired``) against the record of what was built (``state``) and
the namespaces the kernel really has; ``apply`` runs the changes in batches (``runner``). Everything is
named ``vnb<tag>-...`` (``names``), but a name is not ownership: anyone may create a namespace so named.
A namespace is this lab's only when the lab's record (its ledger) lists it as made, it is still the same
namespace (identity), it carries the lab's mark, and it is not the host's own namespace. Only then is it
deleted, and only then are processes in it stopped; anything else named like ours is left alone and said so.
One apply or teardown of a design runs at a time (a lock file per design).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from vnetbench.backends import (Backend, BackendError, CancelToken, ChangeResult, DeployState,
                                Deployment, ObjectState, Op, Plan, PlannedChange, ProgressFn, Unsupported)
from vnetbench.backends.locking import Busy, LockFile
from vnetbench.backends.manifest import Manifest
from vnetbench.backends.planning import design_tag, digest, rebuild_dependents
from vnetbench.model import Index, Topology
from vnetbench.model.fileformat import to_data
from vnetbench.model.validate import reference_errors

from .counters import read_pnic_counters
from .context import Context, NsId, RootlessContext, default_state_dir, make_context, prepare_state_dir
from .desired import PHASES, DesiredLab, desired_lab
from .endpoint import LabEndpoint
from .neighbours import forget_neighbours, neighbour_room
from .names import NS_PATTERN, PREFIX, marker, ns_prefix
from .runner import create_steps, delete_steps, execute, missing, wait_carrier
from .state import MADE, PENDING, LabState


#: How long an apply or teardown waits for another one of the same design before saying it is running.
LOCK_WAIT_S = 3.0


def _phase(kind: str) -> int:
    return PHASES.index(kind)


def namespaces_of(kind: str, spec: Mapping[str, Any]) -> list[str]:
    """The namespaces a resource lives in (a veth joins two)."""
    return [spec["a"]["ns"], spec["b"]["ns"]] if kind == "veth" else [spec["ns"]]


#: name, title, capabilities and settings, from the manifest that discovery reads without importing this
MANIFEST = Manifest.of(__file__)


class LocalLabBackend(Backend):
    """Settings: ``mode`` (auto, root, rootless) and ``state_dir`` (where the records live)."""

    name = MANIFEST.name
    title = MANIFEST.title
    capabilities = MANIFEST.capabilities
    probe_capabilities = MANIFEST.probes

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        super().__init__(settings)
        self.mode = str(self.settings.get("mode") or os.environ.get("VNETBENCH_LAB_MODE") or "auto")
        self.state_dir = Path(self.settings.get("state_dir") or default_state_dir())
        make_context(self.mode, self.state_dir, "000000")       # a bad mode fails here, not halfway
        self._names: dict[str, str] = {}                          # design id -> name, from plan to apply
        self._planned: dict[str, int] = {}                        # tag -> record generation the plan saw
        self._last_lab: tuple[str, DesiredLab] | None = None       # (what the design says, its lab)

    def deployment(self, design_id: str) -> str:
        """A lab is its record folder and the design: another ``VNETBENCH_LAB_DIR`` holds another lab."""
        return f"{self.name} {self.state_dir.resolve()} {design_id}"

    # --- helpers ----------------------------------------------------------------------------------

    def context(self, tag: str) -> Context:
        """The lab of ``tag``: rootless if a holder was recorded for it, else as the mode says."""
        if RootlessContext(self.state_dir, tag).holder_file.exists():
            return RootlessContext(self.state_dir, tag)
        return make_context(self.mode, self.state_dir, tag)

    def _state(self, tag: str) -> LabState:
        return LabState.load(self.state_dir / f"{tag}.json")

    @contextmanager
    def _locked(self, tag: str) -> Iterator[None]:
        """Hold the design's lock: one apply or teardown of a lab at a time."""
        prepare_state_dir(self.state_dir)
        try:
            with LockFile(self.state_dir / f"{tag}.lock", wait=LOCK_WAIT_S):
                yield
        except Busy as busy:
            raise BackendError(f"another `lab up` or `lab down` of this design is running (pid {busy.holder})",
                               "wait for it to finish, then run the command again") from None
        except OSError as exc:
            raise BackendError(f"cannot lock the lab's record in {self.state_dir}: {exc.strerror or exc}",
                               "set VNETBENCH_LAB_DIR to a writable folder") from None

    def unsupported(self, design: Topology) -> list[str]:
        return _broken(design) or desired_lab(design).reasons

    def desired(self, design: Topology) -> DesiredLab:
        """The lab the design needs; ``Unsupported`` (exit 2) for what the lab cannot build."""
        lab = _lab(design)
        if lab.reasons:
            raise Unsupported(lab.reasons)
        return lab

    def _proof(self, ctx: Context, state: LabState, tag: str, names: Mapping[str, NsId]) -> dict[str, str | None]:
        """For each existing namespace: None when it is provably this lab's, else why it is left alone."""
        protected = ctx.protected_ids()
        marks = ctx.marks(sorted(n for n, i in names.items() if i not in protected))
        ours = marker(tag, state.mark)
        out: dict[str, str | None] = {}
        for ns, ns_id in names.items():
            entry = state.namespaces.get(ns) or {}
            if ns_id in protected:
                out[ns] = "it is the host's own network namespace, attached under a lab's name"
            elif not state.readable:
                out[ns] = f"the lab's record {state.path} is damaged, so nothing proves it is the lab's"
            elif not entry:
                out[ns] = "the lab's record does not list it: vnetbench did not make it"
            elif entry["state"] == MADE and tuple(entry.get("id") or ()) != ns_id:
                out[ns] = "it is not the namespace the lab made (that one is gone; this one took its name)"
            elif marks.get(ns) == ours:
                out[ns] = None
            elif entry["state"] == PENDING and marks.get(ns) == "" and not ctx.pids_in([ns]):
                out[ns] = None     # made by an apply that was killed before it could mark it
            else:
                out[ns] = "it does not carry the lab's mark"
        return out

    # --- plan ---------------------------------------------------------------------------------------

    def plan(self, design: Topology) -> Plan:
        lab = self.desired(design)
        self._names[design.id] = design.name
        ctx = self.context(lab.tag)
        with self._locked(lab.tag):      # says at once when another apply of this design is running
            state = self._state(lab.tag)
        self._planned[lab.tag] = state.generation
        kernel = ctx.ns_ids(ns_prefix(lab.tag)) if ctx.alive else {}
        ledger = state.namespaces
        foreign = {ns for ns, i in kernel.items()
                   if not (state.made(ns, i) or ledger.get(ns, {}).get("state") == PENDING)}
        recorded, desired = state.resources, lab.resources
        ops: dict[str, tuple[Op, str]] = {}
        blocked: dict[str, str] = {}
        for key, rec in recorded.items():
            if key not in desired:
                ops[key] = (Op.DELETE, "no longer in the design")
        for key, res in desired.items():
            rec = recorded.get(key)
            ns = res.spec["ns"] if res.kind == "netns" else None
            if ns in foreign:
                blocked[key] = (f"a namespace {ns} exists that this lab did not make; it is left alone (remove it "
                                f"with `ip netns del {ns}` if it is yours, then run up again)")
            elif rec is None and (key in state.inflight or ns in kernel):
                ops[key] = (Op.UPDATE, "left over from an interrupted deploy")     # delete what may exist, rebuild
            elif rec is None:
                ops[key] = (Op.CREATE, "")
            elif key in state.inflight:
                ops[key] = (Op.UPDATE, "an earlier apply did not finish it")
            elif rec["spec"] != res.spec:
                ops[key] = (Op.UPDATE, "changed in the design")
            elif ns is not None and ns not in kernel:
                ops[key] = (Op.CREATE, "gone from the kernel")
        rebuild_dependents(desired, ops, blocked, rebuild_on=(Op.CREATE, Op.UPDATE))
        changes = []
        planned_ns = {r["spec"]["ns"] for r in recorded.values() if r["kind"] == "netns"}
        planned_ns |= {r.spec["ns"] for r in desired.values() if r.kind == "netns"}
        for ns in sorted(set(ledger) - planned_ns):          # made by an interrupted deploy, no longer wanted
            changes.append(PlannedChange(Op.DELETE, "netns", f"netns/{ns}", f"namespace {ns} (left over)",
                                         None, {"spec": {"ns": ns, "forward": False}}))
        for key in sorted((k for k, (op, _) in ops.items() if op is Op.DELETE),
                          key=lambda k: (-_phase(recorded[k]["kind"]), k)):
            rec = recorded[key]
            changes.append(PlannedChange(Op.DELETE, rec["kind"], key, rec["description"], rec.get("object_id"),
                                         {"spec": rec["spec"]}))
        for key, res in desired.items():
            data: dict[str, Any] = {"spec": res.spec, "label": res.description}
            if key in blocked:
                changes.append(PlannedChange(Op.CREATE, res.kind, key, f"{res.description}: blocked: {blocked[key]}",
                                             res.object_id, data | {"blocked": blocked[key]}))
            elif key in ops:
                op, why = ops[key]
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
        with self._locked(tag):
            return self._apply(tag, plan, progress, cancel)

    def _apply(self, tag: str, plan: Plan, progress: ProgressFn | None,
               cancel: CancelToken | None) -> list[ChangeResult]:
        ctx = self.context(tag)
        ctx.ensure()
        state = self._state(tag)
        if self._planned.get(tag, state.generation) != state.generation:
            raise BackendError("the lab changed since this plan was made (another `lab up` or `lab down` of this "
                               "design ran meanwhile)", "plan again: run `vnetbench lab up FILE` once more")
        state.design_id = plan.design_id
        state.name = self._names.get(plan.design_id, state.name)
        kernel = ctx.ns_ids(ns_prefix(tag))
        removing = {ch.data.get("old", ch.data["spec"])["ns"] for ch in plan.changes
                    if ch.kind == "netns" and ch.op in (Op.DELETE, Op.UPDATE) and "blocked" not in ch.data}
        proof = self._proof(ctx, state, tag, {ns: kernel[ns] for ns in removing if ns in kernel})
        creating = {ch.data["spec"]["ns"] for ch in plan.changes if ch.kind == "netns" and ch.op is not Op.DELETE}

        def left_alone(ns: str) -> str | None:
            """Why this apply may not touch ``ns`` (None: it may: absent, the lab's, or proven and removed)."""
            if ns not in kernel:
                return None
            if ns in removing:
                return proof[ns]
            if ns in creating:
                return "it appeared since the plan was made"
            return None if state.made(ns, kernel[ns]) else "the lab's record does not list it"

        refused: dict[int, str] = {}
        for i, ch in enumerate(plan.changes):
            touched = {*namespaces_of(ch.kind, ch.data["spec"]),
                       *namespaces_of(ch.kind, ch.data.get("old", ch.data["spec"]))}
            why = ch.data.get("blocked") or next((f"namespace {ns} is left alone: {w}" for ns in sorted(touched)
                                                   if (w := left_alone(ns))), None)
            if why:
                refused[i] = why
        for i, ch in enumerate(plan.changes):
            if ch.kind == "netns" and ch.op is not Op.DELETE and i not in refused:
                state.namespaces.setdefault(ch.data["spec"]["ns"], {"state": PENDING})
        state.inflight |= {c.key for c in plan.changes}
        state.save()
        mark = marker(tag, state.mark)
        steps, skip_ns = [], set()
        for i, ch in enumerate(plan.changes):
            if i in refused:
                continue
            spec, old = ch.data["spec"], ch.data.get("old", ch.data["spec"])
            if ch.op in (Op.DELETE, Op.UPDATE):
                if ch.kind == "netns":
                    skip_ns.add(old["ns"])
                if all(ns in kernel for ns in namespaces_of(ch.kind, old)):   # else it went with its namespace
                    steps += delete_steps(ctx, ch.kind, old, i)
            if ch.op in (Op.CREATE, Op.UPDATE):
                steps += create_steps(ctx, ch.kind, spec, i, mark)
        total = len(plan.changes)
        report = (lambda done, msg: progress(done, total, msg)) if progress else (lambda done, msg: None)
        outcome = execute(ctx, steps, total, report, cancel, skip_ns)
        failed = refused | outcome.failed
        ends: dict[str, set[str]] = {}
        for i, ch in enumerate(plan.changes):
            if ch.kind == "veth" and ch.op is not Op.DELETE and i not in failed and i not in outcome.skipped:
                for e in (ch.data["spec"]["a"], ch.data["spec"]["b"]):
                    if e.get("up", True):
                        ends.setdefault(e["ns"], set()).add(e["name"])
        after = ctx.ns_ids(ns_prefix(tag))
        touched = {ns for ch in plan.changes for ns in namespaces_of(ch.kind, ch.data["spec"]) if ns in after}
        present = ctx.links(sorted(touched))            # what the kernel holds: checked before a change counts
        if ends and not outcome.skipped:
            report(total, "waiting for the links to carry")
            wait_carrier(ctx, ends, present)
        results = []
        for i, ch in enumerate(plan.changes):
            error = failed.get(i)
            spec = ch.data["spec"]
            if i in outcome.skipped:
                error = "not applied: interrupted before it ran"
            elif error is None and ch.op is Op.DELETE and ch.kind == "netns" and spec["ns"] in after:
                error = "the namespace is still there (a process may hold it)"
            elif error is None and ch.op is not Op.DELETE:
                error = missing(ctx, ch.kind, spec, present)
            results.append(ChangeResult(ch, error is None, error))
            self._record(state, ch, error, i in outcome.skipped, after)
        state.save()
        return results

    @staticmethod
    def _record(state: LabState, ch: PlannedChange, error: str | None, skipped: bool,
                after: Mapping[str, NsId]) -> None:
        """Write one change's outcome into the record (resources, in-flight keys, the namespace ledger)."""
        spec = ch.data["spec"]
        if ch.kind == "netns":
            new = spec["ns"]
            for ns in {ch.data.get("old", spec)["ns"], new}:
                entry = state.namespaces.get(ns)
                if entry and (ns not in after or entry["state"] == MADE and tuple(entry["id"]) != after[ns]):
                    del state.namespaces[ns]     # gone, or no longer the one the lab made: forgotten
            if ch.op is not Op.DELETE and new in after and "blocked" not in ch.data:
                if error is None:
                    state.namespaces[new] = {"state": MADE, "id": list(after[new])}
                elif "File exists" in error and state.namespaces.get(new, {}).get("state") == PENDING:
                    del state.namespaces[new]    # someone else's was there first
        if error is not None:
            if not skipped:
                state.failed[ch.key] = error
            state.resources.pop(ch.key, None)
            return
        state.inflight.discard(ch.key)
        state.failed.pop(ch.key, None)
        if ch.op is Op.DELETE:
            state.resources.pop(ch.key, None)
        else:
            state.resources[ch.key] = {"kind": ch.kind, "spec": spec, "object_id": ch.object_id,
                                       "description": ch.data.get("label", ch.description)}

    # --- teardown -----------------------------------------------------------------------------------

    def _tags(self) -> set[str]:
        """The labs this machine's records name; a namespace's name alone never adds one."""
        tags = set()
        if self.state_dir.is_dir():
            for f in self.state_dir.iterdir():
                if re.fullmatch(r"[0-9a-f]{6}\.(json|holder)", f.name):
                    tags.add(f.name.split(".")[0])
        return tags

    def teardown_plan(self, design_id: str | None = None) -> list[PlannedChange]:
        """What a teardown would remove, and (with ``data["left_alone"]``) what it would leave and why:
        namespaces named like a lab that nothing proves to be one. ``lab down`` lists it before acting."""
        tags = [design_tag(design_id)] if design_id else sorted(self._tags())
        changes = []
        for tag in tags:
            ctx, state = self.context(tag), self._state(tag)
            if isinstance(ctx, RootlessContext):    # the whole user namespace is the lab's: it all goes
                changes += [_removal(ns) for ns in (ctx.namespaces(ns_prefix(tag)) if ctx.alive else [])]
                continue
            kernel = ctx.ns_ids(ns_prefix(tag))
            changes += [_removal(ns, why) for ns, why in sorted(self._proof(ctx, state, tag, kernel).items())]
        return changes + (self._unrecorded(tags) if design_id is None else [])

    def _unrecorded(self, tags: list[str]) -> list[PlannedChange]:
        """Namespaces named like a lab whose tag no record on this machine holds (root mode only)."""
        if os.geteuid() != 0 or self.mode == "rootless":
            return []
        return [_removal(ns, "no lab's record names it: vnetbench did not make it")
                for ns in Context(self.state_dir, "").namespaces(PREFIX)
                if (m := NS_PATTERN.match(ns)) and m.group(1) not in tags]

    def teardown(self, design_id: str | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None) -> list[ChangeResult]:
        tags = [design_tag(design_id)] if design_id else sorted(self._tags())
        results = []
        for n, tag in enumerate(tags):
            if cancel is not None:
                cancel.check()
            with self._locked(tag):
                done = self._teardown(tag)
            results += done
            if progress:
                progress(n + 1, len(tags), f"lab {tag}: {sum(r.ok for r in done)} namespaces removed")
        if design_id is None:
            results += [ChangeResult(c, False, f"left alone: {c.data['left_alone']}", left_alone=True)
                        for c in self._unrecorded(tags)]
        return results

    def _teardown(self, tag: str) -> list[ChangeResult]:
        ctx, state = self.context(tag), self._state(tag)
        if isinstance(ctx, RootlessContext):
            changes = [_removal(ns) for ns in (ctx.namespaces(ns_prefix(tag)) if ctx.alive else [])]
            ctx.destroy()
            state.remove()
            shutil.rmtree(ctx.probe_dir, ignore_errors=True)
            return [ChangeResult(c, True) for c in changes]
        kernel = ctx.ns_ids(ns_prefix(tag))
        changes = [_removal(ns, why) for ns, why in sorted(self._proof(ctx, state, tag, kernel).items())]
        ours = [c for c in changes if "left_alone" not in c.data]
        steps = [s for i, c in enumerate(ours) for s in delete_steps(ctx, "netns", c.data["spec"], i)]
        failed = execute(ctx, steps, len(ours), lambda done, msg: None, None, set()).failed if steps else {}
        left = ctx.ns_ids(ns_prefix(tag))
        failed.update({i: "the namespace is still there" for i, c in enumerate(ours) if c.data["spec"]["ns"] in left})
        results = [ChangeResult(c, i not in failed, failed.get(i)) for i, c in enumerate(ours)]
        results += [ChangeResult(c, False, f"left alone: {c.data['left_alone']}", left_alone=True)
                    for c in changes if c not in ours]
        for ns in [ns for ns in state.namespaces if ns not in left]:
            del state.namespaces[ns]
        if state.readable and not state.namespaces and not failed:
            state.remove()
            shutil.rmtree(ctx.probe_dir, ignore_errors=True)     # their processes went with the namespaces
        elif state.exists:
            state.save()
        return results

    # --- status and endpoints ------------------------------------------------------------------------

    def status(self, design: Topology) -> dict[str, ObjectState]:
        lab = _lab(design)
        ctx = self.context(lab.tag)
        ctx.reap_probes()
        state = self._state(lab.tag)
        kernel = ctx.ns_ids(ns_prefix(lab.tag)) if ctx.alive else {}
        per_object: dict[str, list[tuple[DeployState, str]]] = {}
        for key, res in lab.resources.items():
            if res.object_id is None:
                continue
            rec = state.resources.get(key)
            if key in state.failed:
                item = (DeployState.FAILED, f"{res.description}: {state.failed[key]}")
            elif rec and rec["spec"] == res.spec and key not in state.inflight and \
                    (res.kind != "netns" or state.made(res.spec["ns"], kernel.get(res.spec["ns"]))):
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
            ctx.reap_probes()
            names = ctx.namespaces(ns_prefix(tag)) if ctx.alive else []
            detail = f"{ctx.mode}, {len(names)} namespaces" + (f", {len(state.failed)} failed" if state.failed else "")
            if state.inflight - set(state.failed):
                detail += ", interrupted (run up or down again)"
            if not state.readable:
                detail += f", its record {state.path} is damaged"
            out.append(Deployment(state.design_id or f"(unknown, tag {tag})", state.name or "", len(state.resources),
                                  detail))
        return out

    def _lab_of(self, design: Topology) -> DesiredLab:
        """``_lab``, kept for the last design asked about: verify reads the counters hundreds of times, and
        working the lab out again each time cost more than the probes (0.14 s at 50 VMs)."""
        key = digest(json.dumps(to_data(design), sort_keys=True, default=str))
        if self._last_lab is None or self._last_lab[0] != key:
            self._last_lab = (key, _lab(design))
        return self._last_lab[1]

    def endpoint(self, design: Topology, vm_id: str) -> LabEndpoint:
        lab = self._lab_of(design)
        try:
            obj = Index(design).endpoint(vm_id)
        except LookupError as exc:
            raise BackendError(str(exc), "name a VM or physical host of the design") from None
        info = lab.endpoints.get(obj.id)
        ctx = self.context(lab.tag)
        ctx.reap_probes()                # what a killed measure left running
        if info is None or not ctx.alive or info.ns not in ctx.namespaces(info.ns):
            raise BackendError(f"{obj.name} is not deployed in the local lab", "run `vnetbench lab up FILE` first")
        return LabEndpoint(ctx, obj.name, info.ns, info.addresses, info.addresses6)

    def pnic_counters(self, design: Topology) -> dict[str, int]:
        lab = self._lab_of(design)
        return read_pnic_counters(self.context(lab.tag), lab)

    def neighbour_room(self, design: Topology) -> int:
        return neighbour_room()

    def forget_neighbours(self, design: Topology) -> None:
        lab = self._lab_of(design)
        forget_neighbours(self.context(lab.tag), lab)


def _removal(ns: str, left_alone: str | None = None) -> PlannedChange:
    """A namespace teardown removes, or (with the reason) leaves alone."""
    suffix = f" (left alone: {left_alone})" if left_alone else ""
    return PlannedChange(Op.DELETE, "netns", f"netns/{ns}", f"namespace {ns}{suffix}", None,
                         {"spec": {"ns": ns, "forward": False}} | ({"left_alone": left_alone} if left_alone else {}))


def _lab(design: Topology) -> DesiredLab:
    """``desired_lab``, which follows every reference: a design whose references do not hold is refused
    first (``Unsupported``, exit 2), instead of failing halfway through with whatever it met."""
    reasons = _broken(design)
    if reasons:
        raise Unsupported(reasons)
    return desired_lab(design)


def _broken(design: Topology) -> list[str]:
    """Why a design whose references do not hold cannot be built (empty when they hold)."""
    errors = reference_errors(design)
    more = [f"and {len(errors) - 3} more (`vnetbench validate` lists them)"] if len(errors) > 3 else []
    return [f"{p.path}: {p.message}" for p in errors[:3]] + more
