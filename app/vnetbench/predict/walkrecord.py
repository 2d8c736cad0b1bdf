"""What a walk collects: one L2 leg (``Leg``), one direction so far (``Walk``), and the typed steps and MTU limits
they record on the way."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import decide
from .events import Event
from .network import Point
from .result import VERDICTS, FilterDetail, Hop, Step, StepKind, Verdict
from .rules import Decision, Party

if TYPE_CHECKING:
    from .dnat import Via


@dataclass
class Leg:
    """L2 delivery between two segments."""

    ok: bool
    code: int = 0                       # 0 none, IN_HOST, PHYSICAL
    blocked: bool = False
    refused: bool = False               # blocked by a reject: the sender gets an answer
    hops: list[Hop] = field(default_factory=list)
    pnics: list[str] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    stateful: list[str] = field(default_factory=list)
    capacity: list[tuple] = field(default_factory=list)   # (Mbit/s, what, measured range or None, its hop's id)
    sender: str = ""                # the source's attachment, for the packet-rate estimate
    limits: list[tuple[int, str]] = field(default_factory=list)   # MTUs on the way, in order, with their words
    latency: float = 0.0
    reason: str = ""
    path: list[int] = field(default_factory=list)          # the segments walked, for the explanation
    checks: dict[int, FilterDetail] = field(default_factory=dict)   # bridge index -> how it passed
    steps: list[Step] = field(default_factory=list)


@dataclass
class Walk:
    """What one direction collected so far."""

    src: str
    dst: str
    hops: list[Hop] = field(default_factory=list)
    pnics: list[str] = field(default_factory=list)
    routed_by: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    stateful: list[str] = field(default_factory=list)
    capacity: list[tuple] = field(default_factory=list)   # (Mbit/s, what, measured range or None, its hop's id)
    sender: str = ""                # the source's attachment, for the packet-rate estimate
    limits: list[tuple[int, str]] = field(default_factory=list)
    latency: float = 0.0
    delivered: bool = False
    blocked: bool = False
    refused: bool = False               # blocked by a reject (``decide.refuses``): the sender gets an answer
    nat: bool = False
    source: Party | None = None         # the packet's source once a source NAT on the way translated it
    via: Via | None = None              # the DNAT rule the packet reaches its destination through, if any
    steps: list[Step] = field(default_factory=list)
    events: list[Event] | None = None   # the walk's decisions, recorded only to explain a single pair

    def note(self, event: Event) -> None:
        """Record one decision, when the walk is explained."""
        if self.events is not None:
            self.events.append(event)

    def add_leg(self, leg: Leg) -> None:
        """Take what one L2 leg collected."""
        self.hops += leg.hops
        self.pnics += leg.pnics
        self.segments += [s for s in leg.segments if not self.segments or self.segments[-1] != s]
        self.rules += leg.rules
        self.stateful += leg.stateful
        self.capacity += leg.capacity
        self.limits += leg.limits
        self.latency += leg.latency
        self.steps += leg.steps

    @property
    def code(self) -> int:
        """The direction's verdict code (``decide.direction_code``)."""
        return int(decide.direction_code(self.delivered, self.blocked, bool(self.pnics), bool(self.routed_by)))

    @property
    def verdict(self) -> Verdict:
        """The direction's verdict."""
        return VERDICTS[self.code]


def filtered(steps: list[Step], owner: str, name: str, firewall: str, decision: Decision | None,
              at: str = "") -> FilterDetail:
    """Record a firewall's decision as a typed step (``decision`` None: a reply passed on the connection's
    state) and return its detail."""
    if decision is None:
        detail = FilterDetail(firewall, True, on_state=True, at=at)
    else:
        detail = FilterDetail(firewall, decision.allowed, None if decision.rule is None else decision.rule + 1,
                              decision.which if decision.rule is not None else "", str(decision.policy), at=at)
    steps.append(Step(StepKind.FILTER, owner, name, detail))
    return detail


def limit(mtu: int, where: str) -> tuple[int, str]:
    """A limit on the way: its MTU and the words for where it sits, naming the MTU (``Trace.mtu_limit``)."""
    return mtu, f"{where} (MTU {mtu})"


def mtu_of(point: Point) -> list[tuple[int, str]]:
    """The limit an interface's own MTU sets, if it has one."""
    return [limit(point.mtu, point.mtu_at or point.name)] if point.mtu is not None else []


def blocks(decision: Decision) -> str:
    """The verb for a firewall that blocks: it rejects (answers the sender) or drops (silently)."""
    return "rejects" if decide.refuses(decision.action) else "drops"
