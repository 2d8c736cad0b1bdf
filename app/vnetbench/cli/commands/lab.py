"""``vnetbench lab``: the local lab (network namespaces on this machine): up, plan, status, down, exec.

The lab is the ``local`` backend plugin, found through discovery like any other. ``up`` shows the plan and
applies it; running it again on an unchanged design changes nothing. ``down`` lists what it will remove and
what it leaves alone (namespaces named like a lab that no lab's record proves it made) before it acts.
Exit codes: 0 done (a namespace ``down`` left alone on purpose is no failure), 1 some changes failed, 2 bad input (including a design the
lab cannot emulate), 3 the lab itself failed, 128 + the signal when Ctrl-C (130) or a TERM/HUP stopped an
``up`` between its stages (what was applied and what not is printed; the next ``up`` finishes the job).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...backends import Backend, ChangeResult, Plan
from ...backends.discovery import backend_class
from ...model.text import one_line
from ..backend_options import SignalToken, guarded, run_cancellable
from ..common import load_design, print_json, say
from ..main import EXIT_BACKEND, EXIT_NO, EXIT_OK, EXIT_USAGE, CliError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lab",
        description="Deploy a design on this machine: a network namespace per VM, router, firewall, physical "
                    "switch and host; a bridge per segment; a veth per vNIC. Works as root and rootless "
                    "(inside a user namespace).")
    parser.add_argument("--mode", choices=["auto", "root", "rootless"], default=None,
                        help="root: the host's namespaces; rootless: a private user namespace "
                             "(default: root when run as root)")
    sub = parser.add_subparsers(dest="lab_command", metavar="ACTION", required=True)
    up = sub.add_parser("up", help="plan and apply a design")
    up.add_argument("file", help="design file (.vnet.yaml)")
    up.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    up.add_argument("--json", action="store_true", help="print the plan and the results as JSON")
    plan = sub.add_parser("plan", help="show what `up` would change")
    plan.add_argument("file")
    plan.add_argument("--json", action="store_true")
    status = sub.add_parser("status", help="what is deployed (of one design, or every lab)")
    status.add_argument("file", nargs="?")
    status.add_argument("--json", action="store_true")
    down = sub.add_parser("down", help="remove a design's lab (or every lab with --all)")
    down.add_argument("file", nargs="?")
    down.add_argument("--all", action="store_true", help="remove every lab vnetbench made here")
    down.add_argument("--yes", "-y", action="store_true", help="remove without asking")
    down.add_argument("--json", action="store_true")
    ex = sub.add_parser("exec", help="run a command inside a deployed VM: lab exec FILE VM -- cmd ...")
    ex.add_argument("file")
    ex.add_argument("vm", help="VM or physical host (name or id)")
    ex.add_argument("--cpu", type=int, help="pin the command to this CPU")
    ex.add_argument("--json", action="store_true",
                    help="print the result as one JSON object (exit code, output, errors) when it ends")
    ex.add_argument("argv", nargs=argparse.REMAINDER, help="the command, after --")
    parser.set_defaults(func=run)


def _backend(args: argparse.Namespace) -> Backend:
    try:
        cls = backend_class("local")
    except LookupError as exc:
        raise CliError(str(exc), EXIT_BACKEND) from None
    settings = {"mode": args.mode} if args.mode else {}
    return guarded(lambda: cls(settings))


def _change(c: Any) -> dict[str, Any]:
    return {"op": c.op.value, "kind": c.kind, "key": c.key, "description": c.description, "object_id": c.object_id}


def _print_plan(plan: Plan) -> None:
    if plan.empty:
        say("nothing to change: the lab matches the design")
        return
    counts: dict[str, int] = {}
    for c in plan.changes:
        counts[c.op.value] = counts.get(c.op.value, 0) + 1
    say("plan: " + ", ".join(f"{n} to {op}" for op, n in counts.items()))
    for c in plan.changes:
        say(f"  {c}")


def _print_removal(listing: list[Any]) -> None:
    """What ``down`` will remove and what it will leave alone (and why), before it acts."""
    if not listing:
        say("no lab namespaces to remove")
    for c in listing:
        ns = c.data["spec"]["ns"]
        why = c.data.get("left_alone")
        say(f"left alone   namespace {ns}: {why}" if why else f"will remove  namespace {ns}")


def _progress(done: int, total: int, message: str) -> None:
    if sys.stderr.isatty():
        print(f"\r[{done}/{total}] {one_line(message)}\033[K", end="", file=sys.stderr, flush=True)
    else:
        say(f"[{done}/{total}] {message}", file=sys.stderr, flush=True)


def _results(results: list[ChangeResult], as_json: bool, verb: str, missed: str = "failed") -> int:
    """The outcome in one line, then each failure; what was left alone on purpose (listed, with why, before
    acting) is counted, not repeated, and is no failure."""
    failed = [r for r in results if r.failed]
    left = sum(r.left_alone for r in results)
    if as_json:
        print_json([{**_change(r.change), "ok": r.ok, "error": r.error, "left_alone": r.left_alone}
                    for r in results])
    else:
        if sys.stderr.isatty():
            say(file=sys.stderr)
        tried = len(results) - left
        say(f"{verb} {tried - len(failed)} of {tried}" + (f"; {left} left alone, as listed above" if left else "")
            + (f"; {len(failed)} {missed}:" if failed else ""))
        for r in failed:
            say(f"  {r.change}: {r.error}")
    return EXIT_NO if failed else EXIT_OK


def run(args: argparse.Namespace) -> int:
    backend = _backend(args)
    action = args.lab_command
    if action in ("up", "plan"):
        design = load_design(args.file)
        plan = guarded(lambda: backend.plan(design))
        if action == "plan" or plan.empty:
            if args.json:
                print_json({"design": plan.design_id, "changes": [_change(c) for c in plan.changes]})
            else:
                _print_plan(plan)
            return EXIT_OK
        if not args.json:
            _print_plan(plan)
        if not args.yes and sys.stdin.isatty():
            if input(f"apply {len(plan.changes)} changes? [y/N] ").strip().lower() not in ("y", "yes"):
                say("nothing changed")
                return EXIT_NO
        token = SignalToken()
        results = run_cancellable(lambda token: guarded(
            lambda: backend.apply(plan, None if args.json else _progress, token)), token)
        code = _results(results, args.json, *(("interrupted: applied", "not applied or failed") if token.signum
                                               else ("applied",)))
        return 128 + token.signum if token.signum else code
    if action == "status":
        return _status(backend, args)
    if action == "down":
        if bool(args.file) == bool(args.all):
            raise CliError("name the design file to remove its lab, or use --all", EXIT_USAGE)
        design_id = load_design(args.file).id if args.file else None
        listing = guarded(lambda: backend.teardown_plan(design_id))
        if not args.json:
            _print_removal(listing)
        removing = sum("left_alone" not in c.data for c in listing)
        if removing and not args.yes and not args.json and sys.stdin.isatty():
            if input(f"remove {removing} namespaces? [y/N] ").strip().lower() not in ("y", "yes"):
                say("nothing changed")
                return EXIT_NO
        results = guarded(lambda: backend.teardown(design_id))
        return _results(results, args.json, "removed namespaces:")
    return _exec(backend, args)


def _status(backend: Backend, args: argparse.Namespace) -> int:
    if not args.file:
        labs = guarded(backend.deployments)
        if args.json:
            print_json([vars(d) for d in labs])
        elif not labs:
            say("no lab is deployed")
        for d in [] if args.json else labs:
            say(f"{d.design_id}  {d.name or '-'}  {d.objects} resources  ({d.detail})")
        return EXIT_OK
    design = load_design(args.file)
    states = guarded(lambda: backend.status(design))
    if args.json:
        print_json({k: {"state": v.state.value, "reason": v.reason} for k, v in states.items()})
        return EXIT_OK
    for obj_id, st in states.items():
        say(f"{st.state.value:9} {obj_id}" + (f"  ({st.reason})" if st.reason else ""))
    return EXIT_OK


def _exec(backend: Backend, args: argparse.Namespace) -> int:
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not argv:
        raise CliError("name the command to run after --, like: lab exec FILE web01 -- ping -c1 10.0.0.2")
    design = load_design(args.file)
    endpoint = guarded(lambda: backend.endpoint(design, args.vm))
    command = guarded(lambda: endpoint.start(argv, args.cpu))
    lines: list[str] = []
    try:
        for line in command.lines():
            if args.json:
                lines.append(line)
            else:
                print(line, flush=True)  # the command's own output, as it wrote it
    except KeyboardInterrupt:
        command.terminate()
        raise
    code = command.wait()
    if args.json:
        print_json({"vm": args.vm, "argv": argv, "exit_code": code, "stdout": lines, "stderr": command.stderr()})
    else:
        sys.stderr.write(command.stderr())
    return code
