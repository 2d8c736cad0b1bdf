"""The typed answers of prediction: verdicts, hops, traces, predictions, matrix cells and what-if changes.

Plain frozen data (after pybatfish's Flow/Trace/Hop) so the CLI, the GUI, export and the tests can print,
compare and serialise them without knowing how the walk produced them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum


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
        return self not in (Verdict.BLOCKED, Verdict.UNREACHABLE)


#: Verdicts in a fixed order; ``Matrix`` stores their index in one byte per class pair.
VERDICTS: tuple[Verdict, ...] = tuple(Verdict)


@dataclass(frozen=True)
class Hop:
    """One step of a path, in order; ``object_id`` lets the canvas highlight the model object."""

    kind: str
    object_id: str | None
    name: str
    detail: str = ""


@dataclass(frozen=True)
class Estimate:
    throughput_mbps: float | None
    latency_us: float | None
    bottleneck: str
    source: str


@dataclass(frozen=True)
class Trace:
    """One direction of a flow."""

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

    @property
    def crosses_pnic(self) -> bool:
        return bool(self.pnics)

    @property
    def routed(self) -> bool:
        return bool(self.routed_by)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["verdict"] = str(self.verdict)
        data["crosses_pnic"] = self.crosses_pnic
        data["routed"] = self.routed
        return data


@dataclass(frozen=True)
class Prediction:
    """Both directions for one pair; ``verdict`` is the answer for the flow (TCP needs both directions)."""

    forward: Trace
    reverse: Trace
    verdict: Verdict
    reasons: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "src": self.forward.src,
            "dst": self.forward.dst,
            "verdict": str(self.verdict),
            "reasons": list(self.reasons),
            "forward": self.forward.to_dict(),
            "reverse": self.reverse.to_dict(),
        }


@dataclass(frozen=True)
class PairChange:
    """A pair whose verdict, path or estimate differs between two designs; ``what`` says how."""

    src: str
    dst: str
    before: Verdict | None
    after: Verdict | None
    what: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"src": self.src, "dst": self.dst,
                "before": str(self.before) if self.before else None,
                "after": str(self.after) if self.after else None,
                "what": list(self.what)}
