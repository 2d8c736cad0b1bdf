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
