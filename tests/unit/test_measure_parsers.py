"""iperf3 and sockperf parsers against outputs recorded here (tests/unit/data, iperf3 3.12, sockperf 3.7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnetbench.measure.probes import iperf3, sockperf

DATA = Path(__file__).parent / "data"


def read(name: str) -> str:
    return (DATA / name).read_text()


def live(name: str, streams: int = 1) -> list[iperf3.Interval]:
    feed = iperf3.LiveIntervals(streams)
    return [iv for line in read(name).splitlines() if (iv := feed.feed(line))]


def test_tcp_client_live_and_summary():
    ivs = live("iperf3_tcp_client.txt")
    assert [(iv.start, iv.end) for iv in ivs] == [(0.0, 0.5), (0.5, 1.0), (1.0, 1.5), (1.5, 2.0)]
    assert [iv.mbps for iv in ivs] == [19841, 19661, 20939, 20302]
    assert ivs[0].retransmits == 3008 and ivs[0].bytes == pytest.approx(1.15 * 1024**3)
    s = iperf3.parse_summary(read("iperf3_tcp_client.txt"), 1)
    assert s is not None
    d = s.to_dict(udp=False)
    assert d["throughput_mbps"] == 20150 and d["sender_mbps"] == 20185 and d["retransmits"] == 12799
    assert d["bytes"] == pytest.approx(4.69 * 1024**3)


def test_tcp_server_lines_are_the_receivers_live_view():
    ivs = live("iperf3_tcp_server.txt")
    assert [iv.mbps for iv in ivs] == [19820, 19666, 20918, 20196]
    assert all(iv.role is None for iv in ivs)


def test_parallel_streams_use_the_sum_lines():
    ivs = live("iperf3_tcp_p2_server.txt", streams=2)
    assert [iv.mbps for iv in ivs] == [29420, 23226, 17515, 29319]  # the 2.00-2.00 tail is skipped
    assert all(iv.stream == "SUM" for iv in ivs)
    s = iperf3.parse_summary(read("iperf3_tcp_p2_client.txt"), 2)
    assert s is not None and s.receiver.stream == "SUM"
    assert s.receiver.mbps == 24873 and s.sender.retransmits == 41079
    one = iperf3.parse_summary(read("iperf3_tcp_p2_client.txt"), 1)
    assert one is not None and one.receiver.mbps == 12371  # the last single stream, not the sum


def test_reverse_client_prints_receiver_intervals():
    ivs = live("iperf3_tcp_reverse_client.txt")
    assert [iv.mbps for iv in ivs] == [20440, 19869, 21077, 21528]
    assert all(iv.retransmits is None for iv in ivs)
    s = iperf3.parse_summary(read("iperf3_tcp_reverse_client.txt"), 1)
    assert s is not None and s.receiver.mbps == 20728 and s.sender.retransmits == 10088


def test_udp_sender_and_receiver_views():
    sent = live("iperf3_udp_lossy_client.txt")
    assert [iv.datagrams for iv in sent] == [8620, 8062, 9204, 7367]
    assert live("iperf3_udp_client.txt")[0].datagrams == 8618
    got = live("iperf3_udp_server.txt")
    assert [iv.datagrams for iv in got] == [8618, 8634, 8633, 8632]
    assert got[0].jitter_ms == 0.004 and got[0].lost == 0
    s = iperf3.parse_summary(read("iperf3_udp_lossy_client.txt"), 1)
    assert s is not None
    d = s.to_dict(udp=True)
    assert d["throughput_mbps"] == 172 and d["sender_mbps"] == 193
    assert d["lost"] == 3521 and d["lost_percent"] == 11 and d["datagrams"] == 33253 - 3521
    assert d["sent_datagrams"] == 33253 and d["pps"] == pytest.approx((33253 - 3521) / 2.0)


def test_small_packet_rate_from_receiver_lines():
    got = live("iperf3_pps_server.txt")
    assert got[1].datagrams == 138550 and got[2].datagrams == 135050 - 2037
    assert got[2].lost_percent == 1.5
    assert got[-1].end == 2.0 and len(got) == 4  # zero-length tail dropped
    d = iperf3.parse_summary(read("iperf3_pps_lossy_client.txt"), 1).to_dict(udp=True, payload=64)
    assert d["pps"] == pytest.approx((218520 - 92799) / 2.0) and d["payload"] == 64
    assert d["sent_pps"] == pytest.approx(218520 / 2.0) and d["lost_percent"] == 42
    d = iperf3.parse_summary(read("iperf3_pps_client.txt"), 1).to_dict(udp=True, payload=64)
    assert d["pps"] == pytest.approx((518190 - 17510) / 2.0)


def test_small_figures_keep_their_decimals():
    ivs = live("iperf3_len16_client.txt")
    assert [iv.mbps for iv in ivs] == [44.4, 43.0, 46.2, 50.2]
    s = iperf3.parse_summary(read("iperf3_len16_client.txt"), 1)
    assert s.receiver.mbps == 40.6 and s.sender.mbps == 45.9 and s.sender.retransmits == 3


@pytest.mark.parametrize("name, message", [
    ("iperf3_refused_client.txt", "unable to connect to server: Connection refused"),
    ("iperf3_noroute_client.txt", "unable to connect to server: Network is unreachable"),
    ("iperf3_timeout_client.txt", "unable to connect to server: Connection timed out"),
    ("iperf3_inuse_server.txt", "unable to start listener for connections: Address already in use"),
])
def test_iperf3_errors(name, message):
    text = read(name)
    assert iperf3.error_of(text) == message
    assert iperf3.parse_summary(text, 1) is None


def test_iperf3_ready_line_and_noise():
    lines = read("iperf3_tcp_server.txt").splitlines()
    assert [ln for ln in lines if iperf3.is_ready(ln)] == ["Server listening on 5301 (test #1)"]
    for noise in ("", "iperf Done.", "[ ID] Interval           Transfer     Bitrate", "- - - - -",
                  "Connecting to host 10.99.0.2, port 5301"):
        assert iperf3.parse_line(noise) is None


def test_iperf3_argv():
    argv = iperf3.client_argv("10.0.0.2", 5301, 3, streams=4, reverse=True, udp=True, rate_mbps=250, length=64)
    assert argv[:3] == ["iperf3", "-c", "10.0.0.2"]
    for part in (["-P", "4"], ["-u", "-b", "250M"], ["-l", "64"], ["-i", "0.5"], ["-f", "m"]):
        i = argv.index(part[0])
        assert argv[i:i + len(part)] == part
    assert "-R" in argv and "--forceflush" in argv
    assert iperf3.client_argv("h", 1, 1, udp=True)[-2:] == ["-b", "0"]
    assert "-1" in iperf3.server_argv(5301) and "--forceflush" in iperf3.server_argv(5301)


def test_sockperf_summary_round_trip():
    s = sockperf.parse_summary(read("sockperf_pp_client.txt"))
    assert s is not None
    assert s["rtt_avg_us"] == 14.739 and s["rtt_std_us"] == 19.372
    assert (s["rtt_p50_us"], s["rtt_p90_us"], s["rtt_p99_us"], s["rtt_p999_us"]) == (14.070, 14.932, 19.759, 48.031)
    assert s["rtt_min_us"] == 13.750 and s["rtt_max_us"] == 4107.203
    assert s["transactions_per_s"] == pytest.approx(104993 / 1.550)
    assert s["rtt_min_us"] <= s["rtt_p50_us"] <= s["rtt_p99_us"] <= s["rtt_max_us"]


def test_sockperf_half_round_trip_output_also_parses():
    s = sockperf.parse_summary(read("sockperf_pp_latency_client.txt"))
    assert s is not None and s["rtt_avg_us"] == 7.352 and s["rtt_p50_us"] == 7.010


def test_sockperf_activity_lines_merge_to_time_slices():
    feed = sockperf.LiveActivity(min_seconds=0.25)
    acts = [a for line in read("sockperf_pp_client.txt").splitlines() if (a := feed.feed(line))]
    # six lines of 20000 messages, 0.29-0.39 s each: each is its own slice
    assert len(acts) == 6
    assert acts[0].messages == 20000 and acts[0].rtt_us == pytest.approx(388307 / 20000)
    slow = sockperf.LiveActivity(min_seconds=0.6)
    merged = [a for line in read("sockperf_pp_client.txt").splitlines() if (a := slow.feed(line))]
    assert len(merged) == 2 and merged[0].messages == 40000 and merged[1].messages == 60000
    assert merged[0].seconds == pytest.approx((388307 + 305302) / 1e6)


def test_sockperf_errors_and_ready():
    text = read("sockperf_refused_client.txt")
    assert sockperf.parse_summary(text) is None
    assert sockperf.error_of(text) == "Can`t connect socket (errno=111 Connection refused)"
    assert any(sockperf.is_ready(ln) for ln in read("sockperf_server.txt").splitlines())
    argv = sockperf.client_argv("10.0.0.2", 11111, 5, 1024)
    assert argv[:2] == ["sockperf", "ping-pong"] and "--full-rtt" in argv and "--tcp" in argv
    assert argv[argv.index("-m") + 1] == "1024"
