#!/usr/bin/env bash
# Installs everything, then runs the whole test suite (GUI tests in a real X server under Xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
mkdir -p test-artifacts
export VNETBENCH_ARTIFACTS="$PWD/test-artifacts"
exec xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m pytest -q -p no:cacheprovider "$@" tests
