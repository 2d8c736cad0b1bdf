"""A backend whose every endpoint is this machine at 127.0.0.1: real iperf3 and sockperf, traffic on loopback.

For GUI tests of the measure dock that need real probe output (its timing, its lines) but no deployed lab.
"""

from __future__ import annotations

from typing import ClassVar

from loopback import LoopbackEndpoint

from vnetbench.backends import Backend, BackendError, Capabilities
from vnetbench.model import SwitchKind


class LoopbackBackend(Backend):
    name: ClassVar[str] = "loopback"
    title: ClassVar[str] = "This machine (loopback)"
    capabilities: ClassVar[Capabilities] = Capabilities(switch_kinds=frozenset(SwitchKind))

    def plan(self, design):
        raise BackendError("the loopback backend only runs probes")

    apply = teardown = status = plan

    def endpoint(self, design, vm_id):
        return LoopbackEndpoint(vm_id)
