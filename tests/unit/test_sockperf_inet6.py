"""The IPv6 shim for Debian's sockperf 3.7, built with the real gcc and run with the real sockperf on loopback.

Each ping-pong (UDP and TCP) must report round trips, and every socket sockperf holds while it runs, server's and
client's, must be an IPv6 one (in /proc/net/udp6 or tcp6, none in udp or tcp), the server's bound to ::1: only
IPv6 reaches that address, so the round trips went over IPv6.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
from loopback import LoopbackEndpoint

from vnetbench.measure import RunStatus, TestKind, TestSpec, measure
from vnetbench.measure.probes import sockperf
from vnetbench.backends.sockperf_inet6 import PLACEHOLDER, build, wrap

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
        s.bind(("::1", 0))
        return s.getsockname()[1]


def argv(command: list[str], udp: bool) -> list[str]:
    return [a for a in command if a != "--tcp"] if udp else command


def proc_address(text: str) -> tuple[str, int]:
    """An ``ADDRESS:PORT`` of /proc/net/*6 (the address as four little-endian words, the port in hex)."""
    host, port = text.split(":")
    raw = b"".join(bytes.fromhex(host[i:i + 8])[::-1] for i in range(0, 32, 8))
    return str(ipaddress.IPv6Address(raw)), int(port, 16)


def sockets_of(pid: int) -> dict[int, tuple[str, str, int]]:
    """A process's sockets by inode: the /proc/net table each is in, and its local address and port."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    found = {}
    for table in ("tcp", "udp", "tcp6", "udp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[9]) in inodes:
                local = proc_address(fields[1]) if table.endswith("6") else (fields[1], 0)
                found[int(fields[9])] = (table, local[0], local[1])
    return found


@pytest.mark.parametrize("udp", [True, False], ids=["udp", "tcp"])
def test_ping_pong_runs_over_ipv6_on_loopback(udp):
    library = build()
    port = free_port()
    server = subprocess.Popen(wrap(argv(sockperf.server_argv(PLACEHOLDER, port), udp), "::1", library),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        for line in server.stdout:
            if sockperf.is_ready(line):
                break
        client = subprocess.Popen(wrap(argv(sockperf.client_argv(PLACEHOLDER, port, 1, 64), udp), "::1", library),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        seen: dict[int, tuple[str, str, int]] = {}
        client_seen: dict[int, tuple[str, str, int]] = {}
        while client.poll() is None:
            seen.update(sockets_of(server.pid))
            try:
                client_seen.update(sockets_of(client.pid))
            except FileNotFoundError:   # it ended meanwhile
                break
            time.sleep(0.05)
        out, _ = client.communicate(timeout=30)
    finally:
        server.terminate()
        server.wait(10)
    summary = sockperf.parse_summary(out)
    assert summary is not None and summary["round_trips"] > 100, out
    table = "udp6" if udp else "tcp6"
    assert (table, "::1", port) in seen.values(), seen
    assert client_seen and {t for t, _, _ in [*seen.values(), *client_seen.values()]} == {table}


def test_a_bad_map_ends_sockperf_with_one_line_naming_it():
    done = subprocess.run(["env", f"LD_PRELOAD={build()}", "VNETBENCH_INET6=192.0.2.1", "sockperf", "--version"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip() == "sockperf_inet6: VNETBENCH_INET6 entry '192.0.2.1' is not IPV4_PLACEHOLDER=IPV6"


class Loopback6(LoopbackEndpoint):
    """This machine at ::1 as well."""

    def address_in(self, family: int, vnic_id: str | None = None) -> str:
        return "::1" if family == 6 else self.address(vnic_id)


def test_the_runner_measures_round_trips_over_ipv6_and_keeps_the_family():
    run = measure(TestSpec(TestKind.RR, duration=1, cpu=None, family=6), Loopback6("a"), Loopback6("b"))
    assert run.status is RunStatus.OK, run.error
    assert run.summary["round_trips"] > 100 and run.summary["rtt_p99_us"] >= run.summary["rtt_p50_us"] > 0
    assert all("VNETBENCH_INET6=192.0.2.1=::1" in c and "-i 192.0.2.1" in c for c in run.commands)
    assert TestSpec.from_dict(run.spec.to_dict()).family == 6
