#!/usr/bin/env bash
# Builds vnetbench-<version>-<arch>.AppImage from the PyInstaller folder (dist/vnetbench) with the desktop
# file, design file type, AppStream metadata and icon from resources/desktop.
#
#   pyinstaller --noconfirm packaging/pyinstaller/vnetbench.spec      # first: makes dist/vnetbench
#   packaging/appimage/build-appimage.sh [--dist DIR] [--appdir DIR] [--output FILE]
#
# appimagetool (https://github.com/AppImage/appimagetool) must be on PATH or named by $APPIMAGETOOL; this
# script never downloads it. Without it the AppDir is still assembled, and the script stops saying so.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
APP_ID=io.vnetbench.Vnetbench
DESKTOP_SRC="$ROOT/resources/desktop"
ARCH="${ARCH:-$(uname -m)}"
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/pyproject.toml")"

dist="$ROOT/dist/vnetbench"
appdir="$ROOT/build/vnetbench.AppDir"
output="$ROOT/dist/vnetbench-$VERSION-$ARCH.AppImage"
while [ $# -gt 0 ]; do
  case "$1" in
    --dist|--appdir|--output)
      [ $# -ge 2 ] || { echo "build-appimage.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in --dist) dist="$2" ;; --appdir) appdir="$2" ;; --output) output="$2" ;; esac
      shift 2 ;;
    *) echo "build-appimage.sh: unknown option '$1' (use --dist DIR, --appdir DIR, --output FILE)" >&2; exit 2 ;;
  esac
done

if [ ! -x "$dist/vnetbench-gui" ]; then
  echo "build-appimage.sh: no PyInstaller bundle at $dist (vnetbench-gui missing)." >&2
  echo "  build it first: pyinstaller --noconfirm packaging/pyinstaller/vnetbench.spec" >&2
  exit 2
fi

# The AppDir: AppRun, the desktop file and icon at the top (appimagetool wants them there), the bundle in usr/lib.
rm -rf "$appdir"
mkdir -p "$appdir/usr/lib" "$appdir/usr/share/applications" "$appdir/usr/share/metainfo" \
  "$appdir/usr/share/mime/packages" "$appdir/usr/share/icons/hicolor/scalable/apps"
cp -a "$dist" "$appdir/usr/lib/vnetbench"
cp "$DESKTOP_SRC/$APP_ID.desktop" "$appdir/usr/share/applications/"
cp "$DESKTOP_SRC/$APP_ID.metainfo.xml" "$appdir/usr/share/metainfo/"
cp "$DESKTOP_SRC/$APP_ID.xml" "$appdir/usr/share/mime/packages/"
cp "$DESKTOP_SRC/vnetbench.svg" "$appdir/usr/share/icons/hicolor/scalable/apps/"
ln -s "usr/share/applications/$APP_ID.desktop" "$appdir/$APP_ID.desktop"
ln -s "usr/share/icons/hicolor/scalable/apps/vnetbench.svg" "$appdir/vnetbench.svg"
ln -s vnetbench.svg "$appdir/.DirIcon"
# One AppImage, two programs: started as (or symlinked to) "vnetbench" it is the CLI, otherwise the designer.
cat > "$appdir/AppRun" <<'APPRUN'
#!/bin/sh
HERE="$(dirname "$(readlink -f "$0")")"
case "$(basename "${ARGV0:-$0}")" in
  vnetbench) exec "$HERE/usr/lib/vnetbench/vnetbench" "$@" ;;
  *) exec "$HERE/usr/lib/vnetbench/vnetbench-gui" "$@" ;;
esac
APPRUN
chmod 755 "$appdir/AppRun"
echo "build-appimage.sh: AppDir assembled at $appdir"

tool="${APPIMAGETOOL:-$(command -v appimagetool || true)}"
if [ -z "$tool" ] || [ ! -x "$tool" ]; then
  echo "build-appimage.sh: appimagetool not found, so no AppImage was made." >&2
  echo "  Install appimagetool (https://github.com/AppImage/appimagetool/releases) on PATH or set" >&2
  echo "  APPIMAGETOOL=/path/to/appimagetool, then run this script again. The AppDir above is complete." >&2
  exit 3
fi
mkdir -p "$(dirname "$output")"
ARCH="$ARCH" "$tool" --no-appstream "$appdir" "$output"
echo "build-appimage.sh: built $output"
