"""Lock files that cannot be fooled by a reused PID, and the per-user folder they and other records live in.

A lock is an ``flock`` on a file, held as long as the file stays open: the kernel drops it when the holder
exits or is killed, so a stale lock never outlives its process, and a recycled PID never looks like a live
holder (what a "pid in a file" check gets wrong). The holder writes its PID into the file only to name it
in messages. Used for one apply or teardown per lab, one measurement per design, one designer window per
autosave slot.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
import time
from pathlib import Path
from types import TracebackType


class Busy(Exception):
    """Someone else holds the lock; ``holder`` is the PID it wrote (text, "?" if none)."""

    def __init__(self, path: Path, holder: str) -> None:
        super().__init__(f"{path} is held by process {holder}")
        self.path, self.holder = path, holder


class LockFile:
    """``with LockFile(path):`` holds an exclusive lock on ``path``, or raises ``Busy`` once ``wait`` seconds
    passed. A short wait covers the moment a killed holder takes to be gone (with the children it forked)."""

    def __init__(self, path: Path, wait: float = 0.0) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN) and time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                holder = os.pread(self.fd, 32, 0).decode(errors="replace").strip() or "?"
                os.close(self.fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise Busy(path, holder) from None
                raise
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, str(os.getpid()).encode(), 0)

    def release(self) -> None:
        """Give the lock up (closing the file is what releases it)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> LockFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()


def is_held(path: Path) -> bool:
    """Whether a live process holds ``path`` (a missing file is not held)."""
    try:
        LockFile(path).release() if path.exists() else None
    except Busy:
        return True
    except OSError:
        return False
    return False


def private_dir() -> Path:
    """``/tmp/vnetbench-UID``, made 0700, for records when no other folder is writable; refused when someone
    else owns it or may write into it, since the records in it name processes that get stopped."""
    own = Path(tempfile.gettempdir()) / f"vnetbench-{os.geteuid()}"
    try:
        own.mkdir(mode=0o700, exist_ok=True)
        info = own.lstat()
    except OSError as exc:
        raise OSError(exc.errno, f"cannot create {own}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or stat.S_IMODE(info.st_mode) & 0o077:
        raise PermissionError(errno.EPERM, f"{own} is not a private folder of this user")
    return own
