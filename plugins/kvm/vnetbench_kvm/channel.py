"""Probes inside a guest over its virtio-serial command channel: no network path, no SSH, no guest agent.

Each guest has ``SLOTS`` ports ``vnetbench.0..N``; the probe guest serves each with one small shell agent
(``guest/agent``). A command opens a free slot through libvirt (``virDomainOpenChannel``, so it works over
``qemu+ssh://`` too; a slot another client holds is refused, which is the lock), sends ``TOKEN command``,
and reads the command's stdout as it comes, then ``TOKEN exit N``, its stderr and ``TOKEN end``. Sending
anything more, or closing the stream, stops the command inside the guest.
"""

from __future__ import annotations

import queue
import re
import shlex
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from vnetbench.backends import BackendError, Endpoint, RunningCommand
from vnetbench.backends.addresses import endpoint_address, family_address

from .guestimage import SHIM, SLOTS

_END = object()
_FOREIGN = re.compile(r"^[0-9a-f]{12} (exit \d+|e .*|end)$")


def _libvirt() -> Any:
    import libvirt
    return libvirt


class GuestCommand(RunningCommand):
    """One command in one slot; ``opener`` returns a fresh libvirt connection (closed when the command ends)."""

    def __init__(self, opener: Callable[[], Any], domain: str, argv: list[str], script: str) -> None:
        libvirt = _libvirt()
        self.argv = argv
        self._conn = opener()
        try:
            dom = self._conn.lookupByName(domain)
        except libvirt.libvirtError:
            self._conn.close()
            raise BackendError(f"guest {domain} is not defined", "deploy the design first") from None
        self._stream = None
        for slot in range(SLOTS):
            stream = self._conn.newStream(0)
            try:
                dom.openChannel(f"vnetbench.{slot}", stream, 0)
            except libvirt.libvirtError:
                continue
            self._stream = stream
            break
        if self._stream is None:
            self._conn.close()
            raise BackendError(f"all {SLOTS} command slots of {domain} are busy (or it is not running)",
                               "wait for running probes to end, or start the guest")
        self.token = uuid.uuid4().hex[:12]
        self._lines: queue.Queue[Any] = queue.Queue()
        self._err: list[str] = []
        self._code: int | None = None
        self._lock = threading.Lock()
        self._stream.send(f"{self.token} {script}\n".encode())
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"vnetbench-{domain}")
        self._reader.start()

    def _read(self) -> None:
        buffer, held = b"", None
        try:
            while True:
                try:
                    data = self._stream.recv(65536)
                except Exception:  # noqa: BLE001 - the guest or the connection went away
                    data = b""
                if not isinstance(data, bytes) or not data:
                    self._err.append("the guest closed the command channel")
                    self._code = 255
                    return
                buffer += data
                *complete, buffer = buffer.split(b"\n")
                for raw in complete:
                    line = raw.decode(errors="replace")
                    if line.startswith(self.token + " "):
                        word, _, rest = line[len(self.token) + 1:].partition(" ")
                        if word == "exit":
                            held, self._code = None, int(rest)
                        elif word == "e":
                            self._err.append(rest + "\n")
                        elif word == "end":
                            return
                        continue
                    if _FOREIGN.match(line):
                        continue                      # the tail of an earlier, stopped command in this slot
                    if held is not None:
                        self._lines.put(held)
                    held = line if line == "" else None
                    if held is None:
                        self._lines.put(line)
        finally:
            self._lines.put(_END)
            self._close()

    def _close(self) -> None:
        with self._lock:
            if self._stream is not None:
                try:
                    self._stream.abort()
                except Exception:  # noqa: BLE001 - closing what may be gone already
                    pass
                self._stream = None
                try:
                    self._conn.close()
                except Exception:  # noqa: BLE001
                    pass

    def lines(self) -> Iterator[str]:
        while True:
            item = self._lines.get()
            if item is _END:
                self._lines.put(_END)
                return
            yield item

    def wait(self, timeout: float | None = None) -> int:
        self._reader.join(timeout)
        if self._reader.is_alive():
            raise TimeoutError(f"{self.argv[0]} still runs after {timeout} s")
        return self._code if self._code is not None else 255

    def stderr(self) -> str:
        return "".join(self._err)

    def terminate(self) -> None:
        with self._lock:
            if self._stream is not None:
                try:
                    self._stream.send(b"stop\n")
                except Exception:  # noqa: BLE001 - the command may have ended meanwhile
                    pass
        self._reader.join(5)
        self._close()


def run(opener: Callable[[], Any], domain: str, script: str, timeout: float) -> tuple[int, str, str]:
    """Run ``script`` to its end: (exit status, stdout, stderr); ``TimeoutError`` after ``timeout`` s."""
    cmd = GuestCommand(opener, domain, ["sh", "-c", script], script)
    try:
        code = cmd.wait(timeout)
        return code, "\n".join(cmd.lines()), cmd.stderr()
    finally:
        cmd.terminate()


class GuestEndpoint(Endpoint):
    """A deployed guest; probes run inside it through the command channel."""

    def __init__(self, opener: Callable[[], Any], name: str, domain: str, addresses: dict[str, str],
                 cpus: int, addresses6: dict[str, str] | None = None) -> None:
        self.opener, self.name, self.domain, self.addresses, self.cpus = opener, name, domain, addresses, cpus
        self.addresses6 = addresses6 or {}

    def address(self, vnic_id: str | None = None) -> str:
        return endpoint_address(self.name, self.addresses, vnic_id)

    def address_in(self, family: int, vnic_id: str | None = None) -> str:
        return family_address(self.name, self.addresses, self.addresses6, family, vnic_id)

    def start(self, argv: list[str], cpu: int | None = None) -> RunningCommand:
        if not argv:
            raise BackendError("no command to run", "name a program")
        pinned = ["taskset", "-c", str(cpu % self.cpus), *argv] if cpu is not None else list(argv)
        return GuestCommand(self.opener, self.domain, list(argv), "exec " + shlex.join(pinned))

    def has_program(self, program: str) -> bool:
        code, _, _ = run(self.opener, self.domain, f"command -v {shlex.quote(program)} >/dev/null", 60)
        return code == 0

    def sockperf_inet6(self) -> str:
        """The copy the probe guest image carries (built with the image, so nothing is built here)."""
        return "/" + SHIM
