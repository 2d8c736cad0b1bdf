"""Measuring over IPv6: the family a test runs over is part of its spec (so the run store keeps it), checked like
every other parameter, and each endpoint is reached at its address of that family."""

from __future__ import annotations

import pytest

from vnetbench import resources_dir
from vnetbench.backends import BackendError
from vnetbench.backends.contract import Endpoint
from vnetbench.measure import SpecError, TestKind, TestSpec
from vnetbench.model import load


def test_the_family_is_stored_with_the_spec_and_old_specs_are_ipv4():
    spec = TestSpec(TestKind.THROUGHPUT, family=6)
    assert TestSpec.from_dict(spec.to_dict()).family == 6 and "IPv6" in spec.label()
    old = spec.to_dict()
    del old["family"]
    assert TestSpec.from_dict(old).family == 4 and "IPv6" not in TestSpec.from_dict(old).label()


def test_a_family_the_tools_cannot_run_is_refused_with_the_fix():
    with pytest.raises(SpecError, match="family 5 is unknown: use 4"):
        TestSpec(TestKind.THROUGHPUT, family=5).check()
    TestSpec(TestKind.RR, family=6).check()     # sockperf 3.7 runs over IPv6 through vnetbench's shim
    TestSpec(TestKind.SWEEP, family=6).check()


class _Ipv4Only(Endpoint):
    name = "vm1"

    def address(self, vnic_id=None):
        return "10.0.0.1"

    def start(self, argv, cpu=None):
        raise AssertionError

    def has_program(self, program):
        return True


def test_a_backend_that_reaches_endpoints_over_ipv4_only_says_so():
    assert _Ipv4Only().address_in(4) == "10.0.0.1"
    with pytest.raises(BackendError, match="reached over IPv4 only"):
        _Ipv4Only().address_in(6)


def test_the_lab_knows_each_endpoints_global_ipv6_address():
    from vnetbench_local.desired import desired_lab

    lab = desired_lab(load(resources_dir() / "examples" / "esx-dual-stack.vnet.yaml"))
    assert lab.endpoints["vm-fw01"].addresses6 == {"nic-fw01-eth0": "2001:db8:10::1/64",
                                                   "nic-fw01-eth1": "2001:db8:20::1/64",
                                                   "nic-fw01-eth2": "2001:db8:30::1/64"}   # not fe80::1
    assert lab.endpoints["vm-web02"].addresses == {"nic-web02-eth0": "10.10.0.12/24"}


def test_a_ping_sizes_its_payload_by_the_family_header():
    from vnetbench.measure.prober import Ping

    assert Ping("10.0.0.1", 1500, 1, 0.1, 1, True).argv()[-4:] == ["1472", "-M", "do", "10.0.0.1"]
    assert Ping("2001:db8::1", 1500, 1, 0.1, 1, True).argv()[-4:] == ["1452", "-M", "do", "2001:db8::1"]


class _Ipv6(_Ipv4Only):
    """Reached at 2001:db8::1 too; sees no file of this machine unless ``sees`` says so."""

    def __init__(self, sees: bool) -> None:
        self.sees = sees

    def address_in(self, family, vnic_id=None):
        return "2001:db8::1" if family == 6 else self.address(vnic_id)

    def has_program(self, program):
        return "/" not in program or self.sees


def test_round_trips_over_ipv6_without_gcc_are_refused_with_the_fix(tmp_path, monkeypatch):
    from vnetbench.measure import RunStatus, measure
    from vnetbench.backends import sockperf_inet6

    monkeypatch.setattr(sockperf_inet6, "library_path", lambda: tmp_path / "not-built.so")
    monkeypatch.setenv("PATH", str(tmp_path))            # no gcc on it
    run = measure(TestSpec(TestKind.RR, duration=1, family=6), _Ipv6(True), _Ipv6(True))
    assert run.status is RunStatus.FAILED and run.summary["failure"] == "not-installed"
    assert "need gcc" in run.error and "apt-get install gcc libc6-dev" in run.error and "\n" not in run.error


def test_round_trips_over_ipv6_on_an_endpoint_that_cannot_load_the_shim_are_refused():
    from vnetbench.measure import RunStatus, measure

    run = measure(TestSpec(TestKind.RR, duration=1, family=6), _Ipv6(True), _Ipv6(False))
    assert run.status is RunStatus.FAILED and run.summary["failure"] == "not-installed"
    assert "which vm1 does not have at /" in run.error and "family 4" in run.error
