#!/usr/bin/env bash
# The static checks CI runs before the tests, each under its own heading: lint (ruff: pyflakes and syntax errors
# on app/, plugins/ and tests/) and types (mypy: no folder may have more errors than scripts/mypy-ratchet.txt).
# Needs the test extra (bash scripts/setup.sh test). Exit status: 0 when both pass.
set -uo pipefail
cd "$(dirname "$0")/.."
failed=0
echo "== lint: ruff check app plugins tests"
.venv/bin/ruff check app plugins tests || failed=1
echo "== types: mypy, per folder against scripts/mypy-ratchet.txt"
.venv/bin/python scripts/mypy_ratchet.py || failed=1
exit $failed
