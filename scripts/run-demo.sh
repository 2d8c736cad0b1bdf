#!/usr/bin/env bash
# Installs what running needs, then opens the designer on a bundled example (local lab as the backend).
# Without a display it runs the headless demo instead: validate, describe and predict the same example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh run
example=resources/examples/esx-four-cases.vnet.yaml
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec .venv/bin/vnetbench gui "$example"
fi
exec .venv/bin/vnetbench demo "$example"
