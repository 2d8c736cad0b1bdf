"""Estimates come from calibration profiles: bottleneck capacity along the hops and summed latency."""

from __future__ import annotations

import pytest
import yaml
from builders import Action, DfwRule, Design, esx_pair

from vnetbench import resources_dir
from vnetbench.predict import Engine
from vnetbench.predict.calibration import CalibrationError, load_profile


def test_published_profile_names_its_sources():
    cal = load_profile("published")
    assert cal.vnic("vmxnet3") == 20900 and cal.vnic("e1000") == 9240 and cal.vnic("vlance") == 335
    assert cal.pnic_efficiency == 0.92
    assert any("004_" in s for s in cal.sources.values())


def test_in_host_bottleneck_is_the_slowest_vnic():
    d, (h1, _), (s1, _), _ = esx_pair()
    pg = s1.portgroups[0]
    d.vm("a", h1, pg, "10.0.10.1/24", nic_type="vmxnet3")
    d.vm("b", h1, pg, "10.0.10.2/24", nic_type="vlance")
    est = d.predict("a", "b").forward.estimate
    assert est.throughput_mbps == 335
    assert est.bottleneck == "b/eth0 (vlance)"
    assert est.latency_us == load_profile().latency("switch")


def test_between_hosts_the_pnic_line_rate_bounds_any_vnic():
    d, (h1, h2), (s1, s2), _ = esx_pair()
    d.vm("a", h1, s1.portgroups[0], "10.0.10.1/24", nic_type="vmxnet3")
    d.vm("b", h2, s2.portgroups[0], "10.0.10.2/24", nic_type="e1000")
    est = d.predict("a", "b").forward.estimate
    assert est.throughput_mbps == pytest.approx(920)
    assert est.latency_us > load_profile().latency("pnic") * 2


def test_firewall_vm_with_emulated_drivers_caps_throughput():
    d, (h1, _), (s1, _), _ = esx_pair(vlans=(10, 20))
    pg10, pg20 = s1.portgroups
    fw = d.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")])
    d.vm("a", h1, pg10, "10.0.10.5/24", "10.0.10.254")
    d.vm("b", h1, pg20, "10.0.20.5/24", "10.0.20.254")
    assert d.predict("a", "b").forward.estimate.throughput_mbps == 20900  # vmxnet3 legs: as fast as direct
    for nic in fw.vnics:
        nic.type = "e1000"
    est = d.predict("a", "b").forward.estimate
    assert est.throughput_mbps == 130 and est.bottleneck == "fw1"


def test_dfw_adds_latency_per_vnic_check():
    d, (h1, _), (s1, _), _ = esx_pair()
    d.vm("a", h1, s1.portgroups[0], "10.0.10.1/24")
    d.vm("b", h1, s1.portgroups[0], "10.0.10.2/24")
    plain = d.predict("a", "b").forward.estimate.latency_us
    d.dfw([DfwRule(Action.ALLOW, name=f"r{i}") for i in range(100)])
    with_dfw = d.predict("a", "b").forward.estimate.latency_us
    assert with_dfw - plain == pytest.approx(2 * load_profile().latency("dfw_per_vnic"))


def test_blocked_and_unreachable_have_no_throughput():
    d = Design()
    h = d.host("esx1")
    d.vm("a", h, d.pg(d.switch(h, "vs0"), "p", 0), "10.0.0.1/24")
    d.vm("b", h, d.pg(d.switch(h, "vs1"), "p", 0), "10.0.0.2/24")
    est = d.predict("a", "b").forward.estimate
    assert est.throughput_mbps is None and est.latency_us is None


def test_a_profile_file_of_ones_own(tmp_path):
    data = yaml.safe_load((resources_dir() / "calibration" / "published.yaml").read_text())
    data["name"] = "measured-lab"
    data["vnic_mbps"]["vmxnet3"] = {"value": 12345, "source": "run 7"}
    path = tmp_path / "lab.yaml"
    path.write_text(yaml.safe_dump(data))
    d, (h1, _), (s1, _), _ = esx_pair()
    d.vm("a", h1, s1.portgroups[0], "10.0.10.1/24")
    d.vm("b", h1, s1.portgroups[0], "10.0.10.2/24")
    d.t.calibration = str(path)
    est = Engine(d.t).predict("a", "b").forward.estimate
    assert est.throughput_mbps == 12345 and est.source.startswith("measured-lab")


def test_bad_profiles_name_the_file_and_key(tmp_path):
    with pytest.raises(CalibrationError, match="not found"):
        load_profile(str(tmp_path / "missing.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\npnic_efficiency: fast\n")
    with pytest.raises(CalibrationError, match="pnic_efficiency needs a number"):
        load_profile(str(bad))
    (tmp_path / "folder.yaml").mkdir()
    for unreadable in (str(tmp_path / "folder.yaml"), "x\x00y"):   # a directory; a name the system refuses
        with pytest.raises(CalibrationError, match="cannot be read"):
            load_profile(unreadable)
