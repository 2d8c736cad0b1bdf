#!/usr/bin/env bash
# Installs everything, then runs the static checks (scripts/check.sh: lint, types) and the whole test suite
# (GUI tests in a real X server under Xvfb). Each shows under its own heading; the tests run even when a check
# failed, and the exit status says whether all passed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
mkdir -p test-artifacts
export VNETBENCH_ARTIFACTS="$PWD/test-artifacts"
checks=0
bash scripts/check.sh || checks=$?
echo "== tests: pytest (hypothesis profile ci; --hypothesis-profile=deep for the long campaign)"
tests=0
# A worker more than the cores: the system group's tests wait on guests, labs and sleeps much of their time (the
# last two-worker run used 32 CPU-minutes in 24.8 minutes on 2 cores); the extra worker fills that. `-n 0` overrides.
workers=$(($(nproc) + 1))
xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m pytest -q -p no:cacheprovider -n "$workers" --dist loadgroup \
  --no-loadscope-reorder "$@" tests || tests=$?
[ "$checks" -eq 0 ] || echo "the static checks failed (see == lint / == types above)" >&2
[ "$tests" -ne 0 ] && exit "$tests"
exit "$checks"
