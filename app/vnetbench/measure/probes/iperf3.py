"""iperf3 3.12: command lines and parsers for its text output.

Why text and not ``-J``: 3.12 has no ``--json-stream``, and ``-J`` prints everything at the end, so a live
plot would stay empty for the whole run. With ``-i 0.5 --forceflush`` both ends print an interval line every
half second; the final figures come from the summary lines iperf3 itself prints (marked ``sender`` and
``receiver``), not from our own arithmetic over the intervals. ``-f m`` keeps every rate in Mbit/s with
integer precision instead of three significant digits.

Live samples are read from the receiving side (the server normally, the client with ``-R``): for UDP the
sender only knows what it offered, the receiver what arrived.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INTERVAL_S = 0.5
#: Bytes per unit in iperf3's "Transfer" column (it counts in powers of 1024).
_BYTES = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
#: Bits per second per unit in its "Bitrate" column (powers of 1000).
_BITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

_LINE = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\]\s+(?P<start>\d+\.\d+)-(?P<end>\d+\.\d+)\s+sec\s+"
    r"(?P<xfer>[\d.]+)\s+(?P<xunit>[KMGT]?)Bytes\s+(?P<rate>[\d.]+)\s+(?P<runit>[KMGT]?)bits/sec"
    r"(?P<rest>.*)$")
_UDP_RX = re.compile(r"(?P<jitter>[\d.]+)\s+ms\s+(?P<lost>-?\d+)/(?P<total>\d+)\s+\((?P<pct>[-\d.e+]+)%\)")
_ROLE = re.compile(r"\b(sender|receiver)\s*$")
_ERROR = re.compile(r"iperf3:\s+error\s+-\s+(?P<msg>.+)$")


@dataclass(frozen=True)
class Interval:
    """One line of iperf3's table: a stream (``stream`` = "5") or the sum of all streams ("SUM")."""

    stream: str
    start: float
    end: float
    bytes: float
    mbps: float
    role: str | None = None          # "sender"/"receiver" on summary lines, None on live interval lines
    retransmits: int | None = None
    datagrams: int | None = None     # UDP: datagrams in the interval (sent, or received on receiver lines)
    lost: int | None = None
    jitter_ms: float | None = None
    lost_percent: float | None = None

    @property
    def seconds(self) -> float:
        """How long the interval lasted."""
        return self.end - self.start


def parse_line(line: str) -> Interval | None:
    """An interval or summary line, or None for anything else (headers, banners, blank lines)."""
    m = _LINE.match(line.strip())
    if not m:
        return None
    rest = m["rest"]
    role_m = _ROLE.search(rest)
    role = role_m.group(1) if role_m else None
    retr = datagrams = lost = None
    jitter = pct = None
    udp = _UDP_RX.search(rest)
    if udp:
        jitter, lost, total, pct = float(udp["jitter"]), int(udp["lost"]), int(udp["total"]), float(udp["pct"])
        datagrams = total - max(lost, 0)
    else:
        numbers = re.findall(r"[\d.]+", _ROLE.sub("", rest))
        if numbers and "." not in numbers[0]:
            # TCP sender lines: "Retr" (and Cwnd on live lines); UDP sender lines: "Total Datagrams".
            value = int(numbers[0])
            if len(numbers) >= 2 or role == "sender":
                retr = value
            else:
                datagrams = value
    return Interval(stream=m["id"], start=float(m["start"]), end=float(m["end"]),
                    bytes=float(m["xfer"]) * _BYTES[m["xunit"]],
                    mbps=float(m["rate"]) * _BITS[m["runit"]] / 1e6,
                    role=role, retransmits=retr, datagrams=datagrams, lost=lost, jitter_ms=jitter,
                    lost_percent=pct)


def error_of(text: str) -> str | None:
    """iperf3's own error sentence ("unable to connect to server: Connection refused"), if it printed one."""
    for line in text.splitlines():
        m = _ERROR.search(line)
        if m:
            return m["msg"].strip()
    return None


def is_ready(line: str) -> bool:
    """The server prints this once it listens; the client may connect from then on."""
    return line.startswith("Server listening on")


class LiveIntervals:
    """Feed every output line of the receiving side; yields the live intervals worth plotting.

    With several streams only the ``[SUM]`` lines count, with one stream its own lines. Summary lines
    (``sender``/``receiver``) and the zero-length tail interval iperf3 sometimes prints are skipped.
    """

    def __init__(self, streams: int) -> None:
        self.streams = streams

    def feed(self, line: str) -> Interval | None:
        """The interval a live line reports for this run (the SUM line with several streams), else None."""
        iv = parse_line(line)
        if iv is None or iv.role is not None or iv.seconds < 0.05:
            return None
        if (self.streams > 1) != (iv.stream == "SUM"):
            return None
        return iv


@dataclass(frozen=True)
class Summary:
    """The figures iperf3 prints at the end (client side, which also shows the server's receiver line)."""

    sender: Interval
    receiver: Interval

    def to_dict(self, udp: bool, payload: int | None = None) -> dict[str, float | int | None]:
        """The run's figures as a summary: receiver throughput, sender rate, and UDP loss and jitter."""
        out: dict[str, float | int | None] = {
            "throughput_mbps": self.receiver.mbps,
            "sender_mbps": self.sender.mbps,
            "bytes": self.receiver.bytes,
            "seconds": self.receiver.seconds,
        }
        if udp:
            rx = self.receiver
            received = rx.datagrams or 0
            out.update(lost=rx.lost, lost_percent=rx.lost_percent, jitter_ms=rx.jitter_ms,
                       datagrams=received, sent_datagrams=self.sender.datagrams,
                       pps=received / rx.seconds if rx.seconds > 0 else None,
                       sent_pps=(self.sender.datagrams or 0) / self.sender.seconds if self.sender.seconds > 0 else None)
        else:
            out["retransmits"] = self.sender.retransmits
        if payload:
            out["payload"] = payload
        return out


def parse_summary(text: str, streams: int) -> Summary | None:
    """The sender and receiver totals (``[SUM]`` ones with several streams), or None when missing."""
    want = "SUM" if streams > 1 else None
    found: dict[str, Interval] = {}
    for line in text.splitlines():
        iv = parse_line(line)
        if iv is None or iv.role is None:
            continue
        if (want == "SUM") == (iv.stream == "SUM"):
            found[iv.role] = iv
    if "sender" in found and "receiver" in found:
        return Summary(found["sender"], found["receiver"])
    return None


def server_argv(port: int) -> list[str]:
    """One test, then exit (``-1``), so a lost client cannot leave a server behind for long."""
    return ["iperf3", "-s", "-1", "-p", str(port), "-i", str(INTERVAL_S), "--forceflush", "-f", "m"]


def client_argv(address: str, port: int, duration: float, *, streams: int = 1, reverse: bool = False,
                udp: bool = False, rate_mbps: float | None = None, length: int | None = None,
                connect_timeout_ms: int = 3000) -> list[str]:
    """The iperf3 client command: interval lines flushed live, Mbit/s, a bounded connect wait."""
    argv = ["iperf3", "-c", address, "-p", str(port), "-t", f"{duration:g}", "-i", str(INTERVAL_S),
            "--forceflush", "-f", "m", "--connect-timeout", str(connect_timeout_ms)]
    if streams > 1:
        argv += ["-P", str(streams)]
    if reverse:
        argv.append("-R")
    if udp:
        # -b 0 is "as fast as possible"; a rate caps the offered load.
        argv += ["-u", "-b", f"{rate_mbps:g}M" if rate_mbps else "0"]
    if length:
        argv += ["-l", str(length)]
    return argv
