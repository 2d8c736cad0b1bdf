"""Carrying out changes with few processes: every change becomes lines of ``ip``/``tc`` batches.

A change (create, update, delete of one resource) is compiled into *steps*, each a line for a batch in
one namespace at one *stage* (namespaces, then links, then their settings, then filters and shapers).
All lines of a stage and namespace go to one ``ip -n NS -force -batch -``, and the batches of one stage run
in parallel, so a 50-VM lab costs about one ``ip`` process per namespace instead of one per command.
``-force`` keeps a batch going after an error and reports the failing line, which maps back to its change;
but on some errors (a bad argument) ``ip`` exits at once, silently skipping the lines after it, so a
non-zero exit without such a report fails every line of that batch. What the kernel then holds is checked
anyway (``missing``) before a change counts as applied.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from vnetbench.backends import CancelToken
from vnetbench.backends.nftables import TABLE
from vnetbench.backends.shaper import shaper_commands

from .context import Context, kill_pids

# Stages, in the order they run: deletions first (filters before links before namespaces), then creations.
TC_DEL, NFT_DEL, LINK_DEL, NETNS_DEL = 0, 1, 2, 3
NETNS_ADD, SYSCTL, LINK_ADD, CONF, NFT, TC = 10, 11, 12, 13, 14, 15
#: How long a lab bridge keeps a learned MAC, in hundredths of a second (a day).
AGEING_CS = 24 * 3600 * 100
STAGE_NAMES = {TC_DEL: "removing shapers", NFT_DEL: "removing filters", LINK_DEL: "removing links",
               NETNS_DEL: "removing namespaces", NETNS_ADD: "creating namespaces", SYSCTL: "namespace settings",
               LINK_ADD: "creating links", CONF: "addresses, bridge ports and routes", NFT: "loading filters",
               TC: "attaching shapers"}
#: The IPv6 settings of a namespace that speaks it: no duplicate-address probes, no router advertisements
#: taken or solicited, no link-local address of the kernel's making.
IPV6_QUIET = ("accept_dad=0", "accept_ra=0", "router_solicitations=0", "addr_gen_mode=1")
_FAILED = re.compile(r"^Command failed -:(\d+)\s*$")


@dataclass(frozen=True)
class Step:
    stage: int
    tool: str                  # "ip" / "tc" / "bridge": a batch line; "exec": ``argv`` with ``stdin``
    ns: str | None             # None: the lab's top level (``ip netns add``, links created into namespaces)
    owner: int                 # index of the change it belongs to
    line: str = ""
    order: int = 0             # place within its batch (lo up, links, port flags, addresses, routes)
    argv: tuple[str, ...] = ()
    stdin: str = ""
    tolerant: bool = False     # a delete: what is already gone is fine


def _addr_line(addr: str, dev: str) -> str:
    """An ``ip addr add`` line; an IPv6 address is used at once, without a duplicate-address probe."""
    return f"addr add {addr} dev {dev}" + (" nodad" if ":" in addr else "")


def _route_line(verb: str, route: list[str]) -> str:
    """``route replace|del PREFIX via HOP``, with ``dev`` where the hop is link-local (``default_route``)."""
    return f"route {verb} {route[0]} via {route[1]}" + (f" dev {route[2]}" if len(route) > 2 else "")


def _end_lines(end: dict[str, Any], mtu: int, owner: int) -> list[Step]:
    ns, name = end["ns"], end["name"]
    words = [f"link set {name}"]
    if end.get("mac"):
        words.append(f"address {end['mac']}")
    words.append(f"mtu {mtu}")
    if end.get("master"):
        words.append(f"master {end['master']}")
    if end.get("up", True):
        words.append("up")
    steps = [Step(CONF, "ip", ns, owner, " ".join(words), 1)]
    if end.get("master") and (end.get("hairpin") or end.get("isolated") or not end.get("learning", True)):
        flags = (f"hairpin {'on' if end.get('hairpin') else 'off'} isolated {'on' if end.get('isolated') else 'off'} "
                 f"learning {'on' if end.get('learning', True) else 'off'}")
        steps.append(Step(CONF, "ip", ns, owner, f"link set {name} type bridge_slave {flags}", 2))
    steps += [Step(CONF, "ip", ns, owner, _addr_line(a, name), 3) for a in end.get("addrs", [])]
    return steps


def create_steps(ctx: Context, kind: str, spec: dict[str, Any], owner: int, mark: str = "") -> list[Step]:
    """The lines that build one resource; a namespace gets ``mark`` (the owner's proof) on its loopback."""
    if kind == "netns":
        ns = spec["ns"]
        steps = [Step(NETNS_ADD, "ip", None, owner, f"netns add {ns}"),
                 Step(CONF, "ip", ns, owner, f"link set lo alias {mark} up" if mark else "link set lo up")]
        # IPv6 is off unless the namespace holds an IPv6 address (``enable_ipv6``). With it on as the kernel
        # sets it, every new link sends duplicate-address probes, router solicitations and multicast listener
        # reports for several seconds, flooded over every bridge and tunnel: tens of kilobytes per pNIC that
        # verify's counters would take for a burst's bytes. So where it is on, no address is probed, no router
        # asked for or listened to, and no link-local address made up: the design's addresses are all it has.
        if spec.get("ipv6"):
            keys = [f"net.ipv6.conf.{c}.{k}" for c in ("default", "all") for k in IPV6_QUIET]
        else:
            keys = ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
        if spec.get("forward"):
            keys.append("net.ipv4.ip_forward=1")
            keys += ["net.ipv6.conf.all.forwarding=1"] if spec.get("ipv6") else []
        if spec.get("arp_ignore"):
            keys.append("net.ipv4.conf.all.arp_ignore=1")
        steps.append(Step(SYSCTL, "exec", ns, owner, argv=tuple(ctx.in_ns(ns, ["sysctl", "-qw", *keys]))))
        return steps
    if kind == "bridge":
        ns, name = spec["ns"], spec["name"]
        # Learned MACs are kept a day, not the kernel's 5 minutes: a vSwitch knows its VMs' MACs and never floods
        # a frame for one of them, and a physical switch's flood of an aged entry would reach other hosts'
        # pNICs, which verify would count as a path the prediction does not have.
        return [Step(LINK_ADD, "ip", None, owner, f"link add {name} netns {ns} type bridge ageing_time {AGEING_CS}"),
                Step(CONF, "ip", ns, owner, f"link set {name} mtu {spec['mtu']} up", 1),
                *[Step(CONF, "ip", ns, owner, _addr_line(a, name), 3) for a in spec["addrs"]]]
    if kind == "veth":
        a, b = spec["a"], spec["b"]
        return [Step(LINK_ADD, "ip", None, owner,
                     f"link add {a['name']} netns {a['ns']} type veth peer name {b['name']} netns {b['ns']}"),
                *_end_lines(a, spec["mtu"], owner), *_end_lines(b, spec["mtu"], owner)]
    if kind == "vxlan":
        ns, name = spec["ns"], spec["name"]
        # Created from inside its namespace, so its UDP socket (and its VNI) lives there, not at the top. The
        # outer header says don't fragment, as ESXi's tunnel endpoints do: a router on a routed transport drops
        # a tunnel packet above its next link's MTU instead of splitting it.
        return [Step(CONF, "ip", ns, owner, f"link add {name} type vxlan id {spec['vni']} "
                                            f"local {spec['local']} dstport 4789 nolearning df set", 0),
                Step(CONF, "ip", ns, owner, f"link set {name} mtu {spec['mtu']} master {spec['master']} up", 1),
                *[Step(NFT, "bridge", ns, owner, f"fdb append 00:00:00:00:00:00 dev {name} dst {r}")
                  for r in spec["remotes"]],
                *[Step(NFT, "bridge", ns, owner, f"fdb append {mac} dev {name} dst {r}")
                  for mac, r in spec.get("macs", [])]]
    if kind == "routes":
        return [*[Step(CONF, "ip", spec["ns"], owner, _route_line("replace", r), 4) for r in spec["routes"]],
                *[Step(CONF, "ip", spec["ns"], owner, f"neigh replace {ip} lladdr {mac} dev {dev} nud permanent", 5)
                  for ip, mac, dev in spec.get("neigh", [])]]
    if kind == "nft":
        return [Step(NFT, "exec", spec["ns"], owner, argv=tuple(ctx.in_ns(spec["ns"], ["nft", "-f", "-"])),
                     stdin=spec["text"])]
    if kind == "shaper":
        ns, ifb, rate = spec["ns"], spec["ifb"], int(spec["rate_mbit"])
        lines = [" ".join(words) for words in shaper_commands(ifb, rate, spec["members"])]
        return [Step(LINK_ADD, "ip", None, owner, f"link add {ifb} netns {ns} type ifb"),
                Step(CONF, "ip", ns, owner, f"link set {ifb} up", 1),
                *[Step(TC, "tc", ns, owner, line, i) for i, line in enumerate(lines)]]
    raise ValueError(f"unknown resource kind {kind!r}")


def delete_steps(ctx: Context, kind: str, spec: dict[str, Any], owner: int) -> list[Step]:
    if kind == "netns":
        return [Step(NETNS_DEL, "ip", None, owner, f"netns del {spec['ns']}")]
    if kind == "bridge":
        return [Step(LINK_DEL, "ip", spec["ns"], owner, f"link del {spec['name']}", 1, tolerant=True)]
    if kind == "veth":
        return [Step(LINK_DEL, "ip", spec["a"]["ns"], owner, f"link del {spec['a']['name']}", 0, tolerant=True)]
    if kind == "vxlan":
        return [Step(LINK_DEL, "ip", spec["ns"], owner, f"link del {spec['name']}", 0, tolerant=True)]
    if kind == "routes":
        return [Step(LINK_DEL, "ip", spec["ns"], owner, _route_line("del", r), -1, tolerant=True)
                for r in spec["routes"]]
    if kind == "nft":
        return [Step(NFT_DEL, "exec", spec["ns"], owner, tolerant=True, argv=tuple(ctx.in_ns(
            spec["ns"], ["nft", "delete", "table", spec["family"], TABLE])))]
    if kind == "shaper":
        return [*[Step(TC_DEL, "tc", spec["ns"], owner, f"qdisc del dev {m} clsact", tolerant=True)
                  for m in spec["members"]],
                Step(LINK_DEL, "ip", spec["ns"], owner, f"link del {spec['ifb']}", 2, tolerant=True)]
    raise ValueError(f"unknown resource kind {kind!r}")


def _run(argv: list[str], stdin: str) -> tuple[int, str]:
    try:
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, str(exc)
    return proc.returncode, proc.stderr


def _batch_errors(stderr: str) -> dict[int, str]:
    """``ip``/``tc`` -force output -> {line number: error message}."""
    errors, pending = {}, []
    for text in stderr.splitlines():
        m = _FAILED.match(text)
        if m:
            errors[int(m.group(1))] = " ".join(pending).strip() or "failed"
            pending = []
        elif text.strip():
            pending.append(text.strip())
    return errors


@dataclass
class Outcome:
    """What ``execute`` did: the changes that failed (with why) and those a cancel left undone."""

    failed: dict[int, str] = field(default_factory=dict)
    skipped: set[int] = field(default_factory=set)


def execute(ctx: Context, steps: list[Step], count: int, progress: Callable[[int, str], None],
            cancel: CancelToken | None, skip_ns: set[str]) -> Outcome:
    """Run ``steps`` stage by stage. A cancel stops between stages: the changes with stages left are
    ``skipped``, so the caller records exactly what ran.

    ``skip_ns``: namespaces deleted in this run, whose contents need no separate deletion.
    """
    outcome = Outcome()
    failed = outcome.failed
    last_stage = {}
    for s in steps:
        last_stage[s.owner] = max(last_stage.get(s.owner, -1), s.stage)
    with ThreadPoolExecutor(max_workers=8) as pool:
        for stage in sorted({s.stage for s in steps}):
            if cancel is not None and cancel.cancelled:
                outcome.skipped = {owner for owner, last in last_stage.items() if last >= stage} - set(failed)
                break
            todo = [s for s in steps if s.stage == stage and s.owner not in failed
                    and not (s.tolerant and s.ns in skip_ns)]
            if stage == NETNS_DEL:
                kill_pids(ctx.pids_in([s.line.split()[-1] for s in todo]))
            jobs = []
            batches: dict[tuple[str, str | None], list[Step]] = {}
            for s in todo:
                if s.tool == "exec":
                    jobs.append(([s], list(s.argv), s.stdin))
                else:
                    batches.setdefault((s.tool, s.ns), []).append(s)
            for (tool, ns), batch in batches.items():
                batch.sort(key=lambda s: s.order)
                argv = [tool, *(["-n", ns] if ns else []), "-force", "-batch", "-"]
                jobs.append((batch, ctx.wrap(argv), "".join(s.line + "\n" for s in batch)))
            results = pool.map(lambda job: (job[0], *_run(job[1], job[2])), jobs)
            for batch, rc, stderr in results:
                if rc == 0:
                    continue
                if batch[0].tool == "exec":
                    if not batch[0].tolerant:
                        failed.setdefault(batch[0].owner, stderr.strip() or f"exit status {rc}")
                    continue
                errors = _batch_errors(stderr)
                if not errors:  # it stopped without saying where: no line of the batch is known to have run
                    why = " ".join(stderr.split()) or f"exit status {rc}"
                    errors = {n: f"{tool} stopped early ({why})" for n in range(1, len(batch) + 1)}
                for lineno, message in errors.items():
                    step = batch[lineno - 1]
                    if not step.tolerant:
                        failed.setdefault(step.owner, f"{step.line}: {message}")
            done = sum(1 for owner, last in last_stage.items() if last <= stage)
            progress(done, f"{STAGE_NAMES[stage]} ({len(todo)} commands, {len(jobs)} processes)")
    return outcome


def missing(ctx: Context, kind: str, spec: dict[str, Any], present: dict[str, dict[str, str]]) -> str | None:
    """What a created resource should have put in the kernel and did not, or None. ``present`` is
    ``ctx.links`` of the namespaces involved (a namespace absent from it does not exist)."""
    if kind == "netns":
        return None if spec["ns"] in present else f"the namespace {spec['ns']} does not exist"
    ends = {"bridge": [(spec.get("ns"), spec.get("name"))], "vxlan": [(spec.get("ns"), spec.get("name"))],
            "shaper": [(spec.get("ns"), spec.get("ifb"))],
            "veth": [(e["ns"], e["name"]) for e in (spec.get("a"), spec.get("b")) if e]}.get(kind, [])
    gone = [f"{ns}/{name}" for ns, name in ends if name not in present.get(ns, {})]
    return f"{', '.join(gone)} not in the kernel after the batch" if gone else None


def wait_carrier(ctx: Context, expected: dict[str, set[str]], first: dict[str, dict[str, str]] | None = None,
                 timeout: float = 3.0) -> set[str]:
    """Wait until the veth ends in ``expected`` ({ns: names}) have carrier; returns those that never did.
    ``first``: a reading of ``ctx.links`` just taken, used as the first look.

    The kernel may report a new veth's carrier up to a second late (its link-watch rate limit); bridges
    drop frames on such ports meanwhile, so a lab is only "up" once every port carries.
    """
    deadline = time.monotonic() + timeout
    missing_now = {f"{ns}/{name}" for ns, names in expected.items() for name in names}
    while missing_now:
        links, first = first or ctx.links(sorted({m.split("/")[0] for m in missing_now})), None
        for ns, found in links.items():
            for name, flags in found.items():
                if "NO-CARRIER" not in flags and "LOWER_UP" in flags:
                    missing_now.discard(f"{ns}/{name}")
        if not missing_now or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return missing_now
