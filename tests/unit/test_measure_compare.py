"""Predicted versus measured: figures beside estimates, contradictions, and measured calibration profiles."""

from __future__ import annotations

import pytest
import yaml

from vnetbench.measure import Run, RunStatus, TestSpec, compare, save_calibration
from vnetbench.measure.compare import CalibrationWriteError
from vnetbench.measure.context import design_digest, pnic_cap_mbps, snapshot
from vnetbench.model import loads
from vnetbench.predict.calibration import load_profile
from vnetbench.predict.result import Estimate, Flow, Prediction, Trace, Verdict


def run(verdict: str | None, kind: str = "throughput", status: str = RunStatus.OK, estimate: float | None = 920.0,
        **summary) -> Run:
    spec = TestSpec(kind, duration=1)
    prediction = None if verdict is None else {
        "verdict": verdict, "throughput_mbps": estimate, "latency_us": 12.0, "pnic_cap_mbps": 1000.0,
        "sender_nic_type": "vmxnet3", "source": "published"}
    return Run(spec=spec, src="a", dst="b", src_name="a", dst_name="b", tool=spec.kind.tool, commands=[],
               samples=[], summary=summary, started=1.0, ended=2.0, status=status, prediction=prediction, id=7)


def kinds(c):
    return [f.severity for f in c.flags]


def test_crossing_pair_near_its_estimate_has_no_flags():
    c = compare(run("via-physical", throughput_mbps=930.0))
    assert c.flags == () and c.ratio == pytest.approx(930 / 920)
    assert c.lines()[0] == "throughput: measured 930 Mbit/s; predicted via-physical, estimate 920 Mbit/s (1.01x)"


def test_in_host_pair_at_the_pnic_cap_is_a_contradiction():
    c = compare(run("in-host", estimate=20900.0, throughput_mbps=945.0))
    assert "contradiction" in kinds(c) and c.contradicts
    assert "pNIC cap" in c.flags[0].message
    # well above the cap: consistent with staying in the host
    assert not compare(run("in-host", estimate=20900.0, throughput_mbps=18000.0)).contradicts


def test_crossing_pair_far_above_the_cap_is_a_contradiction():
    c = compare(run("routed-via-physical", throughput_mbps=9000.0))
    assert c.contradicts and "stay in the host" in c.flags[0].message


def test_unreachable_pair_that_connects_and_reachable_pair_that_fails():
    c = compare(run("unreachable", estimate=None, throughput_mbps=500.0))
    assert c.contradicts and "predicted unreachable, but the probe connected" in c.flags[0].message
    c = compare(run("in-host", status=RunStatus.FAILED, failure="refused"))
    assert c.contradicts and "refused" in c.flags[0].message
    assert not compare(run("blocked", status=RunStatus.FAILED, failure="timeout", estimate=None)).flags
    assert not compare(run("blocked", status=RunStatus.CANCELLED, estimate=None)).flags


def test_far_from_the_estimate_is_a_warning():
    c = compare(run("in-host", estimate=20900.0, throughput_mbps=5000.0))
    assert kinds(c) == ["warning"] and "0.24x" in c.flags[0].message


def test_round_trip_compares_with_twice_the_one_way_estimate():
    c = compare(run("in-host", kind="rr", rtt_p50_us=30.0))
    assert c.measured == 30.0 and c.estimate == 24.0 and c.unit == "us" and not c.flags


def test_no_prediction_no_flags():
    c = compare(run(None, throughput_mbps=1.0))
    assert c.verdict is None and c.flags == () and c.ratio is None


def test_calibration_profile_from_measured_runs(tmp_path):
    in_host = run("in-host", estimate=20900.0, throughput_mbps=31000.0)
    crossing = run("via-physical", throughput_mbps=950.0)
    crossing.id = 8
    path = save_calibration([in_host, crossing, run("in-host", kind="rr", rtt_p50_us=9.0)], "my-lab",
                            folder=tmp_path)
    assert path == tmp_path / "my-lab.yaml"
    data = yaml.safe_load(path.read_text())
    assert data["name"] == "my-lab"
    assert data["vnic_mbps"]["vmxnet3"] == {"value": 31000.0, "source": "run-7"}
    assert data["vnic_mbps"]["e1000"]["source"] == "seed-004"  # the rest of the base profile is kept
    assert data["pnic_efficiency"] == {"value": 0.95, "source": "run-8"}
    assert set(data["sources"]) >= {"run-7", "run-8", "seed-000"}
    loaded = load_profile(str(path))
    assert loaded.vnic("vmxnet3") == 31000.0 and loaded.pnic_efficiency == 0.95


def test_calibration_needs_a_usable_run(tmp_path):
    with pytest.raises(CalibrationWriteError, match="none of the runs"):
        save_calibration([run("blocked", throughput_mbps=1.0)], "x", folder=tmp_path)
    with pytest.raises(CalibrationWriteError, match="plain file name"):
        save_calibration([run("in-host", throughput_mbps=1.0)], "../x", folder=tmp_path)


DESIGN = """
format_version: 1
id: d1
name: two hosts
hosts:
- {id: h1, name: esx01, pnics: [{id: p1, name: vmnic0, speed_mbps: 1000}, {id: p2, name: vmnic1, speed_mbps: 10000}]}
- {id: h2, name: esx02, pnics: [{id: p3, name: vmnic0, speed_mbps: 10000}]}
vms:
- {id: a, name: web01, host: h1, vnics: [{id: n1, name: eth0, type: e1000}]}
- {id: b, name: web02, host: h2, vnics: [{id: n2, name: eth0}]}
layout: {places: {a: {x: 1, y: 2}}}
"""


def test_snapshot_and_digest():
    topo = loads(DESIGN)
    assert pnic_cap_mbps(topo, "a", "b") == 1000.0 and pnic_cap_mbps(topo, "b") == 10000.0
    def trace(mbps: float, pnic: str) -> Trace:
        return Trace("a", "b", Verdict.VIA_PHYSICAL, (), (pnic,), (), (), (), ("leaves",),
                     Estimate(mbps, 10.0, "vmnic0", "published"))
    prediction = Prediction(trace(920.0, "p1"), trace(910.0, "p3"), Verdict.VIA_PHYSICAL, ("leaves",), Flow("a", "b"))
    s = snapshot(prediction, topo, "a", "b")
    assert s.estimate.throughput_mbps == 920.0 and s.sender_nic_type == "e1000" and s.trace.crosses_pnic
    assert s.prediction is prediction                          # kept whole, typed
    r = snapshot(prediction, topo, "a", "b", reverse=True)
    assert r.estimate.throughput_mbps == 910.0 and r.sender_nic_type == "vmxnet3"
    moved = loads(DESIGN.replace("x: 1, y: 2", "x: 50, y: 60"))
    assert design_digest(moved) == design_digest(topo)
    assert design_digest(loads(DESIGN.replace("speed_mbps: 1000}", "speed_mbps: 100}"))) != design_digest(topo)
