"""Real measurements: iperf3 and sockperf between two network namespaces, through the runner."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from vnetbench.backends import CancelToken
from vnetbench.measure import RunStatus, TestSpec, measure

pytestmark = pytest.mark.slow


class Clock:
    """Records when each live sample arrived, to check that they stream rather than come in one batch."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.arrivals: list[float] = []
        self.samples = []

    def __call__(self, sample) -> None:
        self.arrivals.append(time.monotonic() - self.t0)
        self.samples.append(sample)

    def streamed(self) -> bool:
        """The samples came spread over more than a second of the run, not all at its end. (A lower bound:
        a loaded machine only spreads them further; the pace is bench's business.)"""
        return self.arrivals[-1] - self.arrivals[0] > 1.0


def test_tcp_throughput_streams_live_and_summarises(netns_pair):
    clock = Clock()
    progress = []
    m = measure(TestSpec("throughput", duration=3), netns_pair.a, netns_pair.b, on_sample=clock,
                progress=lambda d, t, msg: progress.append((d, t, msg)))
    assert m.status == RunStatus.OK, m.error
    assert len(clock.samples) >= 5 and clock.samples == m.samples
    assert clock.streamed()
    assert [s.t for s in m.samples] == sorted(s.t for s in m.samples)
    mean = sum(s.value for s in m.samples) / len(m.samples)
    assert m.summary["throughput_mbps"] > 100
    assert 0.7 < m.summary["throughput_mbps"] / mean < 1.3
    assert m.commands[0].startswith("[vm-b] iperf3 -s") and m.commands[1].startswith("[vm-a] iperf3 -c 10.77.0.2")
    assert m.env["tool_version"].startswith("iperf 3.") and m.env["kernel"]
    assert progress and progress[-1][0] > 800 and progress[-1][1] == 1000


def test_shaped_link_measures_at_its_rate(netns_pair):
    netns_pair.shape(200)
    m = measure(TestSpec("throughput", duration=3), netns_pair.a, netns_pair.b)
    assert m.status == RunStatus.OK, m.error
    assert 180 <= m.summary["throughput_mbps"] <= 210
    rev = measure(TestSpec("throughput", duration=2, reverse=True, streams=2), netns_pair.a, netns_pair.b)
    assert rev.status == RunStatus.OK and "-R" in rev.commands[1] and "-P 2" in rev.commands[1]
    assert 170 <= rev.summary["throughput_mbps"] <= 210


def test_udp_at_a_rate(netns_pair):
    m = measure(TestSpec("throughput", protocol="udp", udp_rate_mbps=50, duration=2), netns_pair.a, netns_pair.b)
    assert m.status == RunStatus.OK, m.error
    assert 45 <= m.summary["sender_mbps"] <= 55
    assert m.summary["lost_percent"] is not None and m.summary["jitter_ms"] is not None


def test_round_trip_is_pinned_and_has_ordered_percentiles(netns_pair):
    clock = Clock()
    m = measure(TestSpec("rr", duration=2), netns_pair.a, netns_pair.b, on_sample=clock)
    assert m.status == RunStatus.OK, m.error
    s = m.summary
    assert 0 < s["rtt_min_us"] <= s["rtt_p50_us"] <= s["rtt_p90_us"] <= s["rtt_p99_us"] <= s["rtt_max_us"]
    assert s["transactions_per_s"] > 1000
    assert all(c.endswith("(cpu 0)") for c in m.commands)
    assert len(m.samples) >= 4 and clock.streamed()
    assert all(0.2 * s["rtt_avg_us"] < x.value < 5 * s["rtt_avg_us"] for x in m.samples)


def test_small_packet_rate(netns_pair):
    m = measure(TestSpec("pps", duration=2), netns_pair.a, netns_pair.b)
    assert m.status == RunStatus.OK, m.error
    assert m.summary["pps"] > 1000 and m.summary["payload"] == 64
    assert all(x.series == "pps" for x in m.samples)
    assert "-l 64" in m.commands[1] and "-b 0" in m.commands[1]


