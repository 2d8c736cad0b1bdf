"""Run probe programs in a deployed vSphere VM over SSH.

vSphere's own way in, guest operations through VMware Tools, needs Tools and guest credentials in every
VM (and is absent from vcsim here). SSH to the VM's address works wherever an admin can log in, with the
user's ssh-agent or a private key kept in the OS keyring (written to a private temporary file only while
the endpoint is open). The ``ssh`` binary is used so agent forwarding, ``~/.ssh/config`` and jump hosts work
as the user already set them up.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import weakref
from collections.abc import Mapping
from typing import Any

import keyring
from keyring.errors import KeyringError
from vnetbench.backends.contract import BackendError, Endpoint, RunningCommand
from vnetbench.backends.process import ProcessCommand

SSH_KEY_SERVICE = "vnetbench-ssh"


def remote_script(argv: list[str], cpu: int | None) -> str:
    """The shell line run remotely: the probe (pinned with taskset when ``cpu`` is given), stopped when the
    SSH session's stdin closes, so terminating the local ssh also ends the remote probe."""
    if not argv:
        raise ValueError("no command to run")
    command = shlex.join((["taskset", "-c", str(cpu)] if cpu is not None else []) + argv)
    return (f"exec 3<&0; {command} <&- & p=$!; "
            "{ read _ <&3; kill $p 2>/dev/null; } >/dev/null 2>&1 & wait $p")


def ssh_argv(address: str, settings: Mapping[str, Any], key_file: str | None, remote: str) -> list[str]:
    argv = ["ssh", "-T", "-o", "BatchMode=yes", "-o", f"ConnectTimeout={int(settings.get('ssh_timeout', 10))}",
            "-o", "StrictHostKeyChecking=accept-new", "-p", str(int(settings.get("ssh_port", 22)))]
    if settings.get("ssh_known_hosts"):
        argv += ["-o", f"UserKnownHostsFile={settings['ssh_known_hosts']}"]
    if key_file:
        argv += ["-i", key_file, "-o", "IdentitiesOnly=yes"]
    return argv + [f"{settings.get('ssh_user', 'root')}@{address}", "--", remote]


class SshCommand(ProcessCommand):
    """The local ssh client; closing its stdin tells the remote side (see ``remote_script``) to stop the probe."""

    def __init__(self, argv: list[str], ssh: list[str]) -> None:
        super().__init__(argv, ssh, stdin=subprocess.PIPE)

    def terminate(self) -> None:
        if self._proc.poll() is not None:
            return
        assert self._proc.stdin is not None
        self._proc.stdin.close()  # the remote reader sees EOF and kills the probe
        try:
            self._proc.wait(3)
        except subprocess.TimeoutExpired:
            super().terminate()


class SshEndpoint(Endpoint):
    """A VM reached over SSH; ``addresses`` maps vNIC ids to IPv4 addresses (first one is the default)."""

    def __init__(self, name: str, addresses: dict[str, str], settings: Mapping[str, Any]) -> None:
        if not addresses:
            raise BackendError(f"VM {name} has no IPv4 address", "give a vNIC an ip in the design, or install "
                               "VMware Tools so vCenter reports one")
        if shutil.which("ssh") is None:
            raise BackendError("the ssh program is missing", "install openssh-client")
        self.name, self.addresses, self.settings = name, addresses, dict(settings)
        self._key_dir: str | None = None
        self._key_file = self._keyring_key()

    def _keyring_key(self) -> str | None:
        user = str(self.settings.get("ssh_user", "root"))
        try:
            key = keyring.get_password(SSH_KEY_SERVICE, user)
        except KeyringError:  # no usable keyring here: the agent and ~/.ssh still work
            key = None
        if key is None:
            return None  # the user's ssh-agent or ~/.ssh keys
        self._key_dir = tempfile.mkdtemp(prefix="vnetbench-ssh-")
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._key_dir, True)
        path = os.path.join(self._key_dir, "id")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(key if key.endswith("\n") else key + "\n")
        return path

    def address(self, vnic_id: str | None = None) -> str:
        if vnic_id is None:
            return next(iter(self.addresses.values()))
        if vnic_id not in self.addresses:
            raise BackendError(f"vNIC {vnic_id} of {self.name} has no IPv4 address", "give it an ip in the design")
        return self.addresses[vnic_id]

    def start(self, argv: list[str], cpu: int | None = None) -> RunningCommand:
        return SshCommand(argv, ssh_argv(self.address(), self.settings, self._key_file, remote_script(argv, cpu)))

    def has_program(self, program: str) -> bool:
        probe = ssh_argv(self.address(), self.settings, self._key_file, f"command -v {shlex.quote(program)}")
        try:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise self._unreachable("no answer in 30 s") from None
        if done.returncode == 255:  # ssh's own failure (the probe's status otherwise)
            lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
            raise self._unreachable(lines[-1] if lines else "ssh failed")
        return done.returncode == 0 and bool(done.stdout.strip())

    def _unreachable(self, why: str) -> BackendError:
        """SSH could not get into the VM: name it, the address tried and what to check."""
        user, port = self.settings.get("ssh_user", "root"), int(self.settings.get("ssh_port", 22))
        return BackendError(f"cannot reach VM {self.name} over SSH at {user}@{self.address()} port {port}: {why}",
                            "check that sshd runs in the VM at that address (the design's ip, else the one VMware "
                            "Tools reports), the ssh_user and ssh_port settings, and that your key is in the "
                            f"ssh-agent or in the keyring as {SSH_KEY_SERVICE}/{user}")

    def close(self) -> None:
        """Remove the private key file taken from the keyring (also done when the endpoint is collected)."""
        if self._key_dir:
            self._cleanup()
            self._key_dir = None
