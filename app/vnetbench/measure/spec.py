"""What a measurement is: the test kind and its parameters, checked before anything starts.

The kinds follow the seeds' experiments (shared/seeds/): bulk throughput with iperf3 (seed 004), a
netperf-style message-size sweep (seed 000's tables), a TCP_RR-style 1024/1024 round trip (seed 002) and a
small-packet rate (seed 001). A spec is plain data so it can be stored with the run and repeated exactly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any

from ..model.families import Family


class TestKind(StrEnum):
    """The kinds of test: each names its probe tool and the unit of its headline figure."""

    __test__ = False  # not a pytest test class

    THROUGHPUT = "throughput"
    SWEEP = "sweep"
    RR = "rr"
    PPS = "pps"

    @property
    def tool(self) -> str:
        """The probe program that runs this kind of test."""
        return "sockperf" if self is TestKind.RR else "iperf3"

    @property
    def unit(self) -> str:
        """The unit of this kind's headline figure."""
        return {"throughput": "Mbit/s", "sweep": "Mbit/s", "rr": "us", "pps": "pps"}[self.value]


#: netperf's range test sizes (bytes per write), as in seed 000's throughput-versus-size tables.
SWEEP_SIZES: tuple[int, ...] = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536)


class SpecError(ValueError):
    """A parameter that cannot work; the message names the field and the fix."""


@dataclass(frozen=True)
class TestSpec:
    """One test between a source and a destination endpoint.

    ``duration`` is seconds per run (per message size in a sweep). ``reverse`` makes the destination send
    (the connection is still opened by the source, as the prediction assumes). ``protocol`` and
    ``udp_rate_mbps`` apply to throughput; ``message_size`` to rr; ``payload`` to pps; ``sizes`` to sweep.
    ``cpu`` is the CPU both ends of a round-trip test are pinned to: unpinned runs add wake-up noise.
    ``family``: the address family the test runs over (4 or 6), stored with the run.
    """

    kind: TestKind
    duration: float = 5.0
    protocol: str = "tcp"
    streams: int = 1
    reverse: bool = False
    udp_rate_mbps: float = 100.0
    message_size: int = 1024
    payload: int = 64
    sizes: tuple[int, ...] = SWEEP_SIZES
    cpu: int | None = 0
    family: Family = 4
    __test__ = False  # not a pytest test class

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", TestKind(self.kind))
        object.__setattr__(self, "sizes", tuple(int(s) for s in self.sizes))

    def check(self) -> None:
        """Raise ``SpecError`` for the first parameter that cannot work."""
        if not 0.5 <= self.duration <= 3600:
            raise SpecError(f"duration {self.duration} s is out of range: use 0.5 to 3600 seconds")
        if self.protocol not in ("tcp", "udp"):
            raise SpecError(f"protocol {self.protocol!r} is unknown: use tcp or udp")
        if not 1 <= self.streams <= 128:
            raise SpecError(f"streams {self.streams} is out of range: use 1 to 128 parallel streams")
        if self.udp_rate_mbps <= 0:
            raise SpecError("udp_rate_mbps must be above 0 (the UDP send rate in Mbit/s)")
        if not 14 <= self.message_size <= 65000:
            raise SpecError(f"message_size {self.message_size} is out of range: sockperf needs 14 to 65000 bytes")
        if not 16 <= self.payload <= 1472:
            raise SpecError(f"payload {self.payload} is out of range: iperf3 UDP needs 16 to 1472 bytes")
        if not self.sizes or any(not 1 <= s <= 1048576 for s in self.sizes):
            raise SpecError("sizes must list message sizes from 1 to 1048576 bytes")
        if self.family not in (4, 6):
            raise SpecError(f"family {self.family} is unknown: use 4 (IPv4) or 6 (IPv6)")
        if self.cpu is not None and self.cpu < 0:
            raise SpecError(f"cpu {self.cpu} is not a CPU number: use 0 or above, or leave it unset")

    @property
    def total_seconds(self) -> float:
        """How long the probes run (for progress bars), setup excluded."""
        return self.duration * (len(self.sizes) if self.kind is TestKind.SWEEP else 1)

    @property
    def proto(self) -> str:
        """The transport the test's traffic uses (what a firewall rule sees)."""
        if self.kind is TestKind.PPS:
            return "udp"
        if self.kind is TestKind.THROUGHPUT:
            return self.protocol
        return "tcp"

    def label(self) -> str:
        """The test in words, as run titles and reports show it."""
        if self.kind is TestKind.THROUGHPUT:
            what = f"{self.protocol.upper()} throughput"
            if self.protocol == "udp":
                what += f" at {self.udp_rate_mbps:g} Mbit/s"
            if self.streams > 1:
                what += f", {self.streams} streams"
        elif self.kind is TestKind.SWEEP:
            what = f"size sweep {self.sizes[0]}-{self.sizes[-1]} B"
        elif self.kind is TestKind.RR:
            what = f"TCP round trip {self.message_size}/{self.message_size} B"
        else:
            what = f"UDP {self.payload} B packet rate"
        return what + (", reverse" if self.reverse else "") + (", IPv6" if self.family == 6 else "") + \
            f", {self.duration:g} s"

    def to_dict(self) -> dict[str, Any]:
        """As plain data for run files and the store."""
        data = asdict(self)
        data["kind"] = self.kind.value
        data["sizes"] = list(self.sizes)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestSpec:
        """From plain data; an unknown or bad parameter is a ``SpecError`` naming it."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SpecError(f"unknown test parameter(s) {', '.join(unknown)}: known are {', '.join(sorted(known))}")
        if "kind" not in data:
            raise SpecError("kind is missing: use one of " + ", ".join(k.value for k in TestKind))
        try:
            kind = TestKind(data["kind"])
        except ValueError:
            raise SpecError(f"kind {data['kind']!r} is unknown: use one of "
                            + ", ".join(k.value for k in TestKind)) from None
        return cls(**{**data, "kind": kind})


@dataclass(frozen=True)
class Variant:
    """One side of an A/B scenario: a design (file) and the pair in it, under a label ("vmxnet3", "via fw")."""

    label: str
    design: str
    src: str
    dst: str


@dataclass(frozen=True)
class Scenario:
    """The same test on two (or more) variants, run back to back so they share the machine's state."""

    spec: TestSpec
    variants: tuple[Variant, ...] = field(default_factory=tuple)

    def check(self) -> None:
        """``SpecError`` unless the scenario can run: a valid test and at least two distinct variants."""
        self.spec.check()
        if len(self.variants) < 2:
            raise SpecError("an A/B scenario needs at least two variants (designs or pairs) to compare")
        labels = [v.label for v in self.variants]
        if len(set(labels)) != len(labels):
            raise SpecError("variant labels must differ, so the results can be told apart")
