"""sockperf 3.7 ping-pong: command lines and parsers for its text output.

A TCP ping-pong with equal request and response sizes is netperf's TCP_RR (seed 002 uses 1024/1024).
``--full-rtt`` makes sockperf report round trips instead of half of them, so figures compare with
TCP_RR's 1/transaction-rate. sockperf prints nothing while it runs unless asked: ``-A N`` prints the
message rate after every N messages, which gives the live curve; the percentiles come from its summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_ACTIVITY = re.compile(r"^\s*(?P<us>\d+)\s+\[usec\]\s+(?P<rate>\d+)\s+\[msg/s\]\s+(?P<total>\d+)\s+\[msg\]")
_AVG = re.compile(r"avg-(?:rtt|latency)=(?P<avg>[\d.]+)\s+\(std-dev=(?P<std>[\d.]+)\)")
_PCT = re.compile(r"percentile\s+(?P<p>[\d.]+)\s+=\s+(?P<v>[\d.]+)")
_MINMAX = re.compile(r"<(?P<which>MAX|MIN)>\s+observation\s+=\s+(?P<v>[\d.]+)")
_VALID = re.compile(r"\[Valid Duration\]\s+RunTime=(?P<s>[\d.]+)\s+sec;\s+SentMessages=(?P<sent>\d+);"
                    r"\s+ReceivedMessages=(?P<recv>\d+)")
_ERROR = re.compile(r"sockperf:\s+ERROR:\s*(?P<msg>.+)$")

#: Summary keys for the percentiles reported (sockperf prints more; these are what the seeds quote).
PERCENTILES = {"50.000": "rtt_p50_us", "90.000": "rtt_p90_us", "99.000": "rtt_p99_us", "99.900": "rtt_p999_us"}


def clean(line: str) -> str:
    """A sockperf line without its colour codes."""
    return _ANSI.sub("", line).rstrip()


@dataclass(frozen=True)
class Activity:
    """One ``-A`` line: ``messages`` round trips took ``seconds``."""

    seconds: float
    messages: int
    total: int

    @property
    def rtt_us(self) -> float:
        """The mean round trip of the interval, in microseconds."""
        return self.seconds * 1e6 / self.messages


class LiveActivity:
    """Turns ``-A`` lines into samples no more often than every ``min_seconds``.

    ``-A`` counts messages, not time, so a fast path prints many lines a second and a slow one few; merging
    lines up to a time slice keeps the plot at a steady pace whatever the path's speed.
    """

    def __init__(self, min_seconds: float = 0.25) -> None:
        self.min_seconds = min_seconds
        self._seconds = 0.0
        self._messages = 0
        self._last_total = 0

    def feed(self, line: str) -> Activity | None:
        """A sample from an activity line once enough time has gathered, else None."""
        m = _ACTIVITY.match(clean(line))
        if not m:
            return None
        total = int(m["total"])
        self._messages += total - self._last_total
        self._last_total = total
        self._seconds += int(m["us"]) / 1e6
        if self._seconds < self.min_seconds or self._messages <= 0:
            return None
        out = Activity(self._seconds, self._messages, total)
        self._seconds, self._messages = 0.0, 0
        return out


def parse_summary(text: str) -> dict[str, float] | None:
    """Round-trip statistics in microseconds (avg, std, percentiles, min, max) and transactions/s."""
    out: dict[str, float] = {}
    for raw in text.splitlines():
        line = clean(raw)
        if m := _AVG.search(line):
            out["rtt_avg_us"], out["rtt_std_us"] = float(m["avg"]), float(m["std"])
        elif m := _PCT.search(line):
            key = PERCENTILES.get(m["p"])
            if key:
                out[key] = float(m["v"])
        elif m := _MINMAX.search(line):
            out["rtt_max_us" if m["which"] == "MAX" else "rtt_min_us"] = float(m["v"])
        elif m := _VALID.search(line):
            seconds = float(m["s"])
            out["round_trips"] = float(m["recv"])
            if seconds > 0:
                out["transactions_per_s"] = int(m["recv"]) / seconds
    if "rtt_avg_us" not in out or "rtt_p50_us" not in out:
        return None
    return out


def error_of(text: str) -> str | None:
    """sockperf's own error message in its output, if it printed one."""
    for line in text.splitlines():
        if m := _ERROR.search(clean(line)):
            return m["msg"].strip()
    return None


def is_started(line: str) -> bool:
    """The client prints this when its measured run begins, after about 2 s of warm-up messages."""
    return "Starting test" in line


def is_ready(line: str) -> bool:
    """The server prints this once its socket listens."""
    return "block on socket" in line


def server_argv(address: str, port: int) -> list[str]:
    """The sockperf server command for round-trip tests."""
    return ["sockperf", "server", "--tcp", "-i", address, "-p", str(port)]


def client_argv(address: str, port: int, duration: float, message_size: int, activity: int = 500) -> list[str]:
    """The sockperf ping-pong client command, with activity lines for live samples."""
    return ["sockperf", "ping-pong", "--tcp", "-i", address, "-p", str(port), "-m", str(message_size),
            "-t", f"{max(1, round(duration))}", "--full-rtt", "-A", str(activity)]
