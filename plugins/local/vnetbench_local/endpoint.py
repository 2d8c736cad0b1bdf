"""Probe commands inside a lab namespace (for iperf3, sockperf, ping), with their output streamed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from vnetbench.backends import BackendError, Endpoint, RunningCommand
from vnetbench.backends.addresses import endpoint_address, family_address
from vnetbench.backends.process import ProcessCommand

from .context import Context


class LabCommand(ProcessCommand):
    """A process in a lab namespace. ``nsenter`` and ``taskset`` exec in place, so the PID is the command's.

    It is noted in the lab's state folder while it runs (``Context.record_probe``), so a measure killed
    with SIGKILL does not leave it running for good: the next measure or ``lab status`` stops it.
    """

    def __init__(self, argv: list[str], full_argv: list[str], ctx: Context,
                 stdin: int = subprocess.DEVNULL) -> None:
        super().__init__(argv, full_argv, stdin)
        self._wait_until_inside()
        self._record = ctx.record_probe(self.pid)

    def wait(self, timeout: float | None = None) -> int:
        code = super().wait(timeout)
        self._forget()
        return code

    def terminate(self) -> None:
        super().terminate()
        self._forget()

    def _forget(self) -> None:
        if self._record is not None:
            self._record.unlink(missing_ok=True)
            self._record = None

    def _wait_until_inside(self, timeout: float = 5.0) -> None:
        """Return once the process has joined the lab's network namespace (or ended).

        Until ``nsenter`` has switched namespaces the process is still out on the host, where a teardown
        that looks for the lab's processes would miss it and leave it running: so "started" means "inside".
        """
        ours = _net_ns(os.getpid())
        deadline = time.monotonic() + timeout
        while self._proc.poll() is None and _net_ns(self._proc.pid) == ours and time.monotonic() < deadline:
            time.sleep(0.002)


def _net_ns(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/net")
    except OSError:
        return None


class LabEndpoint(Endpoint):
    def __init__(self, ctx: Context, name: str, ns: str, addresses: dict[str, str],
                 addresses6: dict[str, str] | None = None) -> None:
        self.ctx, self.name, self.ns, self.addresses = ctx, name, ns, addresses
        self.addresses6 = addresses6 or {}

    def address(self, vnic_id: str | None = None) -> str:
        return endpoint_address(self.name, self.addresses, vnic_id)

    def address_in(self, family: int, vnic_id: str | None = None) -> str:
        return family_address(self.name, self.addresses, self.addresses6, family, vnic_id)

    def argv(self, argv: list[str], cpu: int | None = None) -> list[str]:
        if argv[:1] == ["python3"]:
            # the interpreter running vnetbench: the namespaces share this machine's files, and ``python3`` on
            # the PATH may be a version manager's shim (pyenv's costs ~80 ms of CPU per start; verify starts
            # a prober per VM)
            argv = [sys.executable, *argv[1:]]
        pinned = ["taskset", "-c", str(cpu), *argv] if cpu is not None else argv
        return self.ctx.in_ns(self.ns, pinned)

    def start(self, argv: list[str], cpu: int | None = None) -> RunningCommand:
        if not argv:
            raise BackendError("no command to run", "name a program")
        return LabCommand(list(argv), self.argv(argv, cpu), self.ctx)

    def start_session(self, argv: list[str]) -> RunningCommand:
        """A helper in the namespace whose stdin stays open (verify's prober)."""
        return LabCommand(list(argv), self.argv(argv), self.ctx, stdin=subprocess.PIPE)

    def has_program(self, program: str) -> bool:
        return shutil.which(program) is not None
