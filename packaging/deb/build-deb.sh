#!/usr/bin/env bash
# Builds dist/vnetbench_<version>_amd64.deb: the PyInstaller folder under /opt/vnetbench, /usr/bin/vnetbench and
# /usr/bin/vnetbench-gui, the desktop entry, design file type, AppStream metadata, icon, man page, bash/zsh/fish
# completions, the licence and the third-party notices. Everything comes from Debian 12 and PyPI (pinned by
# packaging/constraints.txt); nothing else is downloaded.
#
#   packaging/deb/build-deb.sh [--work DIR] [--out DIR]
#
# --work (default build/deb) keeps the build environment and the PyInstaller folder; a second run with the same
# sources reuses them and only re-packs (the PyInstaller step takes minutes). Needs: python3-venv, python3-dev,
# binutils (objdump) and dpkg-deb, which scripts/setup.sh installs.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
APP_ID=io.vnetbench.Vnetbench
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/pyproject.toml")"
ARCH="$(dpkg --print-architecture)"
PY=${PYTHON:-/usr/bin/python3}        # Debian's interpreter: the bundle carries its libpython
EXTRAS=gui,export,vsphere            # [kvm] is left out: libvirt-python is built against one libvirt (see README)

work="$ROOT/build/deb"
out="$ROOT/dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --work|--out)
      [ $# -ge 2 ] || { echo "build-deb.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in --work) work="$2" ;; --out) out="$2" ;; esac
      shift 2 ;;
    *) echo "build-deb.sh: unknown option '$1' (use --work DIR, --out DIR)" >&2; exit 2 ;;
  esac
done
mkdir -p "$work" "$out"
work="$(cd "$work" && pwd)"
bundle="$work/pyinstaller/vnetbench"

# 1. The PyInstaller folder, rebuilt only when a source it is made from changed.
digest="$(cd "$ROOT" && find app plugins resources packaging/pyinstaller packaging/constraints.txt setup.py \
  pyproject.toml LICENSE -type f \
  -not -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
if [ -x "$bundle/vnetbench" ] && [ "$(cat "$work/pyinstaller/.source-digest" 2>/dev/null)" = "$digest" ]; then
  echo "build-deb.sh: sources unchanged, reusing $bundle"
else
  rm -rf "$work/venv" "$work/wheel" "$work/pyinstaller" "$work/pyinstaller-build"
  "$PY" -m venv "$work/venv"
  "$work/venv/bin/pip" install -q --upgrade pip
  "$work/venv/bin/pip" wheel -q --no-deps -w "$work/wheel" "$ROOT"
  wheel="$(ls "$work"/wheel/vnetbench-*.whl)"
  "$work/venv/bin/pip" install -q -c "$ROOT/packaging/constraints.txt" "vnetbench[$EXTRAS] @ file://$wheel" pyinstaller
  (cd "$ROOT" && "$work/venv/bin/pyinstaller" --noconfirm --log-level WARN --distpath "$work/pyinstaller" \
    --workpath "$work/pyinstaller-build" packaging/pyinstaller/vnetbench.spec)
  echo "$digest" >"$work/pyinstaller/.source-digest"
fi

# 2. The package tree.
pkg="$work/root"
rm -rf "$pkg"
share="$pkg/usr/share"
mkdir -p "$pkg/DEBIAN" "$pkg/opt" "$pkg/usr/bin" "$share/applications" "$share/mime/packages" "$share/metainfo" \
  "$share/icons/hicolor/scalable/apps" "$share/man/man1" "$share/doc/vnetbench" \
  "$share/bash-completion/completions" "$share/zsh/vendor-completions" "$share/fish/vendor_completions.d"
