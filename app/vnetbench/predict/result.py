"""The typed answers of prediction: verdicts, hops, traces, predictions, matrix cells and what-if changes.

Plain frozen data (after pybatfish's Flow/Trace/Hop) so the CLI, the GUI, export, the measurement store and the
tests can print, compare and serialise them without knowing how the walk produced them. ``to_dict`` and
``from_dict`` round-trip losslessly; ``str(prediction)`` is the printed answer (``printer``).
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from .printer import render


class Verdict(StrEnum):
    """SEMANTICS.md section 5."""

    IN_HOST = "in-host"
    IN_HOST_ROUTED = "in-host-routed"
    VIA_PHYSICAL = "via-physical"
    ROUTED_VIA_PHYSICAL = "routed-via-physical"
    BLOCKED = "blocked"
    UNREACHABLE = "unreachable"

    @property
    def delivered(self) -> bool:
        """Whether the traffic gets there (every verdict but blocked and unreachable)."""
        return self not in (Verdict.BLOCKED, Verdict.UNREACHABLE)


#: Verdicts in a fixed order; ``Matrix`` stores their index in one byte per class pair.
VERDICTS: tuple[Verdict, ...] = tuple(Verdict)


class HopKind(StrEnum):
    """What a hop is (the model object it stands for, or the role it plays)."""

    VNIC = "vnic"
    HOST_NIC = "host_nic"
    PORTGROUP = "portgroup"
    SWITCH = "switch"                    # a virtual switch instance (one segment of it)
    EMBEDDED_SWITCH = "embedded_switch"  # a pNIC's own switch between its SR-IOV virtual functions
    PNIC = "pnic"
    PORT = "port"                        # a physical switch port
    PHYSICAL_SWITCH = "physical_switch"
    OVERLAY = "overlay"                  # an NSX tunnel between hosts
    ROUTER_INTERFACE = "router_interface"
    ROUTER = "router"
    FIREWALL = "firewall"
    DLR = "dlr"
    NAT = "nat"


@dataclass(frozen=True)
class Hop:
    """One step of a path, in order; ``object_id`` lets the canvas highlight the model object."""

    kind: HopKind
    object_id: str | None
    name: str
    detail: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Hop:
        """A hop read back from ``to_dict``'s data (stored predictions)."""
        return cls(HopKind(data["kind"]), data["object_id"], data["name"], data.get("detail", ""))


class StepKind(StrEnum):
    """What a decision on the way was."""

    FILTER = "filter"    # a firewall judged the packet by its rules, or let a reply pass on the connection's state
    ROUTE = "route"      # a gateway routed the packet, or received it (addressed to itself)


@dataclass(frozen=True)
class FilterDetail:
    """A firewall's decision. ``firewall``: "routed" (a gateway), "bridged" (a VM joining segments at L2) or
    "dfw" (the NSX DFW at a vNIC, ``at`` "out" of the source or "in" to the destination). ``rule``: the rule
    that decided (1-based, as the words count it), None when no rule matched and ``default_policy`` decided,
    or when a reply passed ``on_state``."""

    firewall: str
    permitted: bool
    rule: int | None = None
    rule_words: str = ""
    default_policy: str = ""
    on_state: bool = False
    at: str = ""


@dataclass(frozen=True)
class RouteDetail:
    """A gateway's decision: the interfaces (ids) the packet came in and goes out by, the next hop and the
    static route (prefix) that chose it, or ``received`` when it was addressed to the gateway itself."""

    in_interface: str | None
    out_interface: str | None
    next_hop: str | None = None
    route: str | None = None
    received: bool = False


