"""Predicted versus measured: each result next to the verdict's estimate, and the contradictions flagged.

A contradiction means the prediction's *verdict* looks wrong, not just its numbers: a pair predicted to stay
in the host that runs at the pNIC's speed, a pair predicted to cross a pNIC that runs far above it, a pair
predicted unreachable or blocked that connects, a deliverable pair the probe cannot reach. A measured figure
far from the estimate is only a warning: the calibration is off, not the path, and a measured run can be
saved as a calibration profile (``save_calibration``) so later estimates use this machine's figures.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .. import resources_dir
from .result import Run, RunStatus
from .spec import TestKind
from .store import data_dir

IN_HOST = ("in-host", "in-host-routed")
CROSSING = ("via-physical", "routed-via-physical")
NOT_DELIVERED = ("blocked", "unreachable")
#: A crossing path measures at most this much above its pNIC before the verdict is in doubt.
ABOVE_CAP = 1.25
#: An in-host path measuring within this band of the pNIC speed looks like it left the host.
AT_CAP = (0.8, 1.1)
#: Measured/estimated throughput outside this range is flagged as far from the estimate.
FAR = (0.5, 2.0)


@dataclass(frozen=True)
class Flag:
    """Something a person should know about a measurement against its prediction."""

    severity: str  # "contradiction" or "warning"
    message: str


@dataclass(frozen=True)
class Comparison:
    """A run's figure against the prediction's estimate, with what contradicts it."""

    metric: str
    unit: str
    measured: float | None
    estimate: float | None
    verdict: str | None
    flags: tuple[Flag, ...]

    @property
    def ratio(self) -> float | None:
        """Measured over estimated, or None where there is nothing to compare."""
        if self.measured is None or not self.estimate:
            return None
        return self.measured / self.estimate

    @property
    def contradicts(self) -> bool:
        """The measurement says the prediction's verdict is wrong."""
        return any(f.severity == "contradiction" for f in self.flags)

    def to_dict(self) -> dict[str, Any]:
        """As plain data for ``--json`` and run exports."""
        return {"metric": self.metric, "unit": self.unit, "measured": self.measured, "estimate": self.estimate,
                "ratio": self.ratio, "verdict": self.verdict,
                "flags": [{"severity": f.severity, "message": f.message} for f in self.flags]}

    def figure(self) -> str:
        """The measurement beside the prediction's estimate, without the metric's name."""
        measured = f"{self.measured:.6g} {self.unit}" if self.measured is not None else "no result"
        estimate = f"{self.estimate:.6g} {self.unit}" if self.estimate is not None else "none"
        ratio = f" ({self.ratio:.2f}x)" if self.ratio is not None else ""
        return f"measured {measured}; predicted {self.verdict or 'nothing'}, estimate {estimate}{ratio}"

    def lines(self) -> list[str]:
        """What a person reads: the figure beside the estimate, then each flag."""
        return [f"{self.metric}: {self.figure()}", *(f"{f.severity.upper()}: {f.message}" for f in self.flags)]


def _symptom_flags(refused: bool, failure: str) -> list[Flag]:
    """A blocked flow fails as its firewall's action says: a reject is refused at once, a drop times out
    (the probe's server listens, so a refusal comes from the firewall)."""
    if refused and failure == "timeout":
        return [Flag("contradiction", "predicted blocked by a reject (refused at once), but the probe timed out: "
                                      "the firewall drops instead")]
    if not refused and failure == "refused":
        return [Flag("contradiction", "predicted blocked by a drop (a timeout), but the connection was refused at "
                                      "once: the firewall rejects instead")]
    return []


