"""Type errors may only go down: mypy's errors counted per folder against scripts/mypy-ratchet.txt.

    python scripts/mypy_ratchet.py            # run mypy, fail if a folder has more errors than its line allows
    python scripts/mypy_ratchet.py --update   # after fixing some: write the lower counts (never raises one)

A folder is a room of the package (``app/vnetbench/gui``), a plugin (``plugins/kvm``), or the package's own top-level
modules (``app/vnetbench``). A folder at 0 must stay at 0; a new folder starts at 0. The core rooms (``ZERO``) must
have none whatever the file says. Counting per folder lets several people add code at once: a merge only conflicts on
the lines of the folders both touched.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RATCHET = ROOT / "scripts" / "mypy-ratchet.txt"
TARGETS = ["app/vnetbench", "plugins/local/vnetbench_local", "plugins/kvm/vnetbench_kvm",
           "plugins/vsphere/vnetbench_vsphere"]
#: the core rooms: no type errors at all (issue 31), so the file may not allow them any
ZERO = ("app/vnetbench/model", "app/vnetbench/predict", "app/vnetbench/backends", "app/vnetbench/measure")
ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+: error:")


def folder(path: str) -> str:
    """The ratchet's folder of a source file."""
    parts = Path(path).parts
    if parts[0] == "plugins":
        return "/".join(parts[:2])
    return "/".join(parts[:3]) if len(parts) > 3 else "/".join(parts[:2])


def count(output: str) -> Counter[str]:
    """Errors per folder in mypy's output."""
    return Counter(folder(m["path"]) for line in output.splitlines() if (m := ERROR.match(line)))


def read(path: Path = RATCHET) -> dict[str, int]:
    """The allowed counts: ``folder count`` per line; # starts a comment. The core rooms (``ZERO``) are always 0."""
    allowed = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, number = line.split()
            allowed[name] = int(number)
    return allowed | {name: 0 for name in ZERO}


def write(allowed: dict[str, int], path: Path = RATCHET) -> None:
    head = [line for line in path.read_text().splitlines() if line.startswith("#")]
    body = [f"{name} {allowed[name]}" for name in sorted(allowed)]
    path.write_text("\n".join(head + body) + "\n")


def compare(found: Counter[str], allowed: dict[str, int]) -> list[str]:
    """One line per folder that got worse."""
    return [f"{name}: {found[name]} type errors, the ratchet allows {allowed.get(name, 0)}"
            for name in sorted(found) if found[name] > allowed.get(name, 0)]


def main(argv: list[str]) -> int:
    run = subprocess.run([sys.executable, "-m", "mypy", *TARGETS], cwd=ROOT, capture_output=True, text=True)
    finished = "Success: " in run.stdout or "Found " in run.stdout     # mypy's summary line: it really ran
    if run.returncode not in (0, 1) or "error: " in run.stderr or not finished:
        print(run.stdout + run.stderr, file=sys.stderr)
        return 2
    found, allowed = count(run.stdout), read()
    worse = compare(found, allowed)
    for name in sorted(set(found) | set(allowed)):
        print(f"  {name:34} {found[name]:4} (allowed {allowed.get(name, 0)})")
    if worse:
        print("\n".join(line for line in run.stdout.splitlines()
                        if (m := ERROR.match(line)) and found[folder(m["path"])] > allowed.get(folder(m["path"]), 0)))
        print("mypy: more type errors than scripts/mypy-ratchet.txt allows:\n  " + "\n  ".join(worse)
              + "\nfix them (python scripts/mypy_ratchet.py lists them), never raise the ratchet", file=sys.stderr)
        return 1
    if "--update" in argv:
        write({name: min(allowed.get(name, 0), found[name]) for name in set(allowed) | set(found)})
        print(f"wrote {RATCHET.relative_to(ROOT)}")
    elif any(found[name] < n for name, n in allowed.items()):
        print("fewer errors than the ratchet allows: run python scripts/mypy_ratchet.py --update and commit it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
