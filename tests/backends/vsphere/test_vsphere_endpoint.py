"""Probes on vSphere VMs over SSH: command building, and the real path against a local sshd in a namespace."""

from __future__ import annotations

import os
import secrets
import subprocess
import time

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from vnetbench.backends.contract import BackendError
from vnetbench_vsphere.ssh import SSH_KEY_SERVICE, SshEndpoint, remote_script, ssh_argv

from vsphere_designs import lab_design


def test_ssh_command_line():
    remote = remote_script(["iperf3", "-c", "10.0.0.2", "--forceflush", "-i", "0.5"], cpu=1)
    assert remote.startswith("exec 3<&0; taskset -c 1 iperf3 -c 10.0.0.2 --forceflush -i 0.5 <&- & p=$!;")
    argv = ssh_argv("10.0.0.1", {"ssh_user": "probe", "ssh_port": 2222, "ssh_known_hosts": "/k"}, "/key", remote)
    assert argv[0] == "ssh" and "BatchMode=yes" in argv and argv[argv.index("-p") + 1] == "2222"
    assert argv[argv.index("-i") + 1] == "/key" and "UserKnownHostsFile=/k" in argv
    assert argv[-3:] == ["probe@10.0.0.1", "--", remote]
    assert "'a b'" in remote_script(["echo", "a b"], None), "arguments are quoted for the remote shell"
    with pytest.raises(ValueError):
        remote_script([], None)


def test_remote_script_semantics_in_a_local_shell():
    """The remote line keeps the probe's output and exit status, and closing stdin ends the probe."""
    done = subprocess.Popen(["sh", "-c", remote_script(["sh", "-c", "echo out; echo err >&2; exit 7"], None)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert (done.stdout.read(), done.wait(10), done.stderr.read()) == ("out\n", 7, "err\n")
    done.stdin.close()  # as sshd does when the session ends: the waiting reader goes away too
    proc = subprocess.Popen(["sh", "-c", remote_script(["sleep", "30"], None)], stdin=subprocess.PIPE)
    time.sleep(0.3)
    proc.stdin.close()
    assert proc.wait(5) != 0      # the reader going away ends the 30 s sleep (wait raises if it does not)


def test_backend_endpoint_addresses(backend):
    design = lab_design()
    with pytest.raises(BackendError, match="not deployed"):
        backend.endpoint(design, "vm-a")
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    endpoint = backend.endpoint(design, "vm-a")
    assert endpoint.address() == "10.0.0.1" and endpoint.address("a1") == "10.10.0.1"
    with pytest.raises(BackendError, match="no IPv4 address"):
        backend.endpoint(design, "vm-c")
    with pytest.raises(BackendError, match="no VM with id"):
        backend.endpoint(design, "nope")


# --- the real SSH path ---------------------------------------------------------------------------------------


def test_probe_over_ssh_with_a_key_from_the_keyring(sshd, memory_keyring):
    memory_keyring.set_password(SSH_KEY_SERVICE, "root", sshd["key"])
    endpoint = SshEndpoint("vm-a", {"a0": sshd["address"]}, sshd["settings"])
    try:
        assert endpoint.has_program("sh") and not endpoint.has_program("no-such-probe-xyz")
        cmd = endpoint.start(["sh", "-c", "echo one; echo two; echo oops >&2; exit 3"])
        assert list(cmd.lines()) == ["one", "two"]
        assert cmd.wait(10) == 3 and "oops" in cmd.stderr()

        pinned = endpoint.start(["grep", "Cpus_allowed_list", "/proc/self/status"], cpu=0)
        assert [line.split()[-1] for line in pinned.lines()] == ["0"] and pinned.wait(10) == 0

        marker = f"{400 + secrets.randbelow(500)}.{secrets.randbelow(1000)}"
        long = endpoint.start(["sleep", marker])
        with pytest.raises(TimeoutError):
            long.wait(0.5)
        long.terminate()
        for _ in range(50):                 # a hang guard of 5 s, not a speed target
            if subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True).returncode != 0:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the remote probe outlived terminate()")
        key_dir = endpoint._key_dir
        assert key_dir and oct(os.stat(os.path.join(key_dir, "id")).st_mode & 0o777) == "0o600"
    finally:
        endpoint.close()
    assert not os.path.exists(key_dir), "the key from the keyring does not outlive the endpoint"


def test_ssh_failure_is_a_clear_error(sshd, memory_keyring):
    endpoint = SshEndpoint("vm-a", {"a0": sshd["address"]}, {**sshd["settings"], "ssh_port": 2223})
    with pytest.raises(BackendError, match="cannot reach VM vm-a over SSH at root@10.213.*port 2223"):
        endpoint.has_program("sh")


def test_without_a_keyring_the_ssh_agent_is_used():
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    try:
        endpoint = SshEndpoint("vm-a", {"a0": "127.0.0.1"}, {})
    finally:
        keyring.set_keyring(previous)
    assert endpoint._key_file is None
