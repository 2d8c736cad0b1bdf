"""Two network namespaces joined by a veth, and an Endpoint that runs commands inside one.

Used until (and beside) the local lab: real iperf3/sockperf between real namespaces, with names unique per
test so parallel runs never meet, and everything removed afterwards. Needs root (``ip netns``).
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field

from vnetbench.backends import Endpoint, RunningCommand

_counter = itertools.count()


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


class NetnsCommand(RunningCommand):
    def __init__(self, ns: str, argv: list[str], cpu: int | None, path: str | None) -> None:
        self.argv = argv
        pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
        env = dict(os.environ, PATH=path) if path else None
        cmd = ["ip", "netns", "exec", ns, *pin, *argv]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                                     env=env)

    def lines(self) -> Iterator[str]:
        assert self.proc.stdout is not None
        yield from self.proc.stdout

    def wait(self, timeout: float | None = None) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"{self.argv[0]} still runs") from None

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def terminate(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()


@dataclass
class NetnsEndpoint(Endpoint):
    name: str
    ns: str
    ip4: str
    path: str | None = None
    started: list[NetnsCommand] = field(default_factory=list)

    def address(self, vnic_id: str | None = None) -> str:
        return self.ip4

    def start(self, argv: list[str], cpu: int | None = None) -> NetnsCommand:
        cmd = NetnsCommand(self.ns, argv, cpu, self.path)
        self.started.append(cmd)
        return cmd

    def has_program(self, program: str) -> bool:
        return shutil.which(program, path=self.path) is not None


@dataclass
class NetnsPair:
    a: NetnsEndpoint
    b: NetnsEndpoint
    namespaces: tuple[str, str]

    def run(self, ns: str, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", ns, *argv], capture_output=True, text=True, check=True)

    def shape(self, mbit: int) -> None:
        """Cap A's sending side with a token bucket, like the local lab's emulated pNIC."""
        self.run(self.namespaces[0], "tc", "qdisc", "replace", "dev", "veth0", "root", "tbf", "rate",
                 f"{mbit}mbit", "burst", "256kb", "latency", "20ms")
        self.run(self.namespaces[1], "tc", "qdisc", "replace", "dev", "veth0", "root", "tbf", "rate",
                 f"{mbit}mbit", "burst", "256kb", "latency", "20ms")


def make_pair(tag: str = "m") -> NetnsPair:
    n = f"{os.getpid()}-{next(_counter)}"
    ns_a, ns_b = f"vnbm{tag}-{n}-a", f"vnbm{tag}-{n}-b"
    ip("netns", "add", ns_a)
    ip("netns", "add", ns_b)
    try:
        peer = f"vnbm{next(_counter)}{os.getpid()}"[:15]
        ip("-n", ns_a, "link", "add", "veth0", "type", "veth", "peer", "name", peer, "netns", ns_b)
        ip("-n", ns_b, "link", "set", peer, "name", "veth0")
        for ns, addr in ((ns_a, "10.77.0.1/24"), (ns_b, "10.77.0.2/24")):
            ip("-n", ns, "addr", "add", addr, "dev", "veth0")
            ip("-n", ns, "link", "set", "veth0", "up")
            ip("-n", ns, "link", "set", "lo", "up")
    except Exception:
        remove_pair((ns_a, ns_b))
        raise
    return NetnsPair(NetnsEndpoint("vm-a", ns_a, "10.77.0.1"), NetnsEndpoint("vm-b", ns_b, "10.77.0.2"),
                     (ns_a, ns_b))


def remove_pair(namespaces: tuple[str, str], endpoints: tuple[NetnsEndpoint, ...] = ()) -> list[str]:
    """Delete the namespaces; returns the commands our endpoints started that were still running (leaks)."""
    leaks = []
    for ep in endpoints:
        for cmd in ep.started:
            if cmd.proc.poll() is None:
                leaks.append(" ".join(cmd.argv))
                cmd.proc.kill()
                cmd.proc.wait()
    for ns in namespaces:
        ip("netns", "del", ns, check=False)
    return leaks


def can_make_namespaces() -> bool:
    return os.geteuid() == 0 and shutil.which("ip") is not None
