"""A backend whose every endpoint is this machine at 127.0.0.1: real iperf3 and sockperf, traffic on loopback.

For GUI tests of the measure dock that need real probe output (its timing, its lines) but no deployed lab.
"""

from __future__ import annotations

import shutil
from typing import ClassVar

from vnetbench.backends import Backend, BackendError, Capabilities, Endpoint
from vnetbench.backends.process import ProcessCommand
from vnetbench.model import SwitchKind


class LoopbackEndpoint(Endpoint):
    """Runs the probe here, against 127.0.0.1."""

    def __init__(self, name: str) -> None:
        self.name = name

    def address(self, vnic_id: str | None = None) -> str:
        return "127.0.0.1"

    def start(self, argv, cpu=None):
        return ProcessCommand(list(argv), list(argv))

    def has_program(self, program: str) -> bool:
        return shutil.which(program) is not None


class LoopbackBackend(Backend):
    name: ClassVar[str] = "loopback"
    title: ClassVar[str] = "This machine (loopback)"
    capabilities: ClassVar[Capabilities] = Capabilities(switch_kinds=frozenset(SwitchKind))

    def plan(self, design):
        raise BackendError("the loopback backend only runs probes")

    apply = teardown = status = plan

    def endpoint(self, design, vm_id):
        return LoopbackEndpoint(vm_id)
