"""The per-user folders, computed in this one place (platformdirs), each kind in its own place:

- config: settings (``~/.config/vnetbench`` on Linux);
- data: what a person would back up, the run store and measured calibrations (``~/.local/share/vnetbench``);
- state: what a session leaves for the next, autosaves, the log, a rootless local lab's ledger
  (``~/.local/state/vnetbench``): never in the cache, where a cleaner may delete the ledger of a running lab;
- cache: what can be rebuilt at any time (``~/.cache/vnetbench``).

``VNETBENCH_DATA_DIR`` puts config, data and state in one folder of the caller's choice (tests use it, so they
never touch a person's files; so can a portable install). It leaves the cache where it is: what is there (the
KVM guest image) can be rebuilt and is the same for everyone, so a private data folder need not build it again.
Nothing here creates a folder: the code that writes there does, so asking costs nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import PlatformDirs

APP = "vnetbench"


def _dirs() -> PlatformDirs:
    return PlatformDirs(APP, appauthor=False, roaming=True)


def _override() -> Path | None:
    env = os.environ.get("VNETBENCH_DATA_DIR")
    return Path(env) if env else None


def config_dir() -> Path:
    return _override() or Path(_dirs().user_config_dir)


def data_dir() -> Path:
    return _override() or Path(_dirs().user_data_dir)


def state_dir() -> Path:
    return _override() or Path(_dirs().user_state_dir)


def cache_dir() -> Path:
    return Path(_dirs().user_cache_dir)


def log_file() -> Path:
    """The log of the command line and the designer (``--verbose``/``--debug`` say how much goes there)."""
    return state_dir() / "vnetbench.log"


def crash_file() -> Path:
    """Where a crash of the designer (a fatal signal in Qt or Python) leaves its tracebacks (faulthandler)."""
    return state_dir() / "crash.log"