@dataclass(frozen=True)
class Step:
    """One decision of a direction, in order, as data (after pybatfish's ``Step`` and its ``*StepDetail``):
    who decided (``object_id``, ``name``) and the typed detail. The words of the reasons are made from the
    walk's data; nothing reads them back."""

    kind: StepKind
    object_id: str | None
    name: str
    detail: FilterDetail | RouteDetail

    def to_dict(self) -> dict[str, Any]:
        """The step as JSON-ready data."""
        return {"kind": str(self.kind), "object_id": self.object_id, "name": self.name, "detail": asdict(self.detail)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Step:
        """A step read back from ``to_dict``'s data."""
        kind = StepKind(data["kind"])
        detail = (FilterDetail if kind is StepKind.FILTER else RouteDetail)(**data["detail"])
        return cls(kind, data["object_id"], data["name"], detail)


@dataclass(frozen=True)
class Estimate:
    """What one direction probably carries: throughput, latency, packet rate, the bottleneck and the sources."""

    throughput_mbps: float | None
    latency_us: float | None
    bottleneck: str
    source: str
    #: the lowest and highest measured round of the bottleneck's figure, where the profile measured rounds
    spread_mbps: tuple[float, float] | None = None
    #: small-UDP packets/s the sender's attachment reaches (a qemu guest: tap + bridge, macvtap, raw AF_PACKET)
    packet_rate_pps: float | None = None
    packet_rate_spread: tuple[float, float] | None = None
    sender: str = ""   # which attachment that rate is for
    #: the id of the hop that is the bottleneck (``bottleneck`` is its words), None where no hop has an id
    bottleneck_id: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Estimate:
        """The estimate ``asdict`` wrote (JSON keeps the ranges as lists)."""
        ranges = {k: tuple(data[k]) for k in ("spread_mbps", "packet_rate_spread") if data.get(k) is not None}
        return cls(**{**data, **ranges})


@dataclass(frozen=True)
class Flow:
    """What was asked: from ``src`` to ``dst`` (endpoint ids, with the names a person knows them by), with
    ``proto`` and destination ``port`` (None: any conversation, both directions)."""

    src: str
    dst: str
    proto: str | None = None
    port: int | None = None
    src_name: str = ""
    dst_name: str = ""

    @property
    def one_way(self) -> bool:
        """UDP takes the forward direction alone; a conversation (ICMP echo too) needs both (``decide.conversation_of``)."""
        from .decide import conversation_of

        return not conversation_of(self.proto)

    def __str__(self) -> str:
        what = f" {self.proto}" + (f"/{self.port}" if self.port is not None else "") if self.proto else ""
        return f"{self.src_name or self.src} -> {self.dst_name or self.dst}{what}"


@dataclass(frozen=True)
class Trace:
    """One direction of a flow. ``mtu`` is the largest IP packet that gets through (delivered only) and
    ``mtu_limit`` where a packet one byte larger is dropped."""

    src: str
    dst: str
    verdict: Verdict
    hops: tuple[Hop, ...]
    pnics: tuple[str, ...]
    routed_by: tuple[str, ...]
    rules: tuple[str, ...]
    segments: tuple[str, ...]
    reasons: tuple[str, ...]
    estimate: Estimate
    mtu: int | None = None
    mtu_limit: str = ""
    steps: tuple[Step, ...] = ()
    refused: bool = False       # blocked by a reject: the sender got a TCP RST or an ICMP unreachable
    entry: tuple[str, int | None] | None = None   # the outside address (and port) a DNAT published it at

    @property
    def crosses_pnic(self) -> bool:
        """Whether the direction leaves a host through a pNIC."""
        return bool(self.pnics)

    @property
    def routed(self) -> bool:
        """Whether a gateway routed the direction."""
        return bool(self.routed_by)

    def to_dict(self) -> dict[str, Any]:
        """The trace as JSON-ready data."""
        data = asdict(self)
        data["verdict"] = str(self.verdict)
        data["hops"] = [{**h, "kind": str(h["kind"])} for h in data["hops"]]
        data["steps"] = [step.to_dict() for step in self.steps]
        data["crosses_pnic"] = self.crosses_pnic
        data["routed"] = self.routed
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        """A trace read back from ``to_dict``'s data (older files without steps too)."""
        return cls(data["src"], data["dst"], Verdict(data["verdict"]), tuple(Hop.from_dict(h) for h in data["hops"]),
                   tuple(data["pnics"]), tuple(data["routed_by"]), tuple(data["rules"]), tuple(data["segments"]),
                   tuple(data["reasons"]), Estimate.from_dict(data["estimate"]), data.get("mtu"), data.get("mtu_limit", ""),
                   tuple(Step.from_dict(s) for s in data.get("steps", ())), data.get("refused", False))


@dataclass(frozen=True)
class UplinkOutcome:
    """The flow's answer when teaming puts an endpoint's vNIC on ``uplink`` (a pNIC, named host/pNIC)."""

    vnic: str
    uplink: str
    verdict: Verdict
    reason: str = ""


@dataclass(frozen=True)
class Prediction:
    """Both directions of ``flow``; ``verdict`` is the answer for the flow (a conversation needs both).

    ``uplinks`` holds the answer per uplink where teaming lets the platform choose an endpoint's uplink (only
    for a pair asked with its explanation); when they differ, ``verdict`` is the worst of them."""

    forward: Trace
    reverse: Trace
    verdict: Verdict
    reasons: tuple[str, ...]
    flow: Flow
    uplinks: tuple[UplinkOutcome, ...] = ()

    @property
    def depends_on_uplink(self) -> bool:
        """Whether the answer depends on the uplink the platform chooses (the outcomes per uplink differ)."""
        return len({o.verdict for o in self.uplinks}) > 1

    @property
    def refused(self) -> bool:
        """Whether a blocked flow fails at once (a firewall rejected the forward packet: the sender gets a TCP
        RST or an ICMP unreachable) rather than by a timeout (dropped, or the reply never came back)."""
        return self.verdict is Verdict.BLOCKED and self.forward.verdict is Verdict.BLOCKED and self.forward.refused

    @property
    def mtu(self) -> tuple[int | None, str]:
        """The largest IP packet the flow gets through, and where one byte more is dropped: the forward
        direction's for one-way protocols, the smaller of both for a conversation (None: not delivered)."""
        if not self.verdict.delivered:
            return None, ""
        traces = [self.forward] if self.flow.one_way else [self.forward, self.reverse]
        limits = [(t.mtu, t.mtu_limit) for t in traces if t.mtu is not None]
        return min(limits, key=lambda m: m[0]) if limits else (None, "")

    def to_dict(self) -> dict[str, Any]:
        """The prediction as JSON-ready data (the CLI's --json and the run store)."""
        return {
            "src": self.forward.src,
            "dst": self.forward.dst,
            "verdict": str(self.verdict),
            "reasons": list(self.reasons),
            "flow": asdict(self.flow),
            "forward": self.forward.to_dict(),
            "reverse": self.reverse.to_dict(),
        } | ({"uplinks": [{**asdict(o), "verdict": str(o.verdict)} for o in self.uplinks]} if self.uplinks else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Prediction:
        """A prediction read back from ``to_dict``'s data."""
        flow = data.get("flow") or {"src": data["src"], "dst": data["dst"]}
        return cls(Trace.from_dict(data["forward"]), Trace.from_dict(data["reverse"]), Verdict(data["verdict"]),
                   tuple(data["reasons"]), Flow(**flow),
                   tuple(UplinkOutcome(o["vnic"], o["uplink"], Verdict(o["verdict"]), o.get("reason", ""))
                         for o in data.get("uplinks", ())))

    def __str__(self) -> str:
        return render(self)

    def to_records(self) -> list[dict[str, Any]]:
        """Every hop of both directions as one flat row (a table for pandas or a spreadsheet)."""
        return [{"direction": direction, "step": step, "kind": str(hop.kind), "name": hop.name,
                 "object_id": hop.object_id, "detail": hop.detail, "verdict": str(trace.verdict)}
                for direction, trace in (("forward", self.forward), ("reverse", self.reverse))
                for step, hop in enumerate(trace.hops, 1)]

    def _repr_html_(self) -> str:
        """How a notebook shows a prediction: the verdict, the reasons, the hops. Names are the design's own
        text, so every one is escaped (a VM called ``<script>`` is shown, never run)."""
        e = html.escape
        rows = "".join(f"<tr><td>{r['direction']}</td><td>{r['step']}</td><td>{e(r['kind'])}</td>"
                       f"<td>{e(r['name'])}</td><td>{e(r['detail'])}</td></tr>" for r in self.to_records())
        reasons = "".join(f"<li>{e(reason)}</li>" for reason in self.reasons)
        return (f"<div><b>{e(str(self.flow))}</b>: {e(str(self.verdict))}<ul>{reasons}</ul>"
                "<table><thead><tr><th>direction</th><th>step</th><th>kind</th><th>name</th><th>detail</th>"
                f"</tr></thead><tbody>{rows}</tbody></table></div>")


@dataclass(frozen=True)
class PairChange:
    """A pair whose verdict, path or estimate differs between two designs; ``what`` says how."""

    src: str
    dst: str
    before: Verdict | None
    after: Verdict | None
    what: tuple[str, ...]

    def to_dict(self) -> dict:
        """The change of one pair as JSON-ready data."""
        return {"src": self.src, "dst": self.dst,
                "before": str(self.before) if self.before else None,
                "after": str(self.after) if self.after else None,
                "what": list(self.what)}
