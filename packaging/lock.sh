#!/usr/bin/env bash
# Regenerates packaging/constraints.txt, the exact version of every distribution vnetbench installs from PyPI:
# its dependencies with all extras, plus the build tools in packaging/tools.in, resolved for Debian 12
# (CPython 3.11, x86_64, glibc 2.36). scripts/setup.sh, CI and the bundle build install with `pip install -c` on it, so
# two installs a week apart are the same. Run it after changing a dependency in pyproject.toml:
#
#   bash packaging/lock.sh              # needs uv: the test extra puts it in .venv, or set UV=/path/to/uv
#   bash packaging/lock.sh --upgrade    # also move every pin to the newest allowed version
set -euo pipefail
cd "$(dirname "$0")/.."
UV=${UV:-$(command -v uv || echo .venv/bin/uv)}
exec "$UV" pip compile --quiet pyproject.toml packaging/tools.in --all-extras \
  --python-version 3.11 --python-platform x86_64-manylinux_2_36 \
  --custom-compile-command "bash packaging/lock.sh" --output-file packaging/constraints.txt "$@"
