"""Where the lab lives: the host's namespaces (as root) or a private user namespace (rootless).

Rootless, a *holder* process (``unshare --user --map-root-user --net --mount``, then ``sleep``) owns a user
namespace in which we are root, and a mount namespace with its own tmpfs on /run, so ``ip netns add``
works without privileges. Its PID and start time go into the state directory; every later command enters
it with ``nsenter -t PID -U -m -n``. Killing the holder and the processes in its user namespace removes
the whole lab at once: nothing can outlive it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from vnetbench.backends import BackendError
from vnetbench import dirs
from vnetbench.backends.locking import private_dir
from vnetbench.model.fileformat import atomic_write

RUN_NETNS = "/run/netns"
NsId = tuple[int, int]   # a namespace's identity: the device and inode of its nsfs file


def default_state_dir() -> Path:
    """Root: ``/run/vnetbench/lab`` (gone at reboot, like the namespaces). Otherwise the runtime folder, the
    user's state folder (``vnetbench.dirs``: never the cache, where a cleaner may delete the ledger of a
    running lab), or, when neither is writable (``HOME=/nonexistent`` as ``su nobody`` gives), a private
    folder of the user's own under the temporary folder. A ledger an older version left in
    ``~/.cache/vnetbench/lab`` is still used while it holds anything, so a lab running across the upgrade
    is found and torn down."""
    env = os.environ.get("VNETBENCH_LAB_DIR")
    if env:
        return Path(env)
    if os.geteuid() == 0:
        return Path("/run/vnetbench/lab")
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.access(runtime, os.W_OK):
        return Path(runtime) / "vnetbench" / "lab"
    legacy = Path.home() / ".cache" / "vnetbench" / "lab"
    try:
        if any(legacy.iterdir()):
            return legacy
    except OSError:
        pass
    state = dirs.state_dir()
    if os.access(_existing_parent(state), os.W_OK):
        return state / "lab"
    try:
        return private_dir() / "lab"
    except OSError as exc:
        raise BackendError(str(exc.strerror or exc), "set VNETBENCH_LAB_DIR to a folder of your own") from None


def _existing_parent(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def prepare_state_dir(path: Path) -> None:
    """Create the state folder, or say in one line why it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackendError(f"cannot create the lab's state folder {path}: {exc.strerror or exc}",
                           "set VNETBENCH_LAB_DIR to a writable folder") from None


