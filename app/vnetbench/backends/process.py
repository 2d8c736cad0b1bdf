"""A probe command that runs as a local process: what most backends' endpoints are made of.

The local lab runs the probe itself (inside a namespace); the vSphere and KVM backends run an ``ssh``
client whose remote side is the probe. Either way it is one local process whose stdout is streamed line
by line; stderr is collected on a thread, so a chatty probe can never block on a full pipe.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator

from .contract import BackendError, RunningCommand


class ProcessCommand(RunningCommand):
    """``argv`` is what the user asked for (for messages); ``full_argv`` what actually runs."""

    def __init__(self, argv: list[str], full_argv: list[str], stdin: int = subprocess.DEVNULL) -> None:
        self.argv = argv
        try:
            self._proc = subprocess.Popen(full_argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, bufsize=1)
        except OSError as exc:
            raise BackendError(f"cannot start {full_argv[0]}: {exc}", f"install {full_argv[0]} on this machine") from None
        self._err: list[str] = []
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        """The process id: the only process terminate() may signal."""
        return self._proc.pid

    def _read_stderr(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self._err.append(line)

    def lines(self) -> Iterator[str]:
        """Its output line by line as it comes (live samples need each line at once)."""
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            yield line.rstrip("\n")

    def wait(self, timeout: float | None = None) -> int:
        """Its exit code; ``TimeoutError`` if it runs longer than ``timeout`` seconds."""
        try:
            code = self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"{self.argv[0]} still runs after {timeout} s") from None
        self._reader.join(1)
        return code

    def stderr(self) -> str:
        """What it wrote to stderr so far (read on a thread, so a full pipe never blocks it)."""
        self._reader.join(1 if self._proc.poll() is not None else 0)
        return "".join(self._err)

    def send(self, text: str) -> None:
        """Write ``text`` to its stdin (started with ``stdin=subprocess.PIPE``)."""
        if self._proc.stdin is None:
            super().send(text)
            return
        try:
            self._proc.stdin.write(text)
            self._proc.stdin.flush()
        except (OSError, ValueError) as exc:
            raise BackendError(f"{self.argv[0]} no longer reads its input: {exc}", "start it again") from None

    def close_input(self) -> None:
        """Close its stdin (a helper reading it then ends)."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            try:
                self._proc.stdin.close()
            except OSError:
                pass

    def terminate(self) -> None:
        """SIGTERM, then SIGKILL after two seconds; only this process, which we started."""
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
