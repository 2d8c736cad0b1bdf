"""The measure dock's plot draws stored runs as the exported charts do (``measure.curves``): a sweep against
message size on a log axis, a round trip as its p50 with a shaded band to its p99, from a zero baseline, one
colour per run. No lab needed: the runs are made here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pyqtgraph as pg
import pytest

from vnetbench.gui.measure.plot import RunPlot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from test_export_charts import MBPS, RR, SIZES, rr_run, sweep_run  # noqa: E402  (the runs the charts test draws)

pytestmark = pytest.mark.gui
ARTIFACTS = Path(os.environ.get("VNETBENCH_ARTIFACTS", "test-artifacts"))


@pytest.fixture
def plot(qtbot) -> RunPlot:
    widget = RunPlot()
    qtbot.addWidget(widget)
    widget.resize(900, 420)
    return widget


def test_a_sweep_is_throughput_against_message_size(plot):
    plot.show_runs([sweep_run()])
    (curve,) = plot.getPlotItem().listDataItems()
    xs, ys = curve.xData, curve.yData   # as given (getData is log-transformed)
    assert list(xs) == [float(s) for s in SIZES] and list(ys) == list(MBPS)
    assert plot.getPlotItem().ctrl.logXCheck.isChecked()
    assert "message size (bytes)" in plot.getPlotItem().getAxis("bottom").labelText
    assert plot.getViewBox().viewRange()[1][0] == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert plot.grab().save(str(ARTIFACTS / "measure-plot-sweep.png"))


def test_round_trips_plot_their_p50_with_a_p99_band_in_colours_of_their_own(plot):
    runs = [rr_run(), rr_run()]
    runs[0].id, runs[1].id = 1, 2
    plot.show_runs(runs)
    curves = plot.getPlotItem().listDataItems()
    assert len(curves) == 2
    for curve in curves:
        assert set(curve.getData()[1]) == {RR["rtt_p50_us"]}
        assert "p50" in curve.name()
    bands = [item for item in plot.getPlotItem().items if isinstance(item, pg.FillBetweenItem)]
    assert len(bands) == 2
    assert {tuple(c.yData) for band in bands for c in (band.curves or [])} <= {(RR["rtt_p50_us"],) * 2,
                                                                              (RR["rtt_p99_us"],) * 2}
    assert curves[0].opts["pen"].color() != curves[1].opts["pen"].color()
    low, high = plot.getViewBox().viewRange()[1]
    assert low == 0 and RR["rtt_p99_us"] < high < 2 * RR["rtt_p99_us"]
    assert plot.grab().save(str(ARTIFACTS / "measure-plot-rr.png"))


def test_live_curves_say_what_they_are_and_throughput_starts_at_zero(plot):
    """Issue 29: a live round trip is sockperf's per-interval means, not the p50 the table reports, and the
    legend says so; a throughput of 950-980 Mbit/s is drawn from zero, so +-3% does not look like a collapse."""
    from vnetbench.measure import Sample, TestKind, TestSpec

    plot.begin_live(TestSpec(TestKind.RR), None, "rr (live)")
    assert "per-interval mean" in plot.live_curve.name() and "p50" in plot.live_curve.name()
    plot.begin_live(TestSpec(TestKind.THROUGHPUT), None, "throughput (live)")
    assert plot.live_curve.name() == "live"
    plot.show_live([Sample(0.5 * i, 950 + 30 * (i % 2)) for i in range(1, 8)])
    low, high = plot.getViewBox().viewRange()[1]
    assert low == 0 and 980 < high < 1.3 * 980