def _fmt(v: float) -> str:
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def compare(run: Run) -> Comparison:
    """Compare one run with the prediction it stored."""
    kind = run.spec.kind
    p = run.prediction
    verdict = str(p.verdict) if p is not None else None
    est = p.estimate if p is not None else None
    measured, unit = run.headline()
    metric = {"throughput": "throughput", "sweep": "peak throughput", "rr": "round trip p50",
              "pps": "packet rate"}[kind.value]
    estimate: float | None = None
    if kind in (TestKind.THROUGHPUT, TestKind.SWEEP) and est is not None:
        estimate = est.throughput_mbps
    elif kind is TestKind.PPS and est is not None:
        estimate = est.packet_rate_pps   # a qemu sender's attachment (seed 001), None where no figure applies
    elif kind is TestKind.RR and est is not None and est.latency_us is not None:
        estimate = 2 * float(est.latency_us)  # the estimate is the added one-way latency
        metric = "round trip p50 (estimate: added round trip only)"
    if run.status == RunStatus.CANCELLED:
        return Comparison(metric, unit, measured, estimate, verdict, ())
    flags: list[Flag] = []
    if verdict in NOT_DELIVERED and run.status == RunStatus.OK:
        flags.append(Flag("contradiction", f"predicted {verdict}, but the probe connected"
                                           + (f" and measured {_fmt(measured)} {unit}" if measured else "")))
    failure = run.summary.get("failure")
    if verdict and verdict not in NOT_DELIVERED and failure in ("refused", "no-route", "timeout"):
        flags.append(Flag("contradiction", f"predicted {verdict}, but the probe could not get through ({failure})"))
    if verdict == "blocked" and p is not None and failure in ("refused", "timeout"):
        flags += _symptom_flags(p.prediction.refused, failure)
    cap = p.pnic_cap_mbps if p is not None else None
    tcp_rate = kind is TestKind.THROUGHPUT and run.spec.protocol == "tcp" and run.status == RunStatus.OK
    if tcp_rate and measured is not None and cap:
        if verdict in IN_HOST and AT_CAP[0] * cap <= measured <= AT_CAP[1] * cap:
            flags.append(Flag("contradiction", f"predicted {verdict}, but it measures at the pNIC cap "
                                               f"({_fmt(measured)} of {_fmt(cap)} Mbit/s): the traffic seems to "
                                               "leave the host"))
        if verdict in CROSSING and measured > ABOVE_CAP * cap:
            flags.append(Flag("contradiction", f"predicted {verdict} across a {_fmt(cap)} Mbit/s pNIC, but it "
                                               f"measures {_fmt(measured)} Mbit/s: the traffic seems to stay in "
                                               "the host"))
    comparison = Comparison(metric, unit, measured, estimate, verdict, tuple(flags))
    ratio = comparison.ratio
    if kind is not TestKind.RR and ratio is not None and not FAR[0] <= ratio <= FAR[1] and run.status == RunStatus.OK:
        flags.append(Flag("warning", f"measured {ratio:.2f}x the estimate ({(est.source if est else None) or 'calibration'}); "
                                     "save a run as a calibration profile to sharpen estimates"))
        comparison = Comparison(metric, unit, measured, estimate, verdict, tuple(flags))
    return comparison


class CalibrationWriteError(ValueError):
    """A calibration profile cannot be written from these runs (bad name, no usable runs, the folder)."""

    pass


def save_calibration(runs: list[Run], name: str, base: str | Path | None = None,
                     folder: Path | None = None) -> Path:
    """Write a calibration profile from measured runs, with the same keys as ``resources/calibration``.

    It starts from ``base`` (default: the published profile) and replaces what the runs measured: in-host
    TCP throughput becomes the sender's vNIC figure, a crossing TCP run the pNIC efficiency. Each changed
    figure names the run it comes from. Returns the file's path (``<data dir>/calibration/<name>.yaml``).
    """
    if not name or any(c in name for c in "/\\:") or name.startswith("."):
        raise CalibrationWriteError(f"profile name {name!r} is not a plain file name: use letters, digits, - or _")
    base_path = Path(base) if base else resources_dir() / "calibration" / "published.yaml"
    try:
        profile = yaml.safe_load(base_path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise CalibrationWriteError(f"cannot read the base profile {base_path}: {exc}") from None
    profile["name"] = name
    profile["description"] = f"Measured by vnetbench on {time.strftime('%Y-%m-%d')}, based on {base_path.name}."
    sources = dict(profile.get("sources") or {})
    used = 0
    for run in runs:
        p = run.prediction
        measured, _ = run.headline()
        if (p is None or run.status != RunStatus.OK or run.spec.kind is not TestKind.THROUGHPUT
                or run.spec.protocol != "tcp" or measured is None):
            continue
        key = f"run-{run.id}" if run.id is not None else f"run-{int(run.started)}"
        if p.verdict in IN_HOST and p.sender_nic_type:
            profile.setdefault("vnic_mbps", {})[p.sender_nic_type] = {"value": round(measured, 1), "source": key}
        elif p.verdict in CROSSING and p.pnic_cap_mbps:
            profile["pnic_efficiency"] = {"value": round(measured / p.pnic_cap_mbps, 3), "source": key}
        else:
            continue
        used += 1
        sources[key] = (f"vnetbench {run.title}; {run.design_name}; {run.env.get('kernel', '')} "
                        f"{run.env.get('cpu', '')}; {run.env.get('tool_version', '')}").strip()
    if not used:
        raise CalibrationWriteError("none of the runs gives a calibration figure: use a finished TCP throughput "
                                    "run whose prediction was in-host or via-physical")
    profile["sources"] = sources
    out_dir = folder or data_dir() / "calibration"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.yaml"
    header = "# Calibration profile written by vnetbench from measured runs (same keys as published.yaml).\n"
    path.write_text(header + yaml.safe_dump(profile, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