def test_sweep_grows_with_message_size(netns_pair):
    m = measure(TestSpec("sweep", duration=1, sizes=(1, 64, 16384)), netns_pair.a, netns_pair.b)
    assert m.status == RunStatus.OK, m.error
    rates = [p["throughput_mbps"] for p in m.summary["points"]]
    assert [p["size"] for p in m.summary["points"]] == [1, 64, 16384]
    assert rates[0] < rates[1] < rates[2]
    assert {x.series for x in m.samples} == {"1", "64", "16384"}
    assert m.samples[-1].t > 2.0  # the time axis continues across steps


def test_cancel_stops_quickly_and_cleans_up(netns_pair):
    token = CancelToken()
    got = []
    threading.Timer(1.5, token.cancel).start()
    m = measure(TestSpec("throughput", duration=30), netns_pair.a, netns_pair.b, on_sample=got.append,
                cancel=token)
    assert m.status == RunStatus.CANCELLED and got  # samples so far are kept
    assert max(s.t for s in got) < 15               # the probe's own clock: it stopped well before its 30 s
    # the fixture fails the test if a started command still runs


def test_missing_program_is_reported(netns_pair):
    bare = dataclasses.replace(netns_pair.a, path="/nonexistent")
    m = measure(TestSpec("throughput", duration=1), bare, netns_pair.b)
    assert m.status == RunStatus.FAILED and m.summary["failure"] == "not-installed"
    assert "iperf3 is not installed on vm-a" in m.error
    m = measure(TestSpec("rr", duration=1), netns_pair.a, dataclasses.replace(netns_pair.b, path="/nonexistent"))
    assert m.summary["failure"] == "not-installed" and "sockperf is not installed on vm-b" in m.error


def test_no_route_refused_and_timeout_say_why(netns_pair):
    ns_b = netns_pair.namespaces[1]
    netns_pair.run(ns_b, "ip", "addr", "add", "10.77.0.3/24", "dev", "veth0")
    netns_pair.run(ns_b, "ip", "addr", "add", "10.77.0.4/24", "dev", "veth0")
    netns_pair.run(ns_b, "nft", "add table inet vnbtest")
    netns_pair.run(ns_b, "nft", "add chain inet vnbtest in { type filter hook input priority 0 ; }")
    netns_pair.run(ns_b, "nft", "add rule inet vnbtest in ip daddr 10.77.0.3 tcp flags syn reject with tcp reset")
    netns_pair.run(ns_b, "nft", "add rule inet vnbtest in ip daddr 10.77.0.4 drop")
    spec = TestSpec("throughput", duration=1)
    cases = {"10.99.9.9": ("no-route", "no route from vm-a"), "10.77.0.3": ("refused", "connection refused"),
             "10.77.0.4": ("timeout", "no answer")}
    for address, (reason, words) in cases.items():
        m = measure(spec, netns_pair.a, dataclasses.replace(netns_pair.b, ip4=address))
        assert m.status == RunStatus.FAILED, address
        assert m.summary["failure"] == reason and words in m.error, m.error
    rr = measure(TestSpec("rr", duration=1), netns_pair.a, dataclasses.replace(netns_pair.b, ip4="10.77.0.3"))
    # sockperf's server listens only on the address it is given, which rejects the client: still a reason
    assert rr.status == RunStatus.FAILED and rr.summary["failure"] == "refused", rr.error


def test_a_taken_port_gets_another(netns_pair, monkeypatch):
    squatter = netns_pair.b.start(["iperf3", "-s", "-p", "23456"])
    try:
        time.sleep(0.3)
        ports = iter([23456, 23457])
        monkeypatch.setattr("vnetbench.measure.runner.random.randint", lambda a, b: next(ports))
        m = measure(TestSpec("throughput", duration=1), netns_pair.a, netns_pair.b)
        assert m.status == RunStatus.OK, m.error
        assert "-p 23456" in m.commands[0] and "-p 23457" in m.commands[1] and "-p 23457" in m.commands[2]
    finally:
        squatter.terminate()
        squatter.wait(3)
