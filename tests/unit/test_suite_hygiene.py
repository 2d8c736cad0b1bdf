"""The suite checks itself: no test asserts a wall-clock time (speed targets live in tests/bench), and no two test
files share a name."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
CLOCKS = {"monotonic", "perf_counter", "time", "elapsed", "monotonic_ns", "perf_counter_ns"}


def _reads_a_clock(node: ast.AST) -> bool:
    return any(isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in CLOCKS
               and not call.args for call in ast.walk(node))


def test_no_test_asserts_a_wall_clock_time():
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        if "bench" in path.relative_to(TESTS).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Assert) and _reads_a_clock(node.test):
                offenders.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert not offenders, ("assert what the code does (off the GUI thread, incremental, the event loop turned); "
                           f"speed targets go in tests/bench: {', '.join(offenders)}")


def test_every_test_file_has_a_name_of_its_own():
    """pytest imports test files by their base name (rootdir-relative packages are not used here): two files
    called alike in different folders fail collection of the second with 'import file mismatch'."""
    seen: dict[str, list[str]] = {}
    for path in TESTS.rglob("test_*.py"):
        if ".venv" not in path.parts:
            seen.setdefault(path.name, []).append(str(path.relative_to(TESTS)))
    assert {name: where for name, where in seen.items() if len(where) > 1} == {}
