"""The measure dock's plot: a live curve growing at its true scale, or stored runs overlaid, with the estimate.

It never shrinks below a readable size (``MIN_SIZE``): a test plot must be legible the moment a test starts.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt

from ...measure import Run, Sample, TestKind, TestSpec
from ...predict import Prediction

#: Curve colours for overlaid runs (the live run is the first).
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
#: The smallest plot that still shows both axes, a title and a curve one can read.
MIN_SIZE = (300, 180)


class RunPlot(pg.PlotWidget):
    def __init__(self) -> None:
        super().__init__(background="w")
        self.setMinimumSize(*MIN_SIZE)
        self.showGrid(x=True, y=True, alpha=0.3)
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
        self.live_curve = self.plot([], [], pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5,
                                    symbolBrush=color, name="live")
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
        """Overlay runs: sweeps as throughput per message size, the others as their samples over time."""
        self.clear()
        self.live_curve = None
        unit = runs[0].spec.kind.unit
        shown = [r for r in runs if r.spec.kind.unit == unit]
        sweeps = all(r.spec.kind is TestKind.SWEEP and r.summary.get("points") for r in shown)
        self.setLogMode(x=sweeps, y=False)
        self.setLabel("bottom", "message size" if sweeps else "time", units="B" if sweeps else "s")
        self.setLabel("left", unit)
        skipped = len(runs) - len(shown)
        title = "overlay of " + ", ".join(f"#{r.id}" for r in shown) if len(shown) > 1 else shown[0].title
        self.setTitle(title + (f" ({skipped} in other units not shown)" if skipped else ""))
        for n, run in enumerate(shown):
            color = COLORS[n % len(COLORS)]
            if sweeps:
                xs = [p["size"] for p in run.summary["points"]]
                ys = [p["throughput_mbps"] for p in run.summary["points"]]
            else:
                xs, ys = [s.t for s in run.samples], [s.value for s in run.samples]
            label = f"#{run.id} {run.src_name}→{run.dst_name}" + (f" {run.label}" if run.label else "")
            self.plot(xs, ys, pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5, symbolBrush=color, name=label)
        self.enableAutoRange()  # a live run fixed the axes; stored runs fit their own data
        if len(shown) == 1 and unit == "Mbit/s":
            p = shown[0].prediction
            self.draw_estimate(p.estimate.throughput_mbps if p else None, str(p.verdict) if p else "")

    def draw_estimate(self, estimate: float | None, verdict: str) -> None:
        """The prediction's throughput estimate as a dashed line, so the measurement is read against it."""
        if estimate is None:
            return
        line = pg.InfiniteLine(pos=estimate, angle=0, pen=pg.mkPen("#7f8c8d", width=1, style=Qt.PenStyle.DashLine),
                               label=f"predicted {verdict}: {estimate:.0f} Mbit/s",
                               labelOpts={"position": 0.02, "color": "#7f8c8d", "anchors": [(0, 1), (0, 1)]})
        self.addItem(line)
