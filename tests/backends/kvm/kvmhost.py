"""A private KVM host for the tests: libvirtd + virtlogd + QEMU (TCG) + userspace Open vSwitch.

Everything runs inside a network and mount namespace this module makes (held by one ``sleep`` process):
its own /etc/libvirt, /var/lib/libvirt, /run/libvirt, /run/openvswitch and /run/netns are directories
under ``root``, bind-mounted over the real ones inside the namespace only, and /dev/kvm is hidden (it is
PVM-only on these machines: ordinary guests hang). So a system libvirtd or OVS is never touched, and nothing
the tests build can leak onto the machine's network. The backend reaches it with the settings ``uri``
(libvirt's socket under ``root``) and ``host_exec`` (``nsenter`` into the namespace).

    python tests/backends/kvm/kvmhost.py DIR     # start one by hand; prints the settings, Ctrl-C stops it
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

DAEMONS = ("libvirtd", "virtlogd", "ovsdb-server", "ovs-vswitchd", "qemu-system-x86_64")
OVS_SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")
BINDS = {"etc-libvirt": "/etc/libvirt", "lib-libvirt": "/var/lib/libvirt", "run-libvirt": "/run/libvirt",
         "log-libvirt": "/var/log/libvirt", "cache-libvirt": "/var/cache/libvirt", "run-ovs": "/run/openvswitch",
         "netns": "/run/netns", "run-sshd": "/run/sshd"}

QEMU_CONF = """\
# A test host: no per-guest mount namespace or cgroups (containers lack them), guests run as root.
namespaces = []
cgroup_controllers = []
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
security_driver = "none"
stdio_handler = "logd"
"""
LIBVIRTD_CONF = """\
unix_sock_group = "root"
unix_sock_rw_perms = "0700"
auth_unix_rw = "none"
auth_unix_ro = "none"
log_outputs = "3:file:{log}"
"""


def missing_tools() -> list[str]:
    return [d for d in DAEMONS if shutil.which(d) is None and not Path(f"/usr/sbin/{d}").exists()]


class KvmHost:
    """Start with ``start()``, stop with ``stop()`` (kills only the processes it started, by PID)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.holder: subprocess.Popen | None = None
        self.pids: dict[str, int] = {}

    # --- what the backend needs -------------------------------------------------------------------

    @property
    def uri(self) -> str:
        return f"qemu:///system?socket={self.root / 'run-libvirt' / 'libvirt-sock'}"

    @property
    def host_exec(self) -> str:
        assert self.holder is not None
        return f"nsenter -t {self.holder.pid} -n -m"

    def settings(self, **extra: str) -> dict[str, str]:
        return {"uri": self.uri, "host_exec": self.host_exec, **extra}

    def run(self, argv: list[str], check: bool = True, **kw) -> subprocess.CompletedProcess:
        """``argv`` inside the host's namespaces."""
        return subprocess.run([*self.host_exec.split(), *argv], check=check, capture_output=True, text=True, **kw)

    # --- life cycle --------------------------------------------------------------------------------

    def start(self, timeout: float = 60) -> None:
        try:
            self._start(timeout)
        except BaseException:
            self.stop()
            raise

    def _start(self, timeout: float) -> None:
        for name in BINDS:
            (self.root / name).mkdir(parents=True, exist_ok=True)
        (self.root / "ovs").mkdir(exist_ok=True)
        (self.root / "etc-libvirt" / "qemu.conf").write_text(QEMU_CONF)
        (self.root / "etc-libvirt" / "libvirtd.conf").write_text(
            LIBVIRTD_CONF.format(log=self.root / "libvirtd.log"))
        mounts = " && ".join(f"mount --bind {self.root / src} {dst}" for src, dst in BINDS.items()
                             if Path(dst).exists() or not os.makedirs(dst, exist_ok=True))
        # libvirt counts /dev/kvm as usable when it may open it read-write, and re-probes QEMU (40 s) on every
        # define while that disagrees with its cached probe: a read-only empty file in its place settles it.
        (self.root / "no-kvm").touch()
        hide_kvm = (f"{{ [ ! -e /dev/kvm ] || {{ mount --bind {self.root / 'no-kvm'} /dev/kvm && "
                    "mount -o remount,bind,ro /dev/kvm; }; }")
        script = f"{mounts} && {hide_kvm} && ip link set lo up && echo ready && exec sleep 2147483647"
        self.holder = subprocess.Popen(["unshare", "--net", "--mount", "--propagation", "private", "sh", "-c", script],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                       start_new_session=True)
        assert self.holder.stdout is not None
        if self.holder.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the KVM test host did not start: {self.holder.stderr.read() if self.holder.stderr else ''}")
        ovs = self.root / "ovs"
        db = ovs / "conf.db"
        if not db.exists():
            self.run(["ovsdb-tool", "create", str(db), str(OVS_SCHEMA)])
        env = f"env OVS_RUNDIR={self.root / 'run-ovs'} OVS_DBDIR={ovs} OVS_LOGDIR={ovs}"
        self._daemon("ovsdb-server", f"{env} ovsdb-server {db} --remote=punix:/run/openvswitch/db.sock "
                                     f"--pidfile=/run/openvswitch/ovsdb-server.pid --log-file={ovs}/ovsdb.log "
                                     "--unixctl=/run/openvswitch/ovsdb-server.ctl",
                     self.root / "run-ovs" / "db.sock", timeout)
        self.run(["ovs-vsctl", "--no-wait", "init"])
        self._daemon("ovs-vswitchd", f"{env} ovs-vswitchd unix:/run/openvswitch/db.sock "
                                     f"--pidfile=/run/openvswitch/ovs-vswitchd.pid --log-file={ovs}/vswitchd.log",
                     None, timeout)
        self._daemon("virtlogd", f"virtlogd -p {self.root}/virtlogd.pid", self.root / "run-libvirt" / "virtlogd-sock", timeout)
        self._daemon("libvirtd", f"libvirtd -f /etc/libvirt/libvirtd.conf -p {self.root}/libvirtd.pid",
                     self.root / "run-libvirt" / "libvirt-sock", timeout)

    def _daemon(self, name: str, command: str, ready: Path | None, timeout: float) -> None:
        log = open(self.root / f"{name}.out", "ab")
        proc = subprocess.Popen([*self.host_exec.split(), "sh", "-c", f"exec {command}"], stdin=subprocess.DEVNULL,
                                stdout=log, stderr=log, start_new_session=True)
        self.pids[name] = proc.pid
        deadline = time.monotonic() + timeout
        while ready is not None and not ready.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start: {(self.root / f'{name}.out').read_text()[-800:]}")
            time.sleep(0.05)
        if name == "ovs-vswitchd":
            self.run(["ovs-vsctl", "--timeout=30", "show"])

    def stop(self) -> None:
        """Kill the daemons (libvirtd first: it would restart guests), their QEMUs, then the holder."""
        for name in ("libvirtd", "virtlogd", "ovs-vswitchd", "ovsdb-server"):
            pid = self.pids.pop(name, None)
            if pid:
                _kill(pid)
        if self.holder is not None:
            netns = f"/proc/{self.holder.pid}/ns/net"
            ours = _ns(netns)
            for entry in os.listdir("/proc"):       # QEMU and probes left in the host's network namespace
                if entry.isdigit() and int(entry) != self.holder.pid and ours and _ns(f"/proc/{entry}/ns/net") == ours:
                    _kill(int(entry))
            _kill(self.holder.pid)
            self.holder = None


