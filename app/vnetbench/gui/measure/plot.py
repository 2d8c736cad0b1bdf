"""The measure dock's plot: a live curve growing at its true scale, or stored runs overlaid, with the estimate.

Stored runs are drawn as the exported charts draw them (``measure.curves``): a sweep as throughput against
message size, a round trip as its p50 with a band to its p99, each from a zero baseline. It never shrinks below
a readable size (``MIN_SIZE``): a test plot must be legible the moment a test starts.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt

from ...export.style import series_colors
from ...measure import Run, Sample, TestKind, TestSpec
from ...measure.curves import run_chart
from ...predict import Prediction

#: Curve colours for runs side by side (the live run is the first), as the exported charts colour them.
COLORS = series_colors(8)
#: The smallest plot that still shows both axes, a title and a curve one can read.
MIN_SIZE = (300, 180)


def legend_name(run: Run) -> str:
    """``#3 web01→db01``, with its label when it has one, naming the pair once: an A/B run's label
    (``A web01→db01``) already names it, so its entry reads ``#3 A web01→db01``."""
    pair = f"{run.src_name}→{run.dst_name}"
    if not run.label:
        return f"#{run.id} {pair}"
    return f"#{run.id} {run.label}" if pair in run.label else f"#{run.id} {pair} {run.label}"


class RunPlot(pg.PlotWidget):
    def __init__(self) -> None:
        super().__init__(background="w")
        self.setMinimumSize(*MIN_SIZE)
        self.showGrid(x=True, y=True, alpha=0.3)
        for side in ("bottom", "left"):  # ticks in the unit the label names: never "time (s) (x0.001)"
            self.getAxis(side).enableAutoSIPrefix(False)
        self.addLegend(offset=(-10, 10))
        self.live_curve: Any = None
        self.estimate: float | None = None

    def begin_live(self, spec: TestSpec, prediction: Prediction | None, title: str, color: str = COLORS[0]) -> None:
        """An empty curve over the run's whole time axis, with the predicted throughput as a dashed line."""
        self.clear()
        self.setLogMode(x=False, y=False)
        self.setLabel("bottom", "time", units="s")
        self.setLabel("left", spec.kind.unit)
        self.setTitle(title)
        self.setXRange(0, spec.total_seconds, padding=0.02)
        # a round trip's live figures are sockperf's per-interval means; the p50 and p99 the table reports are
        # only known at the end, when the stored run replaces this curve: the legend says which is which
        name = "per-interval mean (live; p50 and p99 at the end)" if spec.kind is TestKind.RR else "live"
        self.live_curve = self.plot([], [], pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5,
                                    symbolBrush=color, name=name)
        trace = None if prediction is None else prediction.reverse if spec.reverse else prediction.forward
        self.estimate = trace.estimate.throughput_mbps if trace is not None and spec.kind.unit == "Mbit/s" else None
        self.draw_estimate(self.estimate, str(prediction.verdict) if prediction is not None else "")

    def show_live(self, samples: list[Sample]) -> None:
        if self.live_curve is not None:
            self.live_curve.setData([s.t for s in samples], [s.value for s in samples])
            # a fixed time axis and a zero baseline: the curve grows left to right at its true scale
            self.setYRange(0, 1.15 * max([s.value for s in samples] + [self.estimate or 0]), padding=0)

    def show_failure(self, text: str) -> None:
        self.addItem(pg.TextItem(text, color="#c0392b"))

    def show_runs(self, runs: list[Run]) -> None:
        """Overlay runs drawn as ``run_chart`` says, one colour per run, in the first run's unit: sweeps alone
        against message size, else against time (a run that fits neither axis is counted in the title)."""
        self.clear()
        self.live_curve = None
        unit = runs[0].spec.kind.unit
        charts = [(r, run_chart(r)) for r in runs if r.spec.kind.unit == unit]
        log_x = all(c.log_x for _, c in charts)
        drawn = [(r, c) for r, c in charts if c.log_x == log_x]
        axis = drawn[0][1]
        self.setLogMode(x=log_x, y=False)
        self.setLabel("bottom", f"{axis.x_label} ({axis.x_unit})")   # no SI prefixes: "0.001 kbytes" is 1 byte
        self.setLabel("left", f"{axis.y_label} ({axis.y_unit})")
        skipped = len(runs) - len(drawn)
        title = "overlay of " + ", ".join(f"#{r.id}" for r, _ in drawn) if len(drawn) > 1 else drawn[0][0].title
        self.setTitle(title + (f" ({skipped} of other kinds not shown)" if skipped else ""))
        for (run, chart), color in zip(drawn, series_colors(len(drawn))):
            label = legend_name(run)
            for curve in chart.curves:
                if curve.band:
                    xs = [x for x, _, _ in curve.band]
                    shade = pg.mkColor(color)
                    shade.setAlphaF(0.2)
                    self.addItem(pg.FillBetweenItem(pg.PlotCurveItem(xs, [lo for _, lo, _ in curve.band]),
                                                    pg.PlotCurveItem(xs, [hi for _, _, hi in curve.band]), brush=shade))
                name = label + (f" {curve.name}, shaded {curve.band_name}" if curve.band else "")
                self.plot([x for x, _ in curve.points], [y for _, y in curve.points], pen=pg.mkPen(color, width=2),
                          symbol="o", symbolSize=5, symbolBrush=color, name=name)
        first = drawn[0][0]
        estimate = first.prediction.estimate.throughput_mbps \
            if len(drawn) == 1 and unit == "Mbit/s" and first.prediction is not None else None
        top = max([c.y_max() for _, c in drawn] + [estimate or 0.0])
        self.enableAutoRange(x=True)   # a live run fixed the axes; stored runs fit their own data
        self.setYRange(0, 1.1 * top or 1.0, padding=0)   # from zero, as the exported charts
        if estimate is not None:
            self.draw_estimate(estimate, str(first.prediction.verdict))

    def draw_estimate(self, estimate: float | None, verdict: str) -> None:
        """The prediction's throughput estimate as a dashed line, so the measurement is read against it."""
        if estimate is None:
            return
        line = pg.InfiniteLine(pos=estimate, angle=0, pen=pg.mkPen("#7f8c8d", width=1, style=Qt.PenStyle.DashLine),
                               label=f"predicted {verdict}: {estimate:.0f} Mbit/s",
                               labelOpts={"position": 0.02, "color": "#7f8c8d", "anchors": [(0, 1), (0, 1)]})
        self.addItem(line)
