"""How the suite runs on several processes (pytest-xdist: a worker per core and one more, ``--dist loadgroup``)
without tests meeting.

- **One X server per worker.** GUI tests wait for their window to become the active one and real drags move the
  pointer; two workers on one screen would take focus and the pointer from each other. Each worker starts its own
  Xvfb, as a child it ends by PID when the worker exits.
- **One worker for the system.** Tests that make network namespaces, links in the root namespace, a libvirtd or
  an sshd compare the host's namespaces and links before and after, so they run one after another, on one worker
  (the ``system`` group, scheduled first because it is the longest). The vcsim tests (``vsphere``) are a group
  of their own beside it: each starts a simulator on a free loopback port and touches no namespace or link; the
  few that start an sshd in a namespace stay in ``system``.
- **A file at a time elsewhere.** Every other test is grouped by its file, so a module's expensive fixtures
  (a built bundle, a debootstrap root) are made once, by one worker.
- **The longest groups first.** xdist hands out groups in the order the workers collected them
  (``--no-loadscope-reorder``; by default it puts the groups with the most tests first, which sent the .deb
  build, six tests and four minutes, to the end, with the other worker idle). ``in_schedule_order`` puts the
  system group first, then every file with a ``slow`` test, then the rest by their number of tests.
"""

from __future__ import annotations

import atexit
import os
import select
import shutil
import subprocess
from pathlib import Path

import pytest

_started: list[subprocess.Popen] = []   # the Xvfb this process started, while it runs

# fixtures that touch the host's network or start system daemons
SYSTEM_FIXTURES = {"lab", "netns_pair", "kvm_host", "sshd", "host_ns"}
SYSTEM_FOLDERS = ("backends", "measure")
# vcsim tests: a simulator per test on a free loopback port; only those with the sshd fixture touch the network
VCSIM_FOLDER = ("backends", "vsphere")
TESTS = Path(__file__).resolve().parent


def is_worker() -> bool:
    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


def start_own_display() -> str | None:
    """Starts an Xvfb for this process and returns its DISPLAY, or None where Xvfb is not installed."""
    if shutil.which("Xvfb") is None or shutil.which("setpriv") is None:
        return None
    read, write = os.pipe()
    # setpriv: the kernel ends the Xvfb if the worker dies without stopping it
    argv = ["setpriv", "--pdeathsig", "TERM", "Xvfb", "-displayfd", str(write), "-screen", "0", "1600x1000x24",
            "-nolisten", "tcp", "-noreset"]
    proc = subprocess.Popen(argv, pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    number = _read_line(read, timeout=20)   # all of it: Xvfb dies of SIGPIPE writing to a closed pipe
    os.close(read)
    if not number.isdigit():
        proc.kill()
        proc.wait()
        return None
    _started.append(proc)
    atexit.register(stop_own_display)
    return f":{number}"


def stop_own_display() -> None:
    """Ends the Xvfb this process started (an xdist worker leaves by ``os._exit``: no atexit runs there)."""
    while _started:
        _stop(_started.pop())



def _read_line(fd: int, timeout: float) -> str:
    text = b""
    while not text.endswith(b"\n") and select.select([fd], [], [], timeout)[0]:
        chunk = os.read(fd, 16)
        if not chunk:
            break
        text += chunk
    return text.decode().strip()


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def group_of(item: pytest.Item) -> str:
    """The xdist group: ``system`` for tests that touch the host's network, else the test's file."""
    path = Path(str(item.fspath)).resolve()
    parts = path.relative_to(TESTS).parts if path.is_relative_to(TESTS) else ()
    system = (item.get_closest_marker("lab") is not None
              or bool(SYSTEM_FIXTURES & set(getattr(item, "fixturenames", ()))))
    if parts[:2] == VCSIM_FOLDER and not system:
        return "vsphere"   # vcsim on a free loopback port, no namespace or link: beside the system worker
    if system or (parts[:1] and parts[0] in SYSTEM_FOLDERS):
        return "system"
    return str(path.relative_to(TESTS)) if path.is_relative_to(TESTS) else path.name


def in_schedule_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with each group's tests together, in the order the groups should start: ``system``, then the
    groups holding a test marked ``slow``, then the others, most tests first; within a group, as collected."""
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        groups.setdefault(group_of(item), []).append(item)

    def rank(group: str) -> tuple[int, int]:
        slow = any(item.get_closest_marker("slow") is not None for item in groups[group])
        return (0 if group == "system" else 1 if slow else 2, -len(groups[group]))
    return [item for group in sorted(groups, key=rank) for item in groups[group]]
