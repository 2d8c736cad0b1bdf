"""The data a measurement produces: live samples, the tool's summary, and the stored run around them.

A ``Run`` is self-describing (after flent's data files): with the spec, the pair, the prediction at the time,
the exact commands and the environment, a run read back months later still says what it measured. The
prediction is kept typed (``Predicted``: the answer of ``vnetbench.predict``, whose typed answers this room
reads, never the engine) and stored through its own lossless ``to_dict``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..predict.result import Estimate, Flow, Prediction, Trace, Verdict
from .spec import TestSpec


@dataclass(frozen=True)
class Sample:
    """One live point: ``t`` seconds since the test started, ``value`` in the test's unit.

    ``series`` separates curves within one run (the message size of a sweep step, "rtt", "throughput").
    """

    t: float
    value: float
    series: str = ""


class RunStatus:
    """How a run ended, as stored and shown."""

    OK = "ok"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass
class Measurement:
    """What the runner returns: samples, the tool's own final figures, and how it was obtained."""

    spec: TestSpec
    tool: str
    commands: list[str]
    samples: list[Sample]
    summary: dict[str, Any]
    started: float
    ended: float
    status: str = RunStatus.OK
    error: str = ""
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Predicted:
    """The prediction a run was measured against, which way the data flowed (``reverse``: from the destination
    back to the source), and the design facts that explain its figures (the pNIC speed a crossing path is
    capped by, the sender's vNIC type)."""

    prediction: Prediction
    reverse: bool = False
    pnic_cap_mbps: float | None = None
    sender_nic_type: str | None = None

    @property
    def verdict(self) -> Verdict:
        """The prediction's verdict for the direction the data flowed."""
        return self.prediction.verdict

    @property
    def trace(self) -> Trace:
        """The direction the data flowed."""
        return self.prediction.reverse if self.reverse else self.prediction.forward

    @property
    def estimate(self) -> Estimate:
        """The prediction's estimate for the direction the data flowed."""
        return self.trace.estimate

    def to_dict(self) -> dict[str, Any]:
        """Stored form; ``verdict`` is repeated on top for people and scripts reading run files."""
        return {"verdict": str(self.verdict), "prediction": self.prediction.to_dict(), "reverse": self.reverse,
                "pnic_cap_mbps": self.pnic_cap_mbps, "sender_nic_type": self.sender_nic_type}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Predicted:
        """From stored form; runs saved before the full prediction was kept carry only its summary."""
        if "prediction" not in data:
            return cls.from_summary(data)
        return cls(Prediction.from_dict(data["prediction"]), bool(data.get("reverse")), data.get("pnic_cap_mbps"),
                   data.get("sender_nic_type"))

    @classmethod
    def from_summary(cls, data: dict[str, Any]) -> Predicted:
        """A run stored before predictions were kept whole held only a summary (verdict, the data direction's
        estimate, reasons): keep what it knew, with no hops."""
        estimate = Estimate(data.get("throughput_mbps"), data.get("latency_us"), data.get("bottleneck", ""),
                            data.get("source", ""))
        verdict = Verdict(data["verdict"])
        trace = Trace("", "", verdict, (), ("",) if data.get("crosses_pnic") else (), (), (), (),
                      tuple(data.get("reasons") or ()), estimate)
        return cls(Prediction(trace, trace, verdict, trace.reasons, Flow("", "")), False, data.get("pnic_cap_mbps"),
                   data.get("sender_nic_type"))


@dataclass
class Run:
    """A measurement with its context, as stored. ``prediction`` is what was predicted at the time."""

    spec: TestSpec
    src: str
    dst: str
    src_name: str
    dst_name: str
    tool: str
    commands: list[str]
    samples: list[Sample]
    summary: dict[str, Any]
    started: float
    ended: float
    status: str = RunStatus.OK
    error: str = ""
    env: dict[str, str] = field(default_factory=dict)
    design_name: str = ""
    design_digest: str = ""
    backend: str = ""
    label: str = ""
    prediction: Predicted | None = None
    id: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.prediction, dict):  # as stored (or as written by an older vnetbench)
            self.prediction = Predicted.from_dict(self.prediction)

    @classmethod
    def from_measurement(cls, m: Measurement, **context: Any) -> Run:
        """A run to store from a measurement and its context (design, pair, prediction)."""
        return cls(spec=m.spec, tool=m.tool, commands=list(m.commands), samples=list(m.samples),
                   summary=dict(m.summary), started=m.started, ended=m.ended, status=m.status,
                   error=m.error, env=dict(m.env), **context)

    @property
    def title(self) -> str:
        """One line that names the run: id, pair, test and label."""
        name = f"#{self.id} " if self.id is not None else ""
        label = f" [{self.label}]" if self.label else ""
        return f"{name}{self.src_name} -> {self.dst_name}: {self.spec.label()}{label}"

    def headline(self) -> tuple[float | None, str]:
        """The one figure that sums up the run, and its unit."""
        return headline(self.spec, self.summary)

    def to_dict(self) -> dict[str, Any]:
        """As plain data for the store and exports."""
        data = asdict(self)
        data["spec"] = self.spec.to_dict()
        data["samples"] = [[s.t, s.value, s.series] for s in self.samples]
        data["prediction"] = self.prediction.to_dict() if self.prediction is not None else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Run:
        """From stored form."""
        data = dict(data)
        data["spec"] = TestSpec.from_dict(data["spec"])
        data["samples"] = [Sample(float(t), float(v), str(s)) for t, v, s in data.get("samples", [])]
        return cls(**data)


def headline(spec: TestSpec, summary: dict[str, Any]) -> tuple[float | None, str]:
    """The one figure a test kind is judged by, and its unit."""
    key = {"throughput": "throughput_mbps", "sweep": "peak_mbps", "rr": "rtt_p50_us", "pps": "pps"}[spec.kind.value]
    value = summary.get(key)
    return (float(value) if value is not None else None), spec.kind.unit


def summary_lines(spec: TestSpec, summary: dict[str, Any]) -> list[str]:
    """The tool's final figures in words, for the CLI and the GUI."""
    s = summary
    if spec.kind.value == "rr":
        return [f"round trip p50 {s['rtt_p50_us']:.1f} us, p90 {s['rtt_p90_us']:.1f}, p99 {s['rtt_p99_us']:.1f}, "
                f"p99.9 {s['rtt_p999_us']:.1f} (avg {s['rtt_avg_us']:.1f}, min {s['rtt_min_us']:.1f})",
                f"{s.get('transactions_per_s', 0):.0f} transactions/s, {spec.message_size}/{spec.message_size} B, "
                f"both ends on CPU {s.get('pinned_cpu', '-')}"]
    if spec.kind.value == "sweep":
        return [f"{p['size']:>6} B  {p['throughput_mbps']:10.1f} Mbit/s" for p in s["points"]]
    if spec.kind.value == "pps":
        return [f"{s['pps']:.0f} packets/s received ({s.get('sent_pps') or 0:.0f} sent, "
                f"{s.get('lost_percent', 0):g}% lost), {s.get('payload', spec.payload)} B payload"]
    line = f"{s['throughput_mbps']:.1f} Mbit/s received (sender {s['sender_mbps']:.1f}"
    if "retransmits" in s:
        line += f", {s['retransmits']} retransmits"
    if "lost_percent" in s:
        line += f", {s['lost_percent']:g}% lost, jitter {s['jitter_ms']} ms"
    return [line + ")"]