cp -a "$bundle" "$pkg/opt/vnetbench"
rm -f "$pkg/opt/vnetbench/.source-digest"
ln -s /opt/vnetbench/vnetbench "$pkg/usr/bin/vnetbench"
ln -s /opt/vnetbench/vnetbench-gui "$pkg/usr/bin/vnetbench-gui"
desktop="$ROOT/resources/desktop"
install -m 644 "$desktop/$APP_ID.desktop" "$share/applications/"
install -m 644 "$desktop/$APP_ID.xml" "$share/mime/packages/"
install -m 644 "$desktop/$APP_ID.metainfo.xml" "$share/metainfo/"
install -m 644 "$desktop/vnetbench.svg" "$share/icons/hicolor/scalable/apps/"
# Made by the frozen program itself, so they describe exactly the commands this bundle has.
"$bundle/vnetbench" completion bash >"$share/bash-completion/completions/vnetbench"
"$bundle/vnetbench" completion zsh >"$share/zsh/vendor-completions/_vnetbench"
"$bundle/vnetbench" completion fish >"$share/fish/vendor_completions.d/vnetbench.fish"
"$work/venv/bin/python" "$ROOT/packaging/manpage.py" | gzip -9n >"$share/man/man1/vnetbench.1.gz"
ln -s vnetbench.1.gz "$share/man/man1/vnetbench-gui.1.gz"
# Licences: vnetbench's own, and every third-party component's (Qt's LGPL among them), in the bundle itself
# (a copied /opt/vnetbench stays compliant) and where Debian keeps them.
install -m 644 "$ROOT/LICENSE" "$pkg/opt/vnetbench/LICENSE"
"$work/venv/bin/python" "$ROOT/packaging/third_party_notices.py" --bundle "$bundle" \
  --output "$pkg/opt/vnetbench/THIRD-PARTY-NOTICES.txt"
ln -s /opt/vnetbench/THIRD-PARTY-NOTICES.txt "$share/doc/vnetbench/THIRD-PARTY-NOTICES.txt"
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: vnetbench"
  echo "Comment: third-party components and their licences: /opt/vnetbench/THIRD-PARTY-NOTICES.txt"
  echo
  echo "Files: *"
  echo "License: Apache-2.0"
  echo " On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0."
} >"$share/doc/vnetbench/copyright"

# 3. The oldest glibc it runs on: the newest GLIBC_x.y symbol version any ELF file in the bundle asks for.
glibc="$(bash "$ROOT/packaging/deb/glibc-needed.sh" "$pkg/opt/vnetbench")"

# 4. Control file. Depends: what the bundle loads from the system (glibc, OpenGL/EGL, X11/xcb, Wayland, fontconfig, D-Bus,
# which PyInstaller leaves out on purpose); Recommends: the tools the local lab, measurements and layout run.
size_kb="$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)"
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: vnetbench
Version: $VERSION
Architecture: $ARCH
Maintainer: vnetbench developers <vnetbench@localhost>
Section: net
Priority: optional
Installed-Size: $size_kb
Depends: libc6 (>= $glibc), libgl1, libegl1, libglib2.0-0, libdbus-1-3, libfontconfig1, libfreetype6, libx11-6,
 libx11-xcb1, libxkbcommon0, libxkbcommon-x11-0, libxcb1, libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1,
 libxcb-shape0, libxcb-image0, libxcb-randr0, libxcb-render0, libxcb-render-util0, libxcb-shm0, libxcb-sync1,
 libxcb-xfixes0, libxcb-xinerama0, libxcb-xkb1, libwayland-client0, libwayland-cursor0, libwayland-egl1,
 fonts-dejavu-core
Recommends: iproute2, nftables, iperf3, sockperf, gcc, libc6-dev, openssh-client, graphviz, shared-mime-info,
 desktop-file-utils, xdg-utils
Homepage: https://github.com/vnetbench/vnetbench
Description: workbench for virtual networks
 Design virtual networks (hosts, virtual switches, portgroups, VLANs, VMs and firewall VMs), predict how
 traffic between any two VMs travels, deploy the design as a local lab of network namespaces or on vSphere,
 measure it and export diagrams and reports. A Qt designer (vnetbench-gui) and a headless CLI (vnetbench),
 self-contained under /opt/vnetbench.
CONTROL
deb="$out/vnetbench_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zzstd --build "$pkg" "$deb" >/dev/null
echo "build-deb.sh: built $deb (needs glibc >= $glibc)"
