"""Verify: prove a deployed design against its prediction, pair by pair and path by path.

For each pair it is given (with the predictions the caller made, so this room never runs the engine), the
verification probes the deployed endpoints through the backend contract and states, per cell, what it
confirmed, what reality contradicted (with the hop where it differs, in the admin's words) and what it could
not check:

- **reachability:** a burst of ICMP echoes, and the TCP/UDP flows the design's rules name (a TCP reset or an
  ICMP port-unreachable counts as reached: the packets went through, nothing listened; where a firewall's
  reject is predicted, that refusal is what must come back, and silence means it drops instead);
- **the observed path** (backends with ``counters``): the bytes each pNIC carried across the bursts. Pairs
  are burst in batches at once; when every pNIC's count matches what the predicted paths add up to, the whole
  batch is confirmed, else the batch is split and burst again until the pair that differs stands alone,
  and its pNICs that counted the burst are compared with the predicted ones;
- **the largest packet:** the burst goes at the predicted limit with don't-fragment set, then one probe a
  byte above it must not get through.

Probes run in parallel up to ``parallel``; bursts are small (``BURST`` echoes ``BURST_GAP_S`` apart). Where the
endpoints share one bounded neighbour (ARP) table (``Backend.neighbour_room``: the lab's namespaces share the
host kernel's), the pairs go in groups of whole sources whose lookups fit it, and the learned entries are
dropped between groups: past the bound the kernel refuses new entries and drops the echoes that needed them.
"""

from __future__ import annotations

import csv
import io
import re
import shlex
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from types import SimpleNamespace
from enum import StrEnum
from typing import Any

from ..backends.contract import Backend, BackendError, CancelToken, Endpoint, ProgressFn
from ..model import Index, Topology
from ..model.forwarding import Fabric
from ..predict.result import HopKind, Prediction, Trace, Verdict
from .context import design_digest
from .prober import Ping, Probers

#: Echoes per burst, the gap between them, and how long a probe waits for replies.
BURST = 5
BURST_GAP_S = 0.02
WAIT_S = 1.0
#: How long a probe that must meet silence (blocked, unreachable, a byte over the limit) waits for an answer.
SILENCE_S = 0.5
#: Default bound on probes running at once.
PARALLEL = 64
#: Up to this many endpoints every ordered pair is checked; above, one pair per pair of endpoint classes.
ALL_PAIRS_UP_TO = 60
#: At most this many TCP/UDP flows from the design's rules are probed per pair.
MAX_FLOWS = 6
#: Bytes between the echo sizes of the pairs of one burst batch, and the smallest echo a batch sends.
SIZE_STEP = 16
MIN_BURST_SIZE = 300
#: The echo size that tells a smaller largest packet from a lost path (and outweighs ARP in the counters).
PROBE_SIZE = 1000
#: Bytes of one ARP request (a 42-byte frame): a pNIC that counted no echo but this much carried the lookup.
ARP_BYTES = 40
ICMP_IP_HEADER = 28          # IP + ICMP header: ``ping -s`` sizes the payload
ETHERNET_HEADER = 14


class Outcome(StrEnum):
    """What a check found: the deployment did as predicted, did otherwise, or could not be checked."""
    CONFIRMED = "confirmed"
    CONTRADICTED = "contradicted"
    NOT_CHECKED = "not checked"


@dataclass(frozen=True)
class Check:
    """One thing verified about a pair: ``what`` (icmp, tcp/22, path, largest packet), its outcome, what was
    predicted and observed, and, for a contradiction, where reality differs in the admin's words."""

    what: str
    outcome: Outcome
    predicted: str
    observed: str
    detail: str = ""


@dataclass
class Cell:
    """One ordered pair of the observed matrix; ``stands_for`` counts the pairs of its classes it represents."""

    src: str
    dst: str
    src_name: str
    dst_name: str
    verdict: Verdict
    predicted_pnics: tuple[str, ...] = ()
    observed_pnics: tuple[str, ...] | None = None
    checks: list[Check] = field(default_factory=list)
    stands_for: int = 1

    @property
    def outcome(self) -> Outcome:
        """The cell's answer: contradicted if any check is, else confirmed if any check is, else not checked."""
        outcomes = {c.outcome for c in self.checks}
        if Outcome.CONTRADICTED in outcomes:
            return Outcome.CONTRADICTED
        return Outcome.CONFIRMED if Outcome.CONFIRMED in outcomes else Outcome.NOT_CHECKED

    @property
    def contradictions(self) -> list[Check]:
        """The checks that found the deployment doing otherwise than predicted."""
        return [c for c in self.checks if c.outcome is Outcome.CONTRADICTED]

    def to_dict(self) -> dict[str, Any]:
        """The cell as plain data, for the run store and JSON exports."""
        data = asdict(self)
        data["verdict"] = str(self.verdict)
        data["outcome"] = str(self.outcome)
        data["checks"] = [{**asdict(c), "outcome": str(c.outcome)} for c in self.checks]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cell:
        """A cell read back from ``to_dict``."""
        observed = data.get("observed_pnics")
        return cls(data["src"], data["dst"], data["src_name"], data["dst_name"], Verdict(data["verdict"]),
                   tuple(data.get("predicted_pnics") or ()), tuple(observed) if observed is not None else None,
                   [Check(c["what"], Outcome(c["outcome"]), c["predicted"], c["observed"], c.get("detail", ""))
                    for c in data.get("checks", [])], int(data.get("stands_for", 1)))


