"""Estimates from a profile measured in rounds state their spread, and a packet-rate test has an estimate too:
a qemu sender's small-UDP rate for its attachment (tap + bridge, macvtap, raw AF_PACKET; seed 001)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnetbench.measure.compare import compare
from vnetbench.measure.context import make_run
from vnetbench.measure.result import Measurement
from vnetbench.measure.spec import TestKind, TestSpec
from vnetbench.model import load
from vnetbench.predict import predict
from vnetbench.predict.calibration import CalibrationError, load_profile
from vnetbench.predict.printer import estimate as estimate_text
from vnetbench.predict.result import Prediction

ROOT = Path(__file__).resolve().parents[2]
KVM = ROOT / "resources" / "examples" / "kvm-tap-macvtap.vnet.yaml"
ESX = ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"


def test_a_kvm_estimate_states_the_measured_rounds_and_the_senders_packet_rate():
    profile = load_profile("kvm-qemu-tcg")
    design = load(KVM)
    on_bridge = predict(design, "tap-a", "tap-b").forward.estimate
    assert on_bridge.spread_mbps == profile.vnic_spread("virtio")
    assert on_bridge.spread_mbps[0] <= on_bridge.throughput_mbps <= on_bridge.spread_mbps[1]
    assert (on_bridge.sender, on_bridge.packet_rate_pps) == ("tap_bridge", profile.packet_rate_pps["tap_bridge"])
    on_macvtap = predict(design, "raw-a", "tap-a").forward.estimate
    assert (on_macvtap.sender, on_macvtap.packet_rate_pps) == ("macvtap", profile.packet_rate_pps["macvtap"])
    assert on_macvtap.packet_rate_spread == profile.spreads["packet_rate_pps/macvtap"]
    text = estimate_text(predict(design, "tap-a", "tap-b").forward)
    low, high = on_bridge.spread_mbps
    assert f"measured rounds {low:,.0f}-{high:,.0f}" in text and "qemu guest on tap + bridge" in text


def test_figures_without_rounds_and_esxi_senders_claim_no_spread_and_no_packet_rate():
    est = predict(load(ESX), "web01", "db01").forward.estimate
    assert est.spread_mbps is None and est.packet_rate_pps is None and est.sender == ""
    assert "measured rounds" not in estimate_text(predict(load(ESX), "web01", "db01").forward)


def test_an_estimate_with_ranges_survives_a_stored_run():
    prediction = predict(load(KVM), "tap-a", "tap-b")
    again = Prediction.from_dict(prediction.to_dict())
    assert again.forward.estimate == prediction.forward.estimate


def test_a_packet_rate_run_is_compared_with_the_senders_figure():
    design = load(KVM)
    ids = {vm.name: vm.id for vm in design.vms}
    prediction = predict(design, "tap-a", "tap-b", proto="udp")
    measured = 0.5 * prediction.forward.estimate.packet_rate_pps
    run = make_run(Measurement(TestSpec(TestKind.PPS), "iperf3", [], [], {"pps": measured}, 1.0, 11.0),
                   design, ids["tap-a"], ids["tap-b"], prediction)
    comparison = compare(run)
    assert comparison.estimate == prediction.forward.estimate.packet_rate_pps
    assert comparison.measured == measured and comparison.ratio == pytest.approx(0.5)


def test_a_spread_that_is_not_two_numbers_is_refused_naming_the_figure(tmp_path):
    text = (ROOT / "resources" / "calibration" / "kvm-qemu-tcg.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("  vlance:\n    value: 117.8\n    spread:\n    - 100.6\n",
                                "  vlance:\n    value: 117.8\n    spread:\n    - fast\n"))
    with pytest.raises(CalibrationError, match=r"vnic_mbps: vlance: spread needs two numbers"):
        load_profile(str(bad))
