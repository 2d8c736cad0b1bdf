"""Fixtures for the vSphere backend tests: a vcsim per test, an in-memory keyring, a connected backend."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time

import keyring
import pytest

from vcsim_tools import MemoryKeyring, ToolMissing, Vcsim, go_tool, make_backend


@pytest.fixture(scope="session")
def vcsim_tools() -> None:
    try:
        go_tool("vcsim")
        go_tool("govc")
    except ToolMissing as exc:
        if os.environ.get("CI"):  # CI installs Go (scripts/setup.sh): a missing tool there is a failure
            pytest.fail(str(exc))
        pytest.skip(str(exc))


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


@pytest.fixture
def vcsim(vcsim_tools):
    sim = Vcsim()
    yield sim
    sim.stop()


@pytest.fixture
def backend(vcsim, memory_keyring, tmp_path):
    be = make_backend(vcsim, memory_keyring, tmp_path)
    be.connect()
    yield be
    be.close()


# --- a real sshd, for the SSH paths (VM probes, ESXi host counters) ------------------------------------


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True, timeout=30)


@pytest.fixture
def sshd(tmp_path):
    """sshd in a network namespace of its own, reached over a veth pair (unique names, removed afterwards).

    Its sessions' PATH starts with the empty folder ``bin``, where a test may put programs the remote side
    runs (the ESXi counter test puts a fake esxcli there)."""
    if os.geteuid() != 0 or not shutil.which("ip") or not os.path.exists("/usr/sbin/sshd"):
        pytest.skip("needs root, iproute2 and openssh-server (scripts/setup.sh installs it)")
    tag = secrets.token_hex(3)
    ns, host_if, ns_if = f"vnbssh-{tag}", f"vnbs{tag}a", f"vnbs{tag}b"
    net = 16 + secrets.randbelow(200)
    host_ip, ns_ip = f"10.213.{net}.1", f"10.213.{net}.2"
    for name in ("hostkey", "client"):
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / name))
    shutil.copy(tmp_path / "client.pub", tmp_path / "authorized_keys")
    (tmp_path / "bin").mkdir()
    config = tmp_path / "sshd_config"
    config.write_text(f"Port 2222\nListenAddress {ns_ip}\nHostKey {tmp_path / 'hostkey'}\n"
                      f"AuthorizedKeysFile {tmp_path / 'authorized_keys'}\nPidFile {tmp_path / 'sshd.pid'}\n"
                      "UsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                      "KbdInteractiveAuthentication no\n"
                      f"SetEnv PATH={tmp_path / 'bin'}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n")
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
    _run("ip", "netns", "add", ns)
    proc = None
    try:
        _run("ip", "link", "add", host_if, "type", "veth", "peer", "name", ns_if, "netns", ns)
        _run("ip", "addr", "add", f"{host_ip}/30", "dev", host_if)
        _run("ip", "link", "set", host_if, "up")
        _run("ip", "-n", ns, "addr", "add", f"{ns_ip}/30", "dev", ns_if)
        _run("ip", "-n", ns, "link", "set", ns_if, "up")
        _run("ip", "-n", ns, "link", "set", "lo", "up")
        proc = subprocess.Popen(["ip", "netns", "exec", ns, "/usr/sbin/sshd", "-D", "-e", "-f", str(config)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        while not (tmp_path / "sshd.pid").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"sshd did not start: {proc.stderr.read() if proc.poll() is not None else 'timeout'}")
            time.sleep(0.05)
        yield {"address": ns_ip, "key": (tmp_path / "client").read_text(), "ns": ns, "bin": tmp_path / "bin",
               "key_file": str(tmp_path / "client"),
               "settings": {"ssh_user": "root", "ssh_port": 2222, "ssh_known_hosts": str(tmp_path / "known_hosts")}}
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait(10)
        subprocess.run(["ip", "link", "del", host_if], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
