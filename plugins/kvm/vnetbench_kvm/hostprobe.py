"""Probes in an emulated physical host: a namespace on the KVM host, entered with ``ip netns exec`` through the
``host_exec`` prefix (the probe's own process is the one started here, so stopping it stops the probe)."""

from __future__ import annotations

import shlex
import subprocess

from vnetbench.backends import BackendError, Endpoint, RunningCommand
from vnetbench.backends.addresses import endpoint_address, family_address
from vnetbench.backends.process import ProcessCommand

from .hostside import host_command


class NamespaceEndpoint(Endpoint):
    def __init__(self, prefix: list[str], name: str, ns: str, addresses: dict[str, str],
                 addresses6: dict[str, str] | None = None) -> None:
        self.prefix, self.name, self.ns, self.addresses = prefix, name, ns, addresses
        self.addresses6 = addresses6 or {}

    def address(self, vnic_id: str | None = None) -> str:
        return endpoint_address(self.name, self.addresses, vnic_id)

    def address_in(self, family: int, vnic_id: str | None = None) -> str:
        return family_address(self.name, self.addresses, self.addresses6, family, vnic_id)

    def _argv(self, argv: list[str]) -> list[str]:
        return host_command(self.prefix, ["ip", "netns", "exec", self.ns, *argv])

    def start(self, argv: list[str], cpu: int | None = None) -> RunningCommand:
        if not argv:
            raise BackendError("no command to run", "name a program")
        pinned = ["taskset", "-c", str(cpu), *argv] if cpu is not None else list(argv)
        return ProcessCommand(list(argv), self._argv(pinned))

    def has_program(self, program: str) -> bool:
        probe = subprocess.run(self._argv(["sh", "-c", f"command -v {shlex.quote(program)}"]), capture_output=True)
        return probe.returncode == 0