def _start_time(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _ns_id(path: str) -> NsId | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def kill_pids(pids: list[int], grace: float = 0.5) -> None:
    """TERM, then KILL what is still there after ``grace`` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = []
        for pid in pids:
            try:
                os.kill(pid, sig)
                alive.append(pid)
            except ProcessLookupError:
                pass
        if not alive:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(_running(p) for p in alive):
            time.sleep(0.01)
        pids = [p for p in alive if _running(p)]


class Context:
    """The host's namespaces, used directly (root)."""

    mode = "root"

    def __init__(self, state_dir: Path, tag: str) -> None:
        self.state_dir, self.tag = state_dir, tag

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` to run where ``ip netns`` sees the lab's namespaces."""
        return argv

    def in_ns(self, ns: str, argv: list[str]) -> list[str]:
        return self.wrap(["nsenter", f"--net={RUN_NETNS}/{ns}", *argv])

    @property
    def netns_dir(self) -> Path:
        """The lab's /run/netns, as this process sees it."""
        return Path(RUN_NETNS)

    @property
    def alive(self) -> bool:
        return True

    def ensure(self) -> None:
        """Make the lab's context exist (rootless: start the holder)."""

    def namespaces(self, prefix: str) -> list[str]:
        try:
            return sorted(n for n in os.listdir(self.netns_dir) if n.startswith(prefix))
        except OSError:
            return []

    def ns_ids(self, prefix: str) -> dict[str, NsId]:
        """The namespaces whose names start with ``prefix``, with their identities."""
        found = {n: _ns_id(str(self.netns_dir / n)) for n in self.namespaces(prefix)}
        return {n: i for n, i in found.items() if i is not None}

    def protected_ids(self) -> set[NsId]:
        """Namespaces nothing of the lab may ever be: the initial one (PID 1's) and the one we run in."""
        return {i for i in (_ns_id("/proc/1/ns/net"), _ns_id("/proc/self/ns/net")) if i}

    def run_per_ns(self, names: list[str], command: str) -> dict[str, list[str]]:
        """The output lines of ``ip -n NS COMMAND`` for each namespace, from one process for all of them."""
        if not names:
            return {}
        script = 'c=$1; shift; for n; do echo "@$n"; ip -n "$n" $c 2>/dev/null; done'
        proc = subprocess.run(self.wrap(["sh", "-c", script, "sh", command, *names]), capture_output=True,
                              text=True)
        out: dict[str, list[str]] = {}
        lines: list[str] = []
        for line in proc.stdout.splitlines():
            if line.startswith("@"):
                lines = out.setdefault(line[1:], [])
            else:
                lines.append(line)
        return out

    def marks(self, names: list[str]) -> dict[str, str]:
        """The mark each namespace carries (its loopback's alias; "" for none)."""
        marks = {}
        for ns, lines in self.run_per_ns(names, "-o link show dev lo").items():
            text = " ".join(lines)
            marks[ns] = text.split(" alias ", 1)[1].strip() if " alias " in text else ""
        return marks

    def links(self, names: list[str]) -> dict[str, dict[str, str]]:
        """For each namespace: interface name -> its flags line (``ip -o link``)."""
        out = {}
        for ns, lines in self.run_per_ns(names, "-o link show").items():
            links = out[ns] = {}
            for line in lines:
                parts = line.split(":", 2)
                if len(parts) == 3:
                    links[parts[1].strip().split("@")[0]] = parts[2]
        return out

    def pids_in(self, names: list[str]) -> list[int]:
        """Processes whose network namespace is one of ``names`` (so deleting them frees everything).

        Never those of a protected namespace: whatever a name says, the host's processes are not the lab's."""
        ids = {i for i in (_ns_id(str(self.netns_dir / n)) for n in names) if i} - self.protected_ids()
        if not ids:
            return []
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid() and _ns_id(f"/proc/{entry}/ns/net") in ids:
                found.append(int(entry))
        return found

    @property
    def probe_dir(self) -> Path:
        """Where probes started in this lab are noted, one file each, while they run."""
        return self.state_dir / f"{self.tag}.probes"

    def record_probe(self, pid: int) -> Path | None:
        """Note a probe started in the lab, owned by this process: if this process dies without stopping it
        (SIGKILL), the next measure or ``lab status`` does (``reap_probes``). None if it cannot be noted."""
        record = self.probe_dir / f"{pid}.json"
        data = {"pid": pid, "start": _start_time(pid), "owner": os.getpid(), "owner_start": _start_time(os.getpid())}
        try:
            self.probe_dir.mkdir(parents=True, exist_ok=True)
            atomic_write(record, json.dumps(data))
        except OSError:
            return None
        return record

    def reap_probes(self) -> list[int]:
        """Stop the probes whose owner is gone (a measure that was killed): they belong to a run that ended.
        PIDs are matched with their start time, so a reused PID is never stopped."""
        stopped = []
        for record in sorted(self.probe_dir.glob("*.json")):
            try:
                data = json.loads(record.read_text())
                pid, owner = int(data["pid"]), int(data["owner"])
            except (OSError, ValueError, KeyError, TypeError):
                record.unlink(missing_ok=True)
                continue
            if _start_time(owner) == data.get("owner_start"):
                continue                                        # its measure still runs
            if _start_time(pid) == data.get("start"):
                kill_pids([pid])
                stopped.append(pid)
            record.unlink(missing_ok=True)
        return stopped

    def destroy(self) -> None:
        """Remove the context itself (rootless: the holder and everything in its user namespace)."""


class RootlessContext(Context):
    """A lab inside a user namespace held by one ``sleep`` process."""

    mode = "rootless"

    @property
    def holder_file(self) -> Path:
        return self.state_dir / f"{self.tag}.holder"

    def _holder(self) -> int | None:
        try:
            data = json.loads(self.holder_file.read_text())
            pid = int(data["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return pid if _start_time(pid) == data.get("start") else None

    @property
    def pid(self) -> int:
        pid = self._holder()
        if pid is None:
            raise BackendError("the rootless lab is not running", "run `vnetbench lab up FILE` first")
        return pid

    @property
    def alive(self) -> bool:
        return self._holder() is not None

    def wrap(self, argv: list[str]) -> list[str]:
        return ["nsenter", "-t", str(self.pid), "-U", "-m", "-n", "--preserve-credentials", *argv]

    @property
    def netns_dir(self) -> Path:
        pid = self._holder()
        return Path(f"/proc/{pid}/root{RUN_NETNS}") if pid else Path("/nonexistent")

    def ensure(self) -> None:
        if self.alive:
            return
        prepare_state_dir(self.state_dir)
        script = ("mount -t tmpfs -o mode=755 vnetbench /run && mkdir /run/netns && echo ready && "
                  "exec sleep infinity </dev/null >/dev/null 2>&1")
        try:
            proc = subprocess.Popen(["unshare", "--user", "--map-root-user", "--net", "--mount", "sh", "-c", script],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, start_new_session=True)
        except OSError as exc:
            raise BackendError(f"cannot start the rootless lab: {exc}", "install util-linux (unshare)") from None
        line = proc.stdout.readline() if proc.stdout else ""
        if line.strip() != "ready":
            err = proc.stderr.read() if proc.stderr else ""
            proc.kill()
            proc.wait()
            raise BackendError(f"cannot create a user namespace: {err.strip() or 'unshare failed'}",
                               "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) "
                               "or run as root")
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
        tmp = self.holder_file.with_suffix(".tmp")
        tmp.write_text(json.dumps({"pid": proc.pid, "start": _start_time(proc.pid)}))
        tmp.replace(self.holder_file)

    def protected_ids(self) -> set[NsId]:
        holder = self._holder()
        top = _ns_id(f"/proc/{holder}/ns/net") if holder else None
        return super().protected_ids() | ({top} if top else set())

    def destroy(self) -> None:
        pid = self._holder()
        if pid is not None:
            userns = _ns_id(f"/proc/{pid}/ns/user")
            if userns is None or userns in {_ns_id("/proc/1/ns/user"), _ns_id("/proc/self/ns/user")}:
                raise BackendError(f"the recorded lab holder (pid {pid}) is not in a user namespace of its own; "
                                   "nothing was stopped", f"check {self.holder_file}")
            inside = [int(e) for e in os.listdir("/proc")
                      if e.isdigit() and int(e) not in (pid, os.getpid()) and _ns_id(f"/proc/{e}/ns/user") == userns]
            kill_pids(inside)
            kill_pids([pid])
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        self.holder_file.unlink(missing_ok=True)


def make_context(mode: str, state_dir: Path, tag: str) -> Context:
    """``mode``: ``auto`` (root: host namespaces, else rootless), ``root`` or ``rootless``."""
    if mode == "auto":
        mode = "root" if os.geteuid() == 0 else "rootless"
    if mode == "root":
        if os.geteuid() != 0:
            raise BackendError("the local lab's root mode needs root", "use mode rootless (the default when not root)")
        return Context(state_dir, tag)
    if mode == "rootless":
        return RootlessContext(state_dir, tag)
    raise BackendError(f"unknown local lab mode {mode!r}", "use auto, root or rootless")
