"""A stored run holds the typed prediction it was measured against, whole, through the store and its export."""

from __future__ import annotations

from vnetbench.measure.context import make_run
from vnetbench.measure.result import Measurement, Predicted, Run, Sample
from vnetbench.measure.spec import TestKind, TestSpec
from vnetbench.measure.store import RunStore, from_json, to_json
from vnetbench.model import load
from vnetbench.predict import Engine, Prediction
from vnetbench import resources_dir

FOUR = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"


def test_a_stored_run_gives_back_the_prediction_it_was_measured_against(tmp_path):
    design = load(FOUR)
    prediction = Engine(design).predict("web01", "db01", "tcp", 5201)
    m = Measurement(TestSpec(TestKind.THROUGHPUT), "iperf3", ["iperf3 -c db01"], [Sample(0.5, 900.0)],
                    {"throughput_mbps": 900.0, "sender_mbps": 905.0}, 1.0, 2.0)
    run = make_run(m, design, "vm-web01", "vm-db01", prediction)
    assert isinstance(run.prediction, Predicted) and run.prediction.prediction is prediction
    store = RunStore(tmp_path / "runs.sqlite")
    back = store.get(store.add(run))
    assert isinstance(back.prediction.prediction, Prediction) and back.prediction.prediction == prediction
    assert back.prediction.estimate.bottleneck == "esx01/vmnic0" and back.prediction.pnic_cap_mbps == 1000.0
    again = from_json(to_json(back), tmp_path / "run.json")
    assert again.prediction == back.prediction


def test_a_run_stored_with_only_a_summary_still_reads():
    old = {"verdict": "via-physical", "throughput_mbps": 920.0, "latency_us": 20.0, "pnic_cap_mbps": 1000.0,
           "crosses_pnic": True, "reasons": ["leaves"]}
    run = Run(TestSpec(TestKind.THROUGHPUT), "a", "b", "a", "b", "iperf3", [], [], {}, 1.0, 2.0, prediction=old)
    assert run.prediction.verdict == "via-physical" and run.prediction.estimate.throughput_mbps == 920.0
    assert run.prediction.trace.crosses_pnic and run.prediction.pnic_cap_mbps == 1000.0
    assert Run.from_dict(run.to_dict()).prediction == run.prediction
