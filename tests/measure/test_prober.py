"""The batch prober verify runs once per endpoint: its probes go out side by side and come back in ping's words.

Run as a process on this machine (the endpoint is the machine itself), with every echo to 127.0.0.1, so the
traffic stays on loopback. The real-lab tests (``tests/backends/test_verify_lab.py``) run it in namespaces.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from vnetbench.backends import CancelToken, Endpoint, RunningCommand
from vnetbench.backends.process import ProcessCommand
from vnetbench.measure.prober import Ping, Probers
from vnetbench.measure.verify import _echoes, _Probe

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the prober's raw ICMP socket needs root")


class HereEndpoint(Endpoint):
    """This machine as an endpoint whose helpers are local processes."""

    name = "here"

    def address(self, vnic_id: str | None = None) -> str:
        return "127.0.0.1"

    def start(self, argv: list[str], cpu: int | None = None) -> RunningCommand:
        return ProcessCommand(argv, argv)

    def start_session(self, argv: list[str]) -> RunningCommand:
        return ProcessCommand(argv, argv, stdin=subprocess.PIPE)

    def has_program(self, program: str) -> bool:
        return True


def test_probes_run_side_by_side_and_answer_in_pings_words():
    here = HereEndpoint()
    probers = Probers()
    try:
        assert probers.usable(here)
        jobs = [(here, [Ping("127.0.0.1", 1000 - 16 * i, 3, 0.02, 1.0, True)]) for i in range(20)]
        jobs.append((here, [Ping("127.0.0.1", 84, 2, 0.05, 1.0, False), Ping("127.0.0.1", 300, 1, 0.02, 1.0, True)]))
        results = probers.run(jobs, 4, CancelToken())
    finally:
        probers.close()
    assert all(isinstance(r, tuple) and r[0] == 0 for r in results), results
    for r in results[:-1]:
        assert _echoes(_Probe(here, [], None, out=r[1])) == (3, 3), r
    assert results[-1][1] == "2 packets transmitted, 2 received | 1 packets transmitted, 1 received"


def test_a_cancelled_run_sends_nothing_more():
    here = HereEndpoint()
    probers = Probers()
    cancel = CancelToken()
    cancel.cancel()
    try:
        results = probers.run([(here, [Ping("127.0.0.1", 100, 1, 0.02, 1.0, True)])] * 3, 2,
                              cancel) if probers.usable(here) else None
    finally:
        probers.close()
    assert results == [None, None, None]


def test_a_prober_that_cannot_start_says_why():
    class Broken(HereEndpoint):
        def start_session(self, argv: list[str]) -> RunningCommand:
            return ProcessCommand(argv, ["sh", "-c", "echo no raw sockets here >&2; exit 1"], stdin=subprocess.PIPE)

    probers = Probers()
    broken = Broken()
    try:
        assert probers.usable(broken)
        results = probers.run([(broken, [Ping("127.0.0.1", 100, 1, 0.02, 1.0, True)])], 1, CancelToken())
    finally:
        probers.close()
    assert results == ["no raw sockets here"]
