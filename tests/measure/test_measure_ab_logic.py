"""The shared A/B logic (``vnetbench.measure.ab``) without a lab: default labels, ratio, cancel before A."""

from __future__ import annotations

from vnetbench.backends import CancelToken
from vnetbench.measure import RunStore, TestSpec, Variant, default_labels, ratio, run_sides
from vnetbench.measure.result import Run


def test_default_labels_name_what_differs():
    a, b = Variant("", "lab.vnet.yaml", "web01", "web02"), Variant("", "lab.vnet.yaml", "web01", "app01")
    assert default_labels(a, b) == ("A web01->web02", "B web01->app01")
    assert default_labels(a, b, ((), ("fw01",)), arrow="→") == ("A web01→web02", "B via fw01")
    assert default_labels(a, b, (("fw01",), ("fw01",))) == ("A web01->web02", "B web01->app01")
    other = Variant("", "/x/e1000.vnet.yaml", "web01", "web02")
    assert default_labels(a, other) == ("A lab.vnet.yaml", "B e1000.vnet.yaml")


def _run(kind: str, summary: dict) -> Run:
    return Run(spec=TestSpec(kind), src="a", dst="b", src_name="a", dst_name="b", tool="x", commands=[],
               samples=[], summary=summary, started=0.0, ended=1.0)


def test_ratio_is_b_over_a_of_the_headlines():
    assert ratio(_run("rr", {"rtt_p50_us": 20.0}), _run("rr", {"rtt_p50_us": 30.0})) == 1.5
    assert ratio(_run("throughput", {"throughput_mbps": 900.0}), _run("throughput", {})) is None
    assert ratio(_run("pps", {"pps": 0}), _run("pps", {"pps": 10.0})) is None


def test_a_scenario_cancelled_before_a_runs_nothing(tmp_path):
    token = CancelToken()
    token.cancel()
    store = RunStore(tmp_path / "runs.sqlite")
    sides = [object(), object()]  # never touched: the cancel check comes first
    assert run_sides(TestSpec("rr"), sides, store=store, cancel=token) == []  # type: ignore[arg-type]
    assert store.list() == []
