"""Host pNIC counters for ``vnetbench verify``: ``esxcli network nic stats get`` over SSH to each ESXi host.

The performance manager cannot prove a path (its real-time samples each sum 20 s, see the README), so the
counters are read where they are exact: on the host, right before and right after a burst. One ``ssh`` per
host per read runs esxcli once per vmnic; hosts are read side by side. A host is reached at its name as
vCenter knows it (the design's host name; ``~/.ssh/config`` may map it to another address), as
``esxi_ssh_user``, with ``esxi_ssh_identity`` or else the user's ssh-agent and ``~/.ssh`` keys.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shlex
import subprocess
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from vnetbench.backends.contract import BackendError
from vnetbench.model import HostKind, Topology

from .ssh import ssh_argv

#: The settings that let verify read host counters (the user turns it on; the identity is optional).
USER_SETTING = "esxi_ssh_user"
IDENTITY_SETTING = "esxi_ssh_identity"
#: The line the remote loop prints before each vmnic's CSV, so each block is known by the NIC it was asked for.
MARK = "vnetbench-nic"
#: How long one host's read may take in all, and how long a host that failed is left alone: one verification
#: reads before and after every batch, and should not wait out an unreachable host's timeout each time.
READ_TIMEOUT_S = 30
RETRY_AFTER_S = 60.0


def not_set(hosts: list[str]) -> str:
    """Why no counters are read when no host SSH user is given, and how to turn it on."""
    return (f"this vSphere connection does not read host pNIC counters (of {', '.join(hosts) or 'no host'}): no "
            f"{USER_SETTING} is set; set {USER_SETTING} (and {IDENTITY_SETTING}, or load the key in ssh-agent) in "
            "the vSphere settings and enable SSH on the ESXi hosts to check observed paths")


class HostUnreadable(Exception):
    """One host's counters could not be read; the message is ssh's or esxcli's own last line."""


def remote_command(devices: list[str]) -> str:
    """The shell line run on the host: esxcli's CSV for each vmnic, each after a ``MARK`` line naming it; the
    first esxcli that fails ends it with esxcli's status."""
    names = " ".join(shlex.quote(d) for d in devices)
    return (f'for n in {names}; do echo "{MARK} $n"; '
            'esxcli --formatter=csv network nic stats get -n "$n" || exit $?; done')


def host_argv(address: str, settings: Mapping[str, Any], devices: list[str]) -> list[str]:
    """The ssh command that reads ``devices`` on the host at ``address`` (BatchMode: never a password prompt)."""
    ssh_settings = {"ssh_user": settings[USER_SETTING], "ssh_port": settings.get("esxi_ssh_port", 22),
                    "ssh_timeout": settings.get("esxi_ssh_timeout", 10),
                    "ssh_known_hosts": settings.get("ssh_known_hosts")}
    identity = os.path.expanduser(str(settings.get(IDENTITY_SETTING) or "")) or None
    return ssh_argv(address, ssh_settings, identity, remote_command(devices))


def _key(name: str) -> str:
    """A CSV column as esxcli names it, made comparable: ``Bytes received`` in the text output is
    ``Bytesreceived`` in the CSV header."""
    return re.sub(r"[^a-z]", "", name.lower())


def parse_nic_stats(text: str) -> dict[str, int]:
    """Bytes received + sent by each vmnic, from the output of ``remote_command`` (``ValueError`` if a block
    lacks the byte counters)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(MARK + " "):
            current = blocks.setdefault(line[len(MARK) + 1:].strip(), [])
        elif current is not None and line.strip():
            current.append(line)
    out: dict[str, int] = {}
    for nic, lines in blocks.items():
        rows = [{_key(k): (v or "").strip() for k, v in row.items() if k}
                for row in csv.DictReader(io.StringIO("\n".join(lines)))]
        if not rows or not rows[0].get("bytesreceived") or not rows[0].get("bytessent"):
            raise ValueError(f"esxcli printed no 'Bytes received'/'Bytes sent' for {nic}")
        out[nic] = int(rows[0]["bytesreceived"]) + int(rows[0]["bytessent"])
    return out


def read_host(address: str, settings: Mapping[str, Any], devices: list[str]) -> dict[str, int]:
    """Bytes per vmnic on one host; ``HostUnreadable`` with the reason in one line."""
    try:
        done = subprocess.run(host_argv(address, settings, devices), capture_output=True, text=True,
                              timeout=READ_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise HostUnreadable("the ssh program is missing (install openssh-client)") from None
    except subprocess.TimeoutExpired:
        raise HostUnreadable(f"no answer in {READ_TIMEOUT_S} s") from None
    # esxcli may print its error on stdout; ssh's own are on stderr
    lines = [line.strip() for text in (done.stdout, done.stderr) for line in text.splitlines() if line.strip()]
    why = lines[-1] if lines else f"exit status {done.returncode}"
    if done.returncode == 255:
        raise HostUnreadable(f"ssh failed: {why}")
    if done.returncode == 127:
        raise HostUnreadable(f"esxcli is not there (is this an ESXi host?): {why}")
    if done.returncode != 0:
        raise HostUnreadable(f"esxcli failed: {why}")
    try:
        counted = parse_nic_stats(done.stdout)
    except ValueError as exc:
        raise HostUnreadable(str(exc)) from None
    missing = [d for d in devices if d not in counted]
    if missing:
        raise HostUnreadable(f"esxcli said nothing about {', '.join(missing)}")
    return counted


class HostCounters:
    """Reads the design's pNIC counters on its ESXi hosts; remembers for a while which hosts failed."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings
        self._failed: dict[str, tuple[float, str]] = {}     # host name -> (when, why)

    def read(self, design: Topology) -> dict[str, int]:
        """Bytes each design pNIC carried (rx + tx), by pNIC id; ``BackendError`` naming every host that
        could not be read, since a pNIC left out would look like one that counted nothing."""
        hosts = [h for h in design.hosts if h.kind is HostKind.ESXI and h.pnics]
        if not self.settings.get(USER_SETTING):
            raise BackendError(not_set([h.name for h in hosts]), f"set {USER_SETTING} in the vSphere settings")
        now = time.monotonic()
        errors = [f"{h.name}: {seen[1]}" for h in hosts
                  if (seen := self._failed.get(h.name)) and now - seen[0] < RETRY_AFTER_S]
        if errors:
            raise self._error(errors)
        with ThreadPoolExecutor(max_workers=max(1, min(8, len(hosts)))) as pool:
            jobs = {h.name: pool.submit(read_host, h.name, self.settings, sorted({p.name for p in h.pnics}))
                    for h in hosts}
        out: dict[str, int] = {}
        for h in hosts:
            try:
                counted = jobs[h.name].result()
            except HostUnreadable as exc:
                self._failed[h.name] = (time.monotonic(), str(exc))
                errors.append(f"{h.name}: {exc}")
                continue
            self._failed.pop(h.name, None)
            out.update({p.id: counted[p.name] for p in h.pnics})
        if errors:
            raise self._error(errors)
        return out

    def _error(self, errors: list[str]) -> BackendError:
        """One line with each host, its reason and the fix (verify shows the message, not the hint)."""
        fix = (f"enable SSH on the host and check {USER_SETTING} ({self.settings.get(USER_SETTING)}) and "
               f"{IDENTITY_SETTING} in the vSphere settings")
        return BackendError(f"cannot read the pNIC counters of ESXi host {'; '.join(errors)}: {fix}", fix)
