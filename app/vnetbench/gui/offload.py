"""Heavy pure-Python work in a process of its own, so the GUI thread never waits for the interpreter lock.

A worker thread of the designer shares the interpreter lock (GIL) with the GUI thread: while it reads a design
of 10,000 VMs, lays it out or validates it, every slot and paint the event loop runs waits for the lock, and a
single long C call (unpickling a design: about 150 ms) holds it throughout. The window then stops answering
for hundreds of milliseconds while the GUI thread itself computes nothing. ``in_process`` runs such work in a
child process instead, from inside a ``Task``: the task's thread only waits on a pipe, which leaves the lock
free. Each function gets a child of its own (its lane), started on first use and kept for the next call, so a
call costs a round trip rather than a new interpreter; ``cancel`` ends the child, and the next call starts one.

What comes back must still be unpickled here, by a worker thread: ``loads`` does that a 64 KiB pickle frame at a
time, and between frames the GUI thread can take the lock (``pickle.loads`` holds it for the whole design).

The functions live in ``jobs`` (no Qt there, so a child starts quickly). Arguments and results travel pickled:
keep them compact (bytes, short lists). A failure comes back as the exception the function raised, or as a
``RuntimeError`` with its message when that exception cannot be pickled.
"""

from __future__ import annotations

import io
import multiprocessing
import pickle
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from ..backends import CancelToken, Cancelled

T = TypeVar("T")

#: How often (seconds) the waiting thread looks at the cancel token.
POLL = 0.05
#: A design whose pickle is at least this large is validated in a child process (a small one at once, in a thread).
LARGE_BYTES = 512 * 1024

_context = multiprocessing.get_context("spawn")   # a fresh interpreter: never a fork of a process running Qt


class _Lane:
    """One child process serving one function's calls, one call at a time."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.Lock()
        self.child: BaseProcess | None = None
        self.pipe: Connection | None = None

    def call(self, fn: Callable[..., T], args: tuple, cancel: CancelToken | None) -> T:
        with self.lock:
            if self.child is None or not self.child.is_alive():
                self._start()
            assert self.pipe is not None and self.child is not None
            try:
                self.pipe.send((fn, args))
                while not self.pipe.poll(POLL):
                    if cancel is not None and cancel.cancelled:
                        self._stop()
                        raise Cancelled()
                    if not self.child.is_alive() and not self.pipe.poll(0):
                        raise EOFError
                ok, value = self.pipe.recv()
            except (EOFError, OSError):
                child = self.child
                self._stop()
                raise RuntimeError(f"the worker process for {self.name} ended without an answer "
                                   f"(exit code {child.exitcode})") from None
        if not ok:
            raise value
        return value

    def _start(self) -> None:
        self.pipe, theirs = _context.Pipe()
        self.child = _context.Process(target=_serve, args=(theirs,), name=f"vnetbench-{self.name}", daemon=True)
        self.child.start()
        theirs.close()

    def _stop(self) -> None:
        """End the child (we started it) and forget it."""
        if self.pipe is not None:
            self.pipe.close()
        if self.child is not None:
            if self.child.is_alive():
                self.child.terminate()
            self.child.join()
        self.child = self.pipe = None


class _Frames(io.BytesIO):
    """Bytes the unpickler reads through Python-level methods: each call, once per pickle frame, is a point
    where the interpreter hands the lock to a thread that waits for it."""

    def read(self, size: int | None = -1) -> bytes:
        return super().read(size)

    def readinto(self, buffer: Any) -> int:
        return super().readinto(buffer)

    def readline(self, size: int | None = -1) -> bytes:
        return super().readline(size)


def loads(data: bytes) -> Any:
    """``pickle.loads(data)``, letting other threads run between its frames (a design of 10,000 VMs: about
    100 of 64 KiB, rather than one call of 150 ms that no other thread can interrupt)."""
    return pickle.load(_Frames(data))


_lanes: dict[str, _Lane] = {}
_lanes_lock = threading.Lock()


def in_process(fn: Callable[..., T], *args: Any, cancel: CancelToken | None = None) -> T:
    """``fn(*args)`` computed in the child process kept for ``fn`` (``fn`` importable by name, the arguments
    picklable); raises what ``fn`` raised, or ``Cancelled`` soon after ``cancel`` is set (the child is ended)."""
    with _lanes_lock:
        lane = _lanes.setdefault(fn.__qualname__, _Lane(fn.__name__))
    return lane.call(fn, args, cancel)


def _serve(pipe: Connection) -> None:
    """In the child: answer calls ``(fn, args)`` with ``(True, result)`` or ``(False, exception)`` until the
    parent closes the pipe."""
    while True:
        try:
            fn, args = pipe.recv()
        except EOFError:
            return
        try:
            answer: tuple[bool, Any] = (True, fn(*args))
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent, never lost here
            answer = (False, _travelling(exc))
        pipe.send(answer)


def _travelling(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling (many exceptions with their own ``__init__`` do not), else a
    ``RuntimeError`` with its message: the parent shows the same text."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - whatever stops it travelling, its message still does
        return RuntimeError(str(exc))
    return exc
