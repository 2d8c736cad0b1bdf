"""Round trips over IPv6 with Debian's sockperf 3.7, which parses IPv4 addresses only (IPv6 came in 3.8).

Debian 12 and 13 ship 3.7, and a newer one would have to be built from source, so vnetbench preloads a small
library of its own (``resources/probes/sockperf_inet6.c``) that makes sockperf's sockets IPv6: sockperf is given
the placeholder ``PLACEHOLDER`` and the library maps it to the real IPv6 address named in its environment.
The library is compiled with gcc on first use into the cache folder, under the source's digest.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .. import dirs, resources_dir

SOURCE = resources_dir() / "probes" / "sockperf_inet6.c"
#: The IPv4 address sockperf is given in place of the IPv6 one (TEST-NET-1, never routed).
PLACEHOLDER = "192.0.2.1"
#: The environment variable that maps the placeholder to the IPv6 address (read by the library).
MAP_VARIABLE = "VNETBENCH_INET6"
#: What to install when there is no compiler.
FIX = "install gcc and libc6-dev (apt-get install gcc libc6-dev), or measure round trips with family 4"


class ShimUnavailable(RuntimeError):
    """The library cannot be built here; the message names the fix."""


def library_path() -> Path:
    """Where the library built from this source lives (it may not be built yet)."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    return dirs.cache_dir() / "probes" / f"sockperf_inet6-{digest}.so"


def unavailable() -> str | None:
    """Why round trips over IPv6 cannot run here (no compiler and no library built before), else None."""
    if library_path().is_file() or shutil.which("gcc"):
        return None
    return f"round trips over IPv6 need gcc to build vnetbench's shim for sockperf 3.7 (IPv4 only): {FIX}"


def build() -> Path:
    """The library, compiled now if this source has not been before; ``ShimUnavailable`` if it cannot be."""
    target = library_path()
    if target.is_file():
        return target
    if reason := unavailable():
        raise ShimUnavailable(reason)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=target.parent)
    os.close(fd)
    try:
        done = subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", temporary, str(SOURCE), "-ldl"],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip())
            raise ShimUnavailable(f"gcc could not build vnetbench's shim for sockperf 3.7 ({first.strip()}): "
                                  f"{FIX}")
        os.chmod(temporary, 0o755)
        os.replace(temporary, target)   # atomic: a concurrent run sees no library or a whole one
    finally:
        Path(temporary).unlink(missing_ok=True)
    return target


def wrap(argv: list[str], address: str, library: str | Path) -> list[str]:
    """``argv`` (sockperf given ``PLACEHOLDER``) run with the library preloaded and mapping it to ``address``."""
    return ["env", f"LD_PRELOAD={library}", f"{MAP_VARIABLE}={PLACEHOLDER}={address}", *argv]