@dataclass
class Verification:
    """A whole verification: the observed matrix beside the prediction, and what could not be checked."""

    design_name: str
    design_digest: str
    backend: str
    scope: str
    started: float
    ended: float = 0.0
    cells: list[Cell] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)
    cancelled: bool = False

    @property
    def contradictions(self) -> int:
        """How many cells the deployment contradicted (what ``vnetbench verify`` exits 1 on)."""
        return sum(c.outcome is Outcome.CONTRADICTED for c in self.cells)

    def counts(self) -> dict[str, int]:
        """Cells per outcome, for the headline and the report."""
        return {str(o): sum(c.outcome is o for c in self.cells) for o in Outcome}

    def headline(self) -> str:
        """``verified on local at 2026-11-26 23:40: 20 pairs, 0 contradictions`` (what the report says)."""
        at = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started))
        text = f"verified on {self.backend} at {at}: {len(self.cells)} pairs, {self.contradictions} contradictions"
        skipped = self.counts()[str(Outcome.NOT_CHECKED)]
        return text + (f", {skipped} not checked" if skipped else "") + (" (cancelled)" if self.cancelled else "")

    def cell(self, src: str, dst: str) -> Cell | None:
        """The cell of one ordered pair, if it was checked."""
        return next((c for c in self.cells if c.src == src and c.dst == dst), None)

    def to_dict(self) -> dict[str, Any]:
        """The verification as plain data, for the run store and JSON exports."""
        return {"design_name": self.design_name, "design_digest": self.design_digest, "backend": self.backend,
                "scope": self.scope, "started": self.started, "ended": self.ended, "cancelled": self.cancelled,
                "limits": list(self.limits), "counts": self.counts(), "headline": self.headline(),
                "cells": [c.to_dict() for c in self.cells]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verification:
        """A verification read back from ``to_dict``."""
        return cls(data["design_name"], data["design_digest"], data["backend"], data["scope"], data["started"],
                   data.get("ended", 0.0), [Cell.from_dict(c) for c in data.get("cells", [])],
                   list(data.get("limits", [])), bool(data.get("cancelled")))

    def to_csv(self) -> str:
        """One row per check: the pair, the predicted verdict, what was checked and how it ended."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["from", "to", "predicted", "outcome", "check", "check_outcome", "predicted_detail", "observed",
                    "where", "predicted_pnics", "observed_pnics", "stands_for"])
        for c in self.cells:
            observed = " ".join(c.observed_pnics) if c.observed_pnics is not None else ""
            for ch in c.checks or [Check("-", Outcome.NOT_CHECKED, "", "")]:
                w.writerow([c.src_name, c.dst_name, str(c.verdict), str(c.outcome), ch.what, str(ch.outcome),
                            ch.predicted, ch.observed, ch.detail, " ".join(c.predicted_pnics), observed,
                            c.stands_for])
        return buf.getvalue()

    def lines(self) -> list[str]:
        """The result as the CLI prints it: a line per pair, the contradictions in words under it."""
        out = [f"{'from':14} {'to':14} {'predicted':20} {'observed path':28} result"]
        for c in self.cells:
            path = "-" if c.observed_pnics is None else (" ".join(c.observed_pnics) or "no pNIC")
            out.append(f"{c.src_name:14} {c.dst_name:14} {str(c.verdict):20} {path:28} {c.outcome}")
            out += [f"    {ch.what}: {ch.detail}" for ch in c.contradictions]
        out += [f"not checked: {why}" for why in self.limits]
        return out + [self.headline()]


# --- what to check --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PairPlan:
    """A pair to verify, with the predictions made for it: ICMP, and each TCP/UDP flow of the rules."""

    src: str
    dst: str
    icmp: Prediction
    flows: tuple[tuple[str, int, Prediction], ...] = ()
    stands_for: int = 1


def choose_pairs(endpoints: Sequence[str], classes: Iterable[int],
                 all_pairs_up_to: int = ALL_PAIRS_UP_TO) -> tuple[list[tuple[str, str, int]], str]:
    """The pairs to probe, each with how many pairs it stands for, and the scope in words.

    ``endpoints`` and ``classes`` are the matrix engine's (endpoint i is in class ``classes[i]``); endpoints of
    one class get the same answer from every other class, so one pair per (class, class) covers every answer.
    """
    n = len(endpoints)
    if n <= all_pairs_up_to:
        return [(a, b, 1) for a in endpoints for b in endpoints if a != b], f"every ordered pair ({n} endpoints)"
    members: dict[int, list[str]] = {}
    for eid, c in zip(endpoints, classes):
        members.setdefault(int(c), []).append(eid)
    pairs = []
    for ci, a_list in members.items():
        for cj, b_list in members.items():
            if ci == cj and len(a_list) < 2:
                continue
            src = a_list[0]
            dst = a_list[1] if ci == cj else b_list[0]
            count = len(a_list) * (len(b_list) - (1 if ci == cj else 0))
            pairs.append((src, dst, count))
    return pairs, (f"one representative per pair of endpoint classes ({len(members)} classes of {n} endpoints, "
                   f"{len(pairs)} pairs standing for {n * (n - 1)})")


def rule_flows(design: Topology, limit: int = MAX_FLOWS) -> tuple[list[tuple[str, int]], list[str]]:
    """The TCP/UDP flows the design's firewall VMs', DFW and DNAT rules and port forwards name (proto, port; a
    DNAT rule or port forward: the port inside), at most ``limit``; and the ones left out, in words."""
    found: list[tuple[str, int]] = []
    rules = [r for vm in design.vms for r in vm.forwarding.rules] + list(design.nsx.dfw.rules) + \
        [SimpleNamespace(proto=r.proto, port=r.to_port or r.port) for vm in design.vms for r in vm.forwarding.dnat] + \
        [SimpleNamespace(proto=f.proto, port=f.guest_port or f.host_port) for sw in design.switches
         for f in sw.port_forwards]
    for rule in rules:
        proto = str(rule.proto)
        for port in _ports(rule):
            for p in (("tcp", "udp") if proto == "any" else (proto,)):
                if p in ("tcp", "udp") and (p, port) not in found:
                    found.append((p, port))
    left = [f"{p}/{port}" for p, port in found[limit:]]
    return found[:limit], ([f"flows {', '.join(left)} (only the first {limit} flows the rules name are probed)"]
                           if left else [])


def _ports(rule: Any) -> list[int]:
    """The destination ports a rule names: a port, or a range's ends (``8000-8080``)."""
    if rule.port is None:
        return []
    bounds = [int(b) for b in str(rule.port).split("-") if b.strip().isdigit()]
    return [b for b in bounds if 0 < b < 65536]


def plan_pairs(design: Topology, endpoints: Sequence[str], classes: Iterable[int],
               predict: Callable[[str, str, str | None, int | None], Prediction],
               all_pairs_up_to: int = ALL_PAIRS_UP_TO) -> tuple[list[PairPlan], str, list[str]]:
    """What to verify: the pairs (``choose_pairs``) with the predictions ``predict(src, dst, proto, port)``
    gives for ICMP and for every flow the rules name; the scope in words; what is left out."""
    pairs, scope = choose_pairs(endpoints, classes, all_pairs_up_to)
    flows, left = rule_flows(design)
    plans = [PairPlan(a, b, predict(a, b, "icmp", None),
                      tuple((proto, port, predict(a, b, proto, port)) for proto, port in flows), count)
             for a, b, count in pairs]
    return plans, scope, left


# --- probing ----------------------------------------------------------------------------------------------

@dataclass
class _Probe:
    endpoint: Endpoint
    argv: list[str]
    key: Any
    code: int | None = None
    out: str = ""
    err: str = ""
    #: False when the probe never ran there (the endpoint could not be reached): nothing was checked
    ran: bool = True
    addr: str = ""
    #: the pings it is made of, one after the other (``argv`` runs them where no prober runs)
    pings: tuple[Ping, ...] = ()


def _ping_probe(endpoint: Endpoint, pings: Sequence[Ping], key: Any, addr: str = "") -> _Probe:
    """A probe of ``pings``: one ``ping`` command, or a shell running them one after the other."""
    return _Probe(endpoint, [], key, addr=addr, pings=tuple(pings))


def _pings_argv(pings: Sequence[Ping]) -> list[str]:
    """``pings`` as one command, where no prober runs them: a ``ping``, or a shell running them in turn."""
    return pings[0].argv() if len(pings) == 1 else ["sh", "-c", "; ".join(shlex.join(p.argv()) for p in pings)]


def run_probes(probes: list[_Probe], parallel: int, cancel: CancelToken | None,
               done: Callable[[int], None] | None = None, probers: Probers | None = None,
               spread: float = BURST_GAP_S) -> None:
    """Run every probe, at most ``parallel`` at once; each gets its exit code and output (None: not started).

    Pings go to the endpoint's prober where it runs one (``probers``): no process per probe. The others of
    one endpoint in a round go out as one ``sh`` there that starts them side by side and prints each one's
    status and output as one line, so a round costs one command per endpoint, not per probe."""
    if probers is not None:
        batched = [p for p in probes if p.pings and probers.usable(p.endpoint)]
        results = probers.run([(p.endpoint, p.pings) for p in batched], parallel, cancel or CancelToken(), done,
                              spread)
        for p, result in zip(batched, results):
            if isinstance(result, tuple):
                p.code, p.out = result
            elif result is not None:
                p.code, p.err, p.ran = -1, result, False
        probes = [p for p in probes if not (p.pings and probers.usable(p.endpoint))]
    for p in probes:
        p.argv = p.argv or _pings_argv(p.pings)
    finished = 0
    for start in range(0, len(probes), parallel):
        if cancel and cancel.cancelled:
            return
        groups: dict[int, list[_Probe]] = {}
        for p in probes[start:start + parallel]:
            groups.setdefault(id(p.endpoint), []).append(p)
        running = []
        for group in groups.values():
            script = " ".join(f'(o=$({shlex.join(p.argv)} 2>&1); echo "@{i} $? "$o) &' for i, p in enumerate(group))
            try:
                running.append((group, group[0].endpoint.start(["sh", "-c", f"set -f; {script} wait"])))
            except BackendError as exc:
                for p in group:
                    p.code, p.err, p.ran = -1, exc.message, False
        for group, cmd in running:
            try:
                for line in cmd.lines():
                    head, _, rest = line.partition(" ")
                    if head[:1] == "@" and head[1:].isdigit() and int(head[1:]) < len(group):
                        code, _, out = rest.partition(" ")
                        p = group[int(head[1:])]
                        p.code, p.out = int(code) if code.lstrip("-").isdigit() else -1, out
                        if p.code in (126, 127):   # the program is missing there: nothing was checked
                            p.ran, p.err = False, out or f"{p.argv[0]} cannot run there"
                cmd.wait(WAIT_S * 10)
            except TimeoutError:
                cmd.terminate()
            for p in group:
                if p.code is None:
                    p.code, p.ran = -1, False
                    p.err = _last_line(cmd.stderr()) or "the probe did not run (no output came back)"
            finished += len(group)
            if done:
                done(finished)


_RECEIVED = re.compile(r"(\d+) packets transmitted, (\d+) (?:packets )?received")


def _echoes(p: _Probe) -> tuple[int, int]:
    """(sent, answered) from ping's summary line; (0, 0) when it could not send (a local MTU refusal)."""
    m = _RECEIVED.search(p.out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def ping(addr: str, size: int, count: int = BURST, df: bool = True, gap: float = BURST_GAP_S,
         wait: float = WAIT_S) -> Ping:
    """``count`` echoes of ``size``-byte IP packets (don't fragment), waiting ``wait`` s for a reply after the last."""
    return Ping(addr, size, count, gap, wait, df)


#: A TCP connect (exit 0: a listener; "refused": a reset came back) and a UDP send that waits for the port's
#: ICMP unreachable ("refused") or an answer, in the endpoint's own shell and Python.
TCP_PROBE = 'exec 3<>/dev/tcp/"$0"/"$1"'
UDP_PROBE = ("import socket,sys\ns=socket.socket(socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET,"
             "socket.SOCK_DGRAM);s.settimeout(float(sys.argv[3]))\n"
             "s.connect((sys.argv[1],int(sys.argv[2])))\nfor _ in range(2):\n s.send(b'vnetbench-verify')\n"
             " try:\n  s.recv(64);print('answered');break\n except ConnectionRefusedError:\n  print('refused');break\n"
             " except OSError:pass\n")


def flow_argv(proto: str, addr: str, port: int) -> list[str]:
    """The command that sends one probe of a TCP/UDP flow from an endpoint (so the rules' ports are tried)."""
    if proto == "tcp":
        return ["timeout", f"{WAIT_S * 2:g}", "bash", "-c", TCP_PROBE, addr, str(port)]
    return ["python3", "-c", UDP_PROBE, addr, str(port), f"{WAIT_S / 2:g}"]


def flow_answer(proto: str, p: _Probe) -> str:
    """What a flow probe met: ``answered`` (a TCP listener, a UDP answer), ``refused`` (a TCP RST or an ICMP
    unreachable: nothing listened, or a firewall rejected it) or ``no answer`` (a drop, a lost path)."""
    text = (p.out + " " + p.err).lower()   # a probe's stderr arrives in ``out``
    if (proto == "tcp" and p.code == 0) or (proto != "tcp" and "answered" in text):
        return "answered"
    return "refused" if "refused" in text else "no answer"


def flow_expected(p: Prediction, answer: str) -> bool:
    """Whether a flow probe's answer is what the prediction says the sender sees: a delivered flow is
    answered or refused by the endpoint, a rejected one is refused at once, a dropped one meets silence."""
    if p.verdict.delivered:
        return answer != "no answer"
    return answer == ("refused" if p.refused else "no answer")


class Verifier:
    """One verification of a deployed design through ``backend``; ``run`` returns the ``Verification``."""

    def __init__(self, backend: Backend, design: Topology, pairs: Iterable[PairPlan], scope: str,
                 parallel: int = PARALLEL, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None, limits: Iterable[str] = (), family: int = 4) -> None:
        self.backend, self.design, self.pairs = backend, design, list(pairs)
        self.family = family          # the address family probed (``pairs`` hold that family's predictions)
        self.scope, self.parallel = scope, max(1, parallel)
        self.progress, self.cancel = progress, cancel or CancelToken()
        self.caps = backend.probe_capabilities
        self.index = Index(design)
        self.fabric = Fabric(design, self.index)
        self.result = Verification(design.name, design_digest(design), backend.name, scope, time.time(),
                                   limits=list(limits))
        self._endpoints: dict[str, Endpoint | str] = {}
        self._df: dict[int, bool] = {}            # id(endpoint) -> its ping can set don't-fragment
        self.probers = Probers()
        self._steps = 0
        self._total = 0

    # --- the steps ---------------------------------------------------------------------------------

    def run(self) -> Verification:
        """Probe every planned pair and return the observed matrix (cancellable, with progress)."""
        try:
            return self._run()
        finally:
            self.probers.close()

    def _run(self) -> Verification:
        cells: dict[tuple[str, str], Cell] = {}
        live: list[tuple[PairPlan, Cell, Endpoint, str]] = []
        for plan in self.pairs:
            p = plan.icmp
            cell = Cell(plan.src, plan.dst, p.flow.src_name or plan.src, p.flow.dst_name or plan.dst, p.verdict,
                        _names(self.index, p.forward.pnics + p.reverse.pnics if p.verdict.delivered else ()),
                        stands_for=plan.stands_for)
            cells[(plan.src, plan.dst)] = cell
            src, dst = self._endpoint(plan.src), self._endpoint(plan.dst)
            if isinstance(src, str) or isinstance(dst, str):
                why = src if isinstance(src, str) else dst
                cell.checks.append(Check("icmp", Outcome.NOT_CHECKED, str(p.verdict), "", str(why)))
                continue
            try:
                addr = _target(p, dst, self.family)
            except BackendError as exc:
                cell.checks.append(Check("icmp", Outcome.NOT_CHECKED, str(p.verdict), "", exc.message))
                continue
            live.append((plan, cell, src, addr))
        reach = [x for x in live if x[0].icmp.verdict.delivered]
        flows = sum(len(plan.flows) for plan, *_ in live) if self.caps.ports else 0
        self._total = len(live) * 2 + flows
        # the probes that must meet silence (and the echoes at the limit) go first: they also resolve every
        # pair's addresses (ARP), so the bursts after them carry no lookup that the counters would count
        self._check_df({id(src): src for _, _, src, _ in live})
        for i, part in enumerate(self._parts(live)):
            if self.cancel.cancelled:
                break
            if i:
                self.backend.forget_neighbours(self.design)
            negatives = self._negatives(part)
            self._say("bursting the reachable pairs")
            self._bursts([x for x in part if x[0].icmp.verdict.delivered])
            self._diagnose(part)
            self._judge_negatives(negatives)
            if self.caps.ports:
                self._flows(part)
        if not self.caps.ports and any(plan.flows for plan, *_ in live):
            self.result.limits.append(f"TCP/UDP flows: {self.backend.title} cannot run port probes")
        if not self.caps.counters and reach:
            self.result.limits.append(f"observed paths: {self.caps.limits}")
        self.result.cells = list(cells.values())
        self.result.cancelled = self.cancel.cancelled
        self.result.ended = time.time()
        return self.result

    def _parts(self, live: list[tuple[PairPlan, Cell, Endpoint, str]]) -> list[list]:
        """The pairs in groups of whole sources whose neighbour entries fit the backend's ``neighbour_room``
        together (all of them in one group where it has no bound): past the bound the kernel refuses new
        entries and drops the echoes that needed them, which would read as lost pairs."""
        room = self.backend.neighbour_room(self.design)
        if room is None:
            return [live]
        by_src: dict[str, list[tuple[PairPlan, Cell, Endpoint, str]]] = {}
        for item in live:
            by_src.setdefault(item[0].src, []).append(item)
        parts: list[list] = [[]]
        held: set[tuple[str, str]] = set()
        for items in by_src.values():
            need = set().union(*(_neighbours(plan.icmp) for plan, *_ in items))
            if parts[-1] and len(held | need) > room:
                parts.append([])
                held = set()
            parts[-1] += items
            held |= need
        return parts

    def _say(self, message: str, add: int = 0) -> None:
        self._steps += add
        if self.progress:
            self.progress(min(self._steps, self._total), self._total, message)

    def _endpoint(self, eid: str) -> Endpoint | str:
        if eid not in self._endpoints:
            try:
                self._endpoints[eid] = self.backend.endpoint(self.design, eid)
            except BackendError as exc:
                self._endpoints[eid] = exc.message
        return self._endpoints[eid]

    def _bursts(self, pairs: list[tuple[PairPlan, Cell, Endpoint, str]]) -> None:
        """Burst every reachable pair; the counters (if any) judge the paths, a batch at a time.

        Within a batch each pair's echoes have their own size (``SIZE_STEP`` bytes apart, the largest at the
        batch's smallest predicted limit), so one pair's bytes on a pNIC where they do not belong cannot be
        made up by another's missing there."""
        queue = self._batches(pairs)
        after: dict[str, int] | None = None
        while queue and not self.cancel.cancelled:
            batch = queue.pop(0)
            top = min(_limit(plan.icmp)[0] or 1500 for plan, *_ in batch)
            before = after if after is not None else self._counters()   # nothing was sent since the last read
            probes = [_ping_probe(src, [ping(addr, top - SIZE_STEP * slot, df=self._df.get(id(src), True))],
                                  (plan, cell, top - SIZE_STEP * slot))
                      for slot, (plan, cell, src, addr) in enumerate(batch)]
            run_probes(probes, self.parallel, self.cancel, probers=self.probers)
            after = self._counters()
            answered = [(p, _echoes(p)) for p in probes]
            if before is None or after is None or self.cancel.cancelled:
                for p, echoes in answered:
                    self._judge_burst(p, echoes, None)
                continue
            delta = {k: after.get(k, 0) - before.get(k, 0) for k in after}
            quiet = [x for x, (p, (_, got)) in zip(batch, answered) if not got or not p.ran]
            if quiet:
                # unanswered echoes went somewhere unknown: ``_diagnose`` takes those pairs one by one, and
                # the others are burst again without them
                for p, echoes in answered:
                    if not echoes[1]:
                        self._judge_burst(p, echoes, None)
                rest = [x for x in batch if x not in quiet]
                queue[:0] = [rest] if rest else []
                continue
            if len(batch) > 1 and not _agrees(delta, answered):
                half = len(batch) // 2
                queue[:0] = [batch[:half], batch[half:]]
                continue
            for p, echoes in answered:
                self._judge_burst(p, echoes, delta if len(batch) == 1 else None, batch_ok=len(batch) > 1)
        self._say("bursts done")

    def _batches(self, pairs: list[tuple[PairPlan, Cell, Endpoint, str]]) -> list[list]:
        """Pairs in batches of at most ``parallel``, few enough that their sizes stay above ``MIN_BURST_SIZE``;
        the sources take turns, so a batch spreads over many endpoints instead of one sending to all at once."""
        out: list[list] = []
        turn: Counter[str] = Counter()
        ranked = []
        for item in pairs:
            ranked.append((-(_limit(item[0].icmp)[0] or 1500), turn[item[0].src], item))
            turn[item[0].src] += 1
        for *_, item in sorted(ranked, key=lambda r: r[:2]):
            limit = _limit(item[0].icmp)[0] or 1500
            if out and len(out[-1]) < self.parallel and limit - SIZE_STEP * len(out[-1]) >= MIN_BURST_SIZE:
                out[-1].append(item)
            else:
                out.append([item])
        return out

    def _counters(self) -> dict[str, int] | None:
        if not self.caps.counters:
            return None
        try:
            return self.backend.pnic_counters(self.design)
        except BackendError as exc:
            if not any(x.startswith("observed paths") for x in self.result.limits):
                self.result.limits.append(f"observed paths: {exc.message}")
            return None

    def _judge_burst(self, probe: _Probe, echoes: tuple[int, int], delta: dict[str, int] | None,
                     batch_ok: bool = False) -> None:
        plan, cell, burst_size = probe.key
        p: Prediction = plan.icmp
        sent, got = echoes
        size, _ = _limit(p)
        self._say(f"{cell.src_name} -> {cell.dst_name}", 1)
        if not probe.ran:
            if not _has(cell, "icmp"):
                cell.checks.append(Check("icmp", Outcome.NOT_CHECKED, str(p.verdict), "",
                                         f"could not run ping in {cell.src_name}: {probe.err}"))
            return
        if not got:
            return   # judged by ``_diagnose``, which tells a lost path from a smaller largest packet
        cell.checks.append(Check("icmp", Outcome.CONFIRMED, str(p.verdict), f"{got}/{sent} echoes answered"))
        predicted = Counter(p.forward.pnics + p.reverse.pnics)
        if batch_ok:
            seen = predicted
        elif delta is not None:
            frame = (burst_size + ETHERNET_HEADER) * (sent + got) / 2
            seen = _crossings(delta, frame)
        else:
            if self.caps.counters:
                cell.checks.append(Check("path", Outcome.NOT_CHECKED, self._path_words(predicted), "",
                                         "the pNIC counters could not be read"))
            return
        cell.observed_pnics = _names(self.index, sorted(seen))
        if seen == predicted:
            cell.checks.append(Check("path", Outcome.CONFIRMED, self._path_words(predicted), self._seen_words(seen)))
        else:
            cell.checks.append(Check("path", Outcome.CONTRADICTED, self._path_words(predicted),
                                     self._seen_words(seen), self._path_contradiction(p, predicted, seen)))

    def _path_words(self, crossings: Counter[str]) -> str:
        return (f"through {_and(self._pnic_words(sorted(crossings)))}" if crossings else "no pNIC")

    def _seen_words(self, seen: Counter[str]) -> str:
        return f"{_and(self._pnic_words(sorted(seen)))} counted the burst" if seen else "no pNIC counted the burst"

    def _path_contradiction(self, p: Prediction, predicted: Counter[str], seen: Counter[str]) -> str:
        """Where the burst's pNICs differ from the predicted ones, in the admin's words."""
        host = self._host_name(p.flow.src)
        extra = sorted(k for k in seen if k not in predicted)
        missing = sorted(k for k in predicted if k not in seen)
        parts = []
        if extra and not predicted:
            parts.append(f"predicted to stay in {host}, but {_and(self._pnic_words(extra))} counted the burst")
        elif extra:
            parts.append(f"predicted through {_and(self._pnic_words(sorted(predicted)))}, but "
                         f"{_and(self._pnic_words(extra))} also counted the burst")
        if missing:
            parts.append(f"predicted through {_and(self._pnic_words(missing))}, but "
                         f"{'it' if len(missing) == 1 else 'they'} counted nothing"
                         + ("" if seen else f": the burst stayed in {host}"))
        for k in sorted(set(predicted) & set(seen)):
            if predicted[k] != seen[k]:
                parts.append(f"predicted to cross {self._pnic_words([k])[0]} {_times(predicted[k])} (both ways "
                             f"together), but it counted the burst {_times(seen[k])}")
        return "; ".join(parts)

    def _pnic_words(self, pnic_ids: Sequence[str]) -> list[str]:
        """``vmnic0 (core-sw1 Gi1/0/1)``: the pNIC and the physical switch port it is cabled to."""
        out = []
        for pid in pnic_ids:
            pnic = self.index.get(pid)
            port = self.fabric.port_of(pid)
            switch = self.index.parent(port.id) if port is not None else None
            name = getattr(pnic, "name", pid)
            out.append(f"{name} ({switch.name} {port.name})" if port is not None and switch is not None else name)
        return out

    def _host_name(self, eid: str) -> str:
        host = self.index.get(getattr(self.index.get(eid), "host", None))
        return getattr(host, "name", "its host")

    def _check_df(self, endpoints: dict[int, Endpoint]) -> None:
        """Which endpoints' ping sets don't-fragment (busybox's cannot): one echo to their own loopback. A
        prober always can, so only the endpoints without one are asked."""
        self.probers.start(list(endpoints.values()))
        endpoints = {key: ep for key, ep in endpoints.items() if not self.probers.usable(ep)}
        probes = [_Probe(ep, ["ping", "-n", "-q", "-c", "1", "-W", "1", "-M", "do", "127.0.0.1"], key)
                  for key, ep in endpoints.items()]
        run_probes(probes, self.parallel, self.cancel, probers=self.probers)
        for p in probes:
            text = p.out.lower()
            self._df[p.key] = not p.ran or not any(w in text for w in ("invalid", "unrecognized", "usage"))

    def _negatives(self, live: list[tuple[PairPlan, Cell, Endpoint, str]]) -> list[_Probe]:
        """Probes whose answer must be silence (blocked and unreachable pairs, a byte over the limit), with
        the echo at the limit beside the last; judged by ``_judge_negatives`` once the bursts are known."""
        probes = []
        for plan, cell, src, addr in live:
            p = plan.icmp
            size, _ = _limit(p)
            if not p.verdict.delivered:
                probes.append(_ping_probe(src, [ping(addr, 84, 2, df=False, gap=0.1, wait=SILENCE_S)],
                                          (plan, cell, "silent")))
            elif size and self.caps.mtu and not self._df.get(id(src), True):
                cell.checks.append(Check("largest packet", Outcome.NOT_CHECKED, f"{size} bytes", "",
                                         f"the ping in {cell.src_name} cannot set don't-fragment"))
            elif size and self.caps.mtu:
                # two echoes at the limit, given the full wait (a busy machine is slow, not a smaller MTU)
                probes.append(_ping_probe(src, [ping(addr, size, 2, gap=0.1), ping(addr, size + 1, 1, wait=SILENCE_S)],
                                          (plan, cell, "limit"), addr=addr))
        self._say("probing what must not get through")
        run_probes(probes, self.parallel, self.cancel, probers=self.probers)
        return probes

    def _judge_negatives(self, probes: list[_Probe]) -> None:
        retried = self._again_at_limit(probes)
        for probe in probes:
            if probe.code is None:
                continue
            plan, cell, kind = probe.key
            if not probe.ran:
                if not _has(cell, "icmp"):
                    cell.checks.append(Check("icmp", Outcome.NOT_CHECKED, str(plan.icmp.verdict), "",
                                             f"could not run ping in {cell.src_name}: {probe.err}"))
                continue
            if kind == "limit" and (any(c.what == "largest packet" for c in cell.checks) or not any(
                    c.what == "icmp" and c.outcome is Outcome.CONFIRMED for c in cell.checks)):
                continue   # the burst got no answer: ``_diagnose`` judged the pair
            p = plan.icmp
            size, where = _limit(p)
            sent, got = _echoes(probe)
            self._say(f"{cell.src_name} -> {cell.dst_name}", 1)
            if kind == "silent":
                cell.checks.append(Check("icmp", Outcome.CONTRADICTED if got else Outcome.CONFIRMED, str(p.verdict),
                                         f"{got}/{sent} echoes answered" if got else "no answer",
                                         f"predicted {p.verdict} ({_first_reason(p)}), but "
                                         f"{cell.dst_name} answered" if got else ""))
            else:
                self._judge_limit(probe, cell, size or 0, where, retried.get(id(probe)))

    def _again_at_limit(self, probes: list[_Probe]) -> dict[int, tuple[int, int]]:
        """The echoes at the limit went first, when the addresses were not resolved yet: where they got no
        answer but the pair's burst did, they are sent once more before a smaller limit is claimed.
        Returns (sent, answered) of the second try by ``id`` of the first probe."""
        again = []
        for probe in probes:
            plan, cell, kind = probe.key
            first = [int(m.group(2)) for m in _RECEIVED.finditer(probe.out)][:1]
            if kind == "limit" and probe.ran and first == [0] and any(
                    c.what == "icmp" and c.outcome is Outcome.CONFIRMED for c in cell.checks):
                size = _limit(plan.icmp)[0] or 0
                again.append((probe, _ping_probe(probe.endpoint, [ping(probe.addr, size, 2, gap=0.1)], None)))
        run_probes([retry for _, retry in again], self.parallel, self.cancel, probers=self.probers)
        return {id(probe): _echoes(retry) for probe, retry in again if retry.ran}

    def _judge_limit(self, probe: _Probe, cell: Cell, size: int, where: str,
                     retried: tuple[int, int] | None = None) -> None:
        """The echo at the predicted limit must be answered, the one a byte above must not."""
        found = [(int(m.group(1)), int(m.group(2))) for m in _RECEIVED.finditer(probe.out)]
        at, over = (found + [(0, 0), (0, 0)])[:2]
        at = retried or at
        burst = next((c.observed for c in cell.checks if c.what == "icmp"), "")
        cell.checks.append(Check("largest packet", Outcome.CONFIRMED if at[1] else Outcome.CONTRADICTED,
                                 f"{size} bytes", f"{size} bytes pass with don't-fragment" if at[1] else "dropped",
                                 "" if at[1] else f"predicted {size}-byte packets with don't-fragment to reach "
                                 f"{cell.dst_name}, but they are dropped (smaller ones arrive: {burst})"))
        local = "too long" in probe.out.lower() or (len(found) > 1 and over[0] == 0)
        cell.checks.append(Check(
            f"{size + 1}-byte packet", Outcome.CONTRADICTED if over[1] else Outcome.CONFIRMED,
            f"dropped at {where}", "answered" if over[1] else ("refused by the sender" if local else "no answer"),
            f"predicted one byte over {size} to be dropped at {where}, but it got through" if over[1] else ""))

    def _diagnose(self, live: list[tuple[PairPlan, Cell, Endpoint, str]]) -> None:
        """Reachable pairs whose burst got no answer, one at a time: an echo of ``PROBE_SIZE`` bytes without
        don't-fragment tells a smaller largest packet (it is answered) from a lost path, and the counters
        around it show how far the echoes got."""
        lost = [x for x in live if x[0].icmp.verdict.delivered and not _has(x[1], "icmp")]
        self._bursts(lost)   # again, together: a burst among many can lose echoes in a busy pNIC's queue
        lost = [x for x in lost if not _has(x[1], "icmp")]
        for item in lost:    # then alone
            self._bursts([item])
        lost = [x for x in lost if not _has(x[1], "icmp")]
        for plan, cell, src, addr in lost:
            if self.cancel.cancelled:
                return
            p = plan.icmp
            size, _ = _limit(p)
            probe_size = min(PROBE_SIZE, size or PROBE_SIZE)
            before = self._counters()
            probe = _ping_probe(src, [ping(addr, probe_size, 3, df=False, gap=0.1)], None)
            run_probes([probe], 1, self.cancel, probers=self.probers)
            after = self._counters()
            sent, got = _echoes(probe)
            self._say(f"{cell.src_name} -> {cell.dst_name}", 1)
            if got:
                # the smaller echoes got through: once more at the limit before a smaller limit is claimed (the
                # first echoes after a pause can be lost while the sender looks its neighbour up again)
                self._bursts([(plan, cell, src, addr)])
                if _has(cell, "icmp"):
                    continue
                cell.checks.append(Check("icmp", Outcome.CONFIRMED, str(p.verdict), f"{got}/{sent} echoes answered"))
                cell.checks.append(Check("largest packet", Outcome.CONTRADICTED, f"{size} bytes", "smaller",
                                         f"predicted {size}-byte packets with don't-fragment to reach "
                                         f"{cell.dst_name}, but they are dropped; {probe_size}-byte ones arrive"))
                continue
            where = ""
            if before is not None and after is not None and sent:
                delta = {k: after.get(k, 0) - before.get(k, 0) for k in after}
                frame = (probe_size + ETHERNET_HEADER) * sent
                seen = _crossings(delta, frame)
                what = "the echoes"
                if not seen:   # no echo was sent: the address lookup (ARP) for the next hop got no answer
                    seen = Counter({k: 1 for k, v in delta.items() if v >= ARP_BYTES})
                    what = "the address lookup (ARP)"
                cell.observed_pnics = _names(self.index, sorted(seen))
                where = self._lost_at(p, seen, what)
            cell.checks.append(Check("icmp", Outcome.CONTRADICTED, str(p.verdict), "no answer",
                                     f"predicted {p.verdict}{self._via(p)}, but {cell.dst_name} did not answer "
                                     f"{cell.src_name}" + (f": {where}" if where else "")))

    def _via(self, p: Prediction) -> str:
        crossing = self._pnic_words(sorted(set(p.forward.pnics)))
        return f" through {_and(crossing)}" if crossing else f" inside {self._host_name(p.flow.src)}"

    def _lost_at(self, p: Prediction, seen: Counter[str], what: str) -> str:
        """Where the echoes stopped: the first pNIC crossing of the predicted way there that counted nothing.

        A pNIC the prediction never crosses counts them only when a switch floods them (it knows no port for
        their destination), and a flood's copies reach the predicted pNICs too: so where such copies were
        counted, a predicted pNIC's counts past its first crossing are taken for copies, not for the echoes
        coming back, and the pNICs that only carried copies are named as such, never as the way they went."""
        predicted = set(p.forward.pnics)
        flooded = sorted(k for k, n in seen.items() if k not in predicted and n > 0)
        copies = max((seen[k] for k in flooded), default=0)
        left = Counter({k: n if k not in predicted else max(1, n - copies) for k, n in seen.items() if n > 0})
        note = f"; {_and(self._pnic_words(flooded))} only counted copies a switch flooded" if flooded else ""
        hops = p.forward.hops
        last = None
        for i, hop in enumerate(hops):
            if hop.kind is not HopKind.PNIC or hop.object_id is None:
                continue
            if left[hop.object_id] > 0:
                left[hop.object_id] -= 1
                last = i
                continue
            name = self._pnic_words([hop.object_id])[0]
            if last is None:
                return f"{what} never left {self._host_name(p.flow.src)} through {name}{note}"
            out = self._pnic_words([hops[last].object_id or ""])[0]
            segment = next((h.name for h in hops[last + 1:i] if h.kind is HopKind.PHYSICAL_SWITCH), "")
            if what.startswith("the address lookup") and segment:
                # the lookup is for the next hop, so it is answered (or not) in the first segment past the pNIC
                return f"{what} left through {out} and got no answer in {segment}{note}"
            return (f"{what} left through {out} but never came back in through {name}"
                    f"{_lost_between(hops[last + 1:i])}{note}")
        if flooded:
            return (f"every predicted pNIC counted {what} on the way there, and {_and(self._pnic_words(flooded))} "
                    f"counted them too, which the prediction does not cross")
        return f"every predicted pNIC counted {what} on the way there" if p.forward.pnics else ""

    def _flows(self, live: list[tuple[PairPlan, Cell, Endpoint, str]]) -> None:
        probes, missing = [], set()
        for plan, cell, src, addr in live:
            for proto, port, p in plan.flows:
                program = "bash" if proto == "tcp" else "python3"
                if not src.has_program(program):
                    missing.add(f"{proto} flows from {cell.src_name}: it has no {program}")
                    continue
                to, to_port = p.forward.entry or (addr, port)   # a destination NAT: its outside address and port
                probes.append(_Probe(src, flow_argv(proto, to, to_port or port), (plan, cell, proto, port, p)))
        self.result.limits += sorted(missing)
        self._say("probing the rules' TCP/UDP flows")
        run_probes(probes, self.parallel, self.cancel, lambda n: self._say("probing the rules' TCP/UDP flows", 1),
                   probers=self.probers)
        for probe in probes:
            if probe.code is None:
                continue
            plan, cell, proto, port, p = probe.key
            if not probe.ran:
                cell.checks.append(Check(f"{proto}/{port}", Outcome.NOT_CHECKED, str(p.verdict), "",
                                         f"could not run the probe in {cell.src_name}: {probe.err}"))
                continue
            answer = flow_answer(proto, probe)
            ok = flow_expected(p, answer)
            rules = f" ({', '.join(p.forward.rules)})" if p.forward.rules else ""
            predicted = f"{p.verdict}, refused at once" if p.refused else str(p.verdict)
            if ok:
                detail = ""
            elif p.verdict.delivered:
                detail = f"predicted {p.verdict}{rules}, but {proto}/{port} did not reach {cell.dst_name}"
            elif p.refused:
                detail = (f"predicted {p.verdict} by a reject{rules}, so {proto}/{port} should be refused at once, "
                          f"but it {'reached ' + cell.dst_name if answer == 'answered' else 'timed out (dropped)'}")
            elif answer == "refused":
                detail = (f"predicted {p.verdict}{rules} (a drop: silence), but {proto}/{port} was refused at once: "
                          f"a firewall rejects it, or it reached {cell.dst_name} and nothing listened")
            else:
                detail = f"predicted {p.verdict}{rules}, but {proto}/{port} reached {cell.dst_name}"
            observed = "reached" if answer == "answered" or (answer == "refused" and not p.refused) else answer
            cell.checks.append(Check(f"{proto}/{port}", Outcome.CONFIRMED if ok else Outcome.CONTRADICTED,
                                     predicted, observed, detail))


# --- helpers ------------------------------------------------------------------------------------------------

#: The hops that answer a neighbour lookup themselves (they route): a packet's sender looks up the first one.
_L3_HOPS = frozenset((HopKind.ROUTER, HopKind.FIREWALL, HopKind.DLR, HopKind.NAT))


def _neighbours(p: Prediction) -> set[tuple[str, str]]:
    """The neighbour entries a pair's echo and reply make (who looks up whom): each pair of consecutive
    layer-3 stops of the predicted path, both ways."""
    stops = [p.flow.src]
    for hop in p.forward.hops:
        if hop.kind in _L3_HOPS and hop.object_id and hop.object_id != stops[-1]:
            stops.append(hop.object_id)
    stops.append(p.flow.dst)
    return {pair for a, b in zip(stops, stops[1:]) for pair in ((a, b), (b, a))}


def _lost_between(hops: Sequence[Any]) -> str:
    """Where between two pNIC crossings the frames stopped: the physical switch segment (its VLAN) that should
    have sent them out of the port before the pNIC that never counted them, else the ports in between."""
    ports = [h for h in hops if h.kind is HopKind.PORT]
    segments = [h for h in hops if h.kind is HopKind.PHYSICAL_SWITCH]
    if ports and segments:
        return f": {segments[-1].name} did not send them out of {ports[-1].name.split()[-1]}"
    names = [h.name for h in ports]
    return f" (lost between {names[0]} and {names[-1]})" if len(names) > 1 else \
        (f" (lost after {names[0]})" if names else "")


def _limit(p: Prediction) -> tuple[int | None, str]:
    """The largest IP packet an echo and its reply both get through, and where one byte more is dropped."""
    traces: list[Trace] = [t for t in (p.forward, p.reverse) if t.mtu is not None]
    if not p.verdict.delivered or not traces:
        return None, ""
    t = min(traces, key=lambda t: t.mtu or 0)
    return t.mtu, t.mtu_limit


def _target(p: Prediction, endpoint: Endpoint, family: int = 4) -> str:
    """The address of ``family`` the prediction's path ends at (the destination vNIC it chose; a destination
    NAT's outside address), else the endpoint's first."""
    if p.forward.entry is not None:
        return p.forward.entry[0]
    for hop in reversed(p.forward.hops):
        if hop.kind in (HopKind.VNIC, HopKind.HOST_NIC) and hop.object_id:
            try:
                return endpoint.address_in(family, hop.object_id)
            except (BackendError, KeyError, LookupError):
                continue
    return endpoint.address_in(family)


def _agrees(delta: dict[str, int], answered: list[tuple[_Probe, tuple[int, int]]]) -> bool:
    """Whether every pNIC carried what the batch's predicted paths add up to, within half the smallest burst."""
    expected: Counter[str] = Counter()
    smallest = None
    for probe, (sent, got) in answered:
        plan = probe.key[0]
        if not got:
            return False      # its request went somewhere unknown: judge the others apart from it
        size = probe.key[2] + ETHERNET_HEADER
        for pnic in plan.icmp.forward.pnics:
            expected[pnic] += sent * size
        for pnic in plan.icmp.reverse.pnics:
            expected[pnic] += got * size
        smallest = min(smallest or got, got)
    tolerance = SIZE_STEP * (smallest or 0) / 2
    return all(abs(delta.get(k, 0) - expected.get(k, 0)) < tolerance for k in set(delta) | set(expected))


def _names(index: Index, pnic_ids: Iterable[str]) -> tuple[str, ...]:
    out = []
    for pid in pnic_ids:
        obj = index.get(pid)
        host = index.parent(pid)
        name = f"{host.name}/{obj.name}" if host is not None and obj is not None else pid
        if name not in out:
            out.append(name)
    return tuple(out)


def _first_reason(p: Prediction) -> str:
    return (p.reasons[-1] if p.reasons else str(p.verdict)).rstrip(".")


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else "nothing"


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _crossings(delta: dict[str, int], burst_bytes: float) -> Counter[str]:
    """How many times each pNIC carried a burst of ``burst_bytes``: three quarters of one counts as one, so the
    late ICMP errors an earlier lost probe causes (at most 576 bytes each) never make a crossing."""
    return Counter({k: n for k, v in delta.items() if (n := int(v / burst_bytes + 0.25)) > 0})


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _has(cell: Cell, what: str) -> bool:
    return any(c.what == what for c in cell.checks)