SSHD_CONF = """\
ListenAddress 127.0.0.1:22
HostKey {root}/host-key
AuthorizedKeysFile {root}/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
"""
SSH_CONF = """\
Host kvm-remote
  HostName 127.0.0.1
  User root
  IdentityFile {root}/client-key
  IdentitiesOnly yes
  UserKnownHostsFile /dev/null
  StrictHostKeyChecking no
  BatchMode yes
  LogLevel ERROR
"""


class SshRemote:
    """A real sshd inside the KVM host's namespaces (127.0.0.1:22 of its network namespace, its mount
    namespace: /run/libvirt is the test host's), with keys of its own. A client in that network namespace
    (``host.client()``) reaches the host only through ssh, as it would reach a remote KVM host."""

    def __init__(self, host: KvmHost, root: Path) -> None:
        self.host, self.root = host, root
        self.proc: subprocess.Popen | None = None

    @property
    def config(self) -> Path:
        return self.root / "ssh_config"

    @property
    def host_exec(self) -> str:
        return f"ssh -F {self.config} kvm-remote"

    @property
    def uri(self) -> str:
        """libvirt over ssh; ``command`` is an ssh that reads this config (the known hosts and key stay here)."""
        return f"qemu+ssh://kvm-remote/system?command={self.root / 'ssh'}"

    def client(self, argv: list[str]) -> list[str]:
        """``argv`` run in the KVM host's network namespace only (this machine's mounts: no libvirt socket)."""
        assert self.host.holder is not None
        return ["nsenter", "-t", str(self.host.holder.pid), "-n", *argv]

    def start(self, timeout: float = 30) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        for key in ("host-key", "client-key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.root / key)], check=True)
        (self.root / "authorized_keys").write_text((self.root / "client-key.pub").read_text())
        (self.root / "sshd_config").write_text(SSHD_CONF.format(root=self.root))
        self.config.write_text(SSH_CONF.format(root=self.root))
        wrapper = self.root / "ssh"
        wrapper.write_text(f'#!/bin/sh\nexec ssh -F {self.config} "$@"\n')
        wrapper.chmod(0o755)
        self.proc = subprocess.Popen([*self.host.host_exec.split(), "/usr/sbin/sshd", "-D", "-e", "-f",
                                      str(self.root / "sshd_config")], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.root / "sshd.log", "ab"),
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while subprocess.run(self.client([*self.host_exec.split(), "true"]), capture_output=True).returncode != 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"sshd did not start: {(self.root / 'sshd.log').read_text()[-800:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None:
            _kill(self.proc.pid)
            self.proc = None


def listing(host: KvmHost) -> dict[str, object]:
    """What libvirt, Open vSwitch and the kernel hold, by name (and state), for before/after comparisons."""
    import libvirt

    conn = libvirt.open(host.uri)
    try:
        domains = sorted((d.name(), d.isActive()) for d in conn.listAllDomains())
        networks = sorted((n.name(), n.isActive()) for n in conn.listAllNetworks())
    finally:
        conn.close()
    links = sorted(link["ifname"] for link in json.loads(host.run(["ip", "-j", "link", "show"]).stdout))
    bridges = host.run(["ovs-vsctl", "list-br"]).stdout.split()
    ports = {br: host.run(["ovs-vsctl", "list-ports", br]).stdout.split() for br in bridges}
    return {"domains": domains, "networks": networks, "links": links, "netns": host.run(["ip", "netns"]).stdout,
            "ovs": ports, "qdiscs": host.run(["tc", "qdisc", "show"]).stdout}


def _ns(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _kill(pid: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        for _ in range(50):
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    return
            except ChildProcessError:
                if not Path(f"/proc/{pid}").exists():
                    return
            time.sleep(0.04)


def main() -> int:
    host = KvmHost(Path(sys.argv[1]).resolve())
    signal.signal(signal.SIGTERM, signal.default_int_handler)       # TERM stops it as cleanly as Ctrl-C
    host.start()
    print(f"--set uri='{host.uri}' --set host_exec='{host.host_exec}'", flush=True)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        host.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
