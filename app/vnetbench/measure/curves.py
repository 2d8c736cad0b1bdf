"""What a run's chart shows, decided once for the exported charts and the measure dock alike.

A chart plots the figure the run's table reports, not whatever the probe printed while it ran:
- a message-size sweep is throughput against message size (log axis), as netperf and flent users read it,
  with the sizes and throughputs as a table beside it (seed 000's tables);
- a round trip is its p50 with a band up to its p99, the figures sockperf reports for the whole run (its live
  lines are per-interval means, far above the median when a few round trips stall);
- throughput and packet rate are their samples over time.
"""

from __future__ import annotations

from dataclasses import dataclass

from .result import Run
from .spec import TestKind

#: The round-trip figures a table shows, in order: (summary key, row label).
RR_ROWS = (("rtt_p50_us", "p50"), ("rtt_p90_us", "p90"), ("rtt_p99_us", "p99"), ("rtt_p999_us", "p99.9"),
           ("rtt_avg_us", "mean"), ("rtt_min_us", "min"))


@dataclass(frozen=True)
class Curve:
    """A line through ``points``; ``band`` (x, low, high) is shaded behind it and named ``band_name``."""

    name: str
    points: tuple[tuple[float, float], ...]
    band: tuple[tuple[float, float, float], ...] = ()
    band_name: str = ""


@dataclass(frozen=True)
class RunChart:
    """Axes, curves and the table beside them (``header`` then ``rows`` of a label and a value in ``y_unit``);
    ``estimate`` words the prediction's dashed line ("{}" is its figure)."""

    x_label: str
    x_unit: str
    y_label: str
    y_unit: str
    log_x: bool
    curves: tuple[Curve, ...]
    header: tuple[str, str] = ("", "")
    rows: tuple[tuple[str, float], ...] = ()
    estimate: str = "predicted {}"

    def y_max(self) -> float:
        """The top of the y axis: the highest point or band edge."""
        values = [y for c in self.curves for _, y in c.points] + [high for c in self.curves for _, _, high in c.band]
        return max(values, default=0.0)


def run_chart(run: Run) -> RunChart:
    """What to plot for a run: axes and curves, the same for the GUI and the exported charts."""
    kind = run.spec.kind
    points = run.summary.get("points") or []
    if kind is TestKind.SWEEP and points:
        pts = tuple((float(p["size"]), float(p["throughput_mbps"])) for p in points)
        return RunChart("message size", "bytes", "throughput", "Mbit/s", True, (Curve("throughput", pts),),
                        ("Size (bytes)", "Mbit/s"),
                        tuple((f"{int(x):,}", y) for x, y in pts))
    p50, p99 = run.summary.get("rtt_p50_us"), run.summary.get("rtt_p99_us")
    if kind is TestKind.RR and p50 is not None:
        end = max([s.t for s in run.samples], default=0.0) or run.spec.duration
        line = ((0.0, float(p50)), (end, float(p50)))
        band = ((0.0, float(p50), float(p99)), (end, float(p50), float(p99))) if p99 is not None else ()
        rows = tuple((label, float(run.summary[key])) for key, label in RR_ROWS if run.summary.get(key) is not None)
        return RunChart("time", "s", "round trip", "\u00b5s", False,
                        (Curve("p50", line, band, "p50 to p99" if band else ""),), ("Round trip", "\u00b5s"), rows,
                        "predicted: the path adds {} to a round trip")
    series: dict[str, list[tuple[float, float]]] = {}
    for s in run.samples:
        series.setdefault(s.series, []).append((s.t, s.value))
    if kind is TestKind.RR:   # no summary (a failed or cancelled run): only the live figures exist
        return RunChart("time", "s", "round trip, per-interval mean", "\u00b5s", False,
                        tuple(Curve("per-interval mean", tuple(p)) for p in series.values()))
    unit = kind.unit
    return RunChart("time", "s", "packet rate" if kind is TestKind.PPS else "throughput", unit, False,
                    tuple(Curve(name, tuple(p)) for name, p in series.items()))
