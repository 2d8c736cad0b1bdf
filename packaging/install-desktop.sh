#!/usr/bin/env bash
# Registers vnetbench with the desktop for the current user: the launcher (.desktop), the design file type
# (shared-mime-info XML: *.vnet.yaml, *.vnet.json) and the icon, all under $XDG_DATA_HOME (~/.local/share).
#
#   packaging/install-desktop.sh                      # Exec=vnetbench-gui, found on PATH
#   packaging/install-desktop.sh --exec /opt/vnetbench/vnetbench-gui   # a launcher that is not on PATH
#   packaging/install-desktop.sh --uninstall          # removes exactly what the install added
set -euo pipefail

APP_ID=io.vnetbench.Vnetbench
SOURCE="$(cd "$(dirname "$0")/../resources/desktop" && pwd)"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"

usage() {
  echo "usage: $0 [--exec PATH_TO_vnetbench-gui] | --uninstall" >&2
  exit 2
}

mode=install
exec_path=
while [ $# -gt 0 ]; do
  case "$1" in
    --uninstall) mode=uninstall ;;
    --exec) [ $# -ge 2 ] || usage; exec_path="$2"; shift ;;
    -h|--help) usage ;;
    *) echo "install-desktop.sh: unknown option '$1'" >&2; usage ;;
  esac
  shift
done

DESKTOP="$DATA/applications/$APP_ID.desktop"
MIME_XML="$DATA/mime/packages/$APP_ID.xml"
ICON="$DATA/icons/hicolor/scalable/apps/vnetbench.svg"
METAINFO="$DATA/metainfo/$APP_ID.metainfo.xml"

# Rebuild the per-user caches the desktop reads, with whichever tools this machine has.
refresh() {
  if command -v update-mime-database >/dev/null 2>&1 && [ -d "$DATA/mime/packages" ]; then
    update-mime-database "$DATA/mime"
  fi
  if command -v update-desktop-database >/dev/null 2>&1 && [ -d "$DATA/applications" ]; then
    update-desktop-database -q "$DATA/applications"
  fi
  if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$DATA/icons/hicolor/icon-theme.cache" ]; then
    gtk-update-icon-cache -q -t -f "$DATA/icons/hicolor"
  fi
}

if [ "$mode" = uninstall ]; then
  rm -f "$DESKTOP" "$MIME_XML" "$ICON" "$METAINFO"
  refresh
  echo "vnetbench: desktop integration removed from $DATA"
  exit 0
fi

if [ -n "$exec_path" ]; then
  case "$exec_path" in
    *[\"\`\$\\%\|\&]*)
      echo "install-desktop.sh: --exec '$exec_path' holds a character a .desktop Exec line cannot carry" \
        "(\" \` \$ \\ % | &); move vnetbench to a plain path" >&2
      exit 2 ;;
  esac
  if [ ! -x "$exec_path" ]; then
    echo "install-desktop.sh: --exec '$exec_path' is not an executable file; pass the path of vnetbench-gui" >&2
    exit 2
  fi
  exec_path="$(cd "$(dirname "$exec_path")" && pwd)/$(basename "$exec_path")"
elif ! command -v vnetbench-gui >/dev/null 2>&1; then
  echo "vnetbench: note: vnetbench-gui is not on PATH; the menu entry stays hidden until it is" >&2
  echo "           (or run again with --exec /path/to/vnetbench-gui)" >&2
fi

install -d "$DATA/applications" "$DATA/mime/packages" "$(dirname "$ICON")" "$DATA/metainfo"
if [ -n "$exec_path" ]; then
  sed -e "s|^Exec=vnetbench-gui |Exec=\"$exec_path\" |" -e "s|^TryExec=.*|TryExec=$exec_path|" \
    "$SOURCE/$APP_ID.desktop" > "$DESKTOP"
  chmod 644 "$DESKTOP"
else
  install -m 644 "$SOURCE/$APP_ID.desktop" "$DESKTOP"
fi
install -m 644 "$SOURCE/$APP_ID.xml" "$MIME_XML"
install -m 644 "$SOURCE/vnetbench.svg" "$ICON"
install -m 644 "$SOURCE/$APP_ID.metainfo.xml" "$METAINFO"
refresh
echo "vnetbench: desktop entry, design file type and icon installed in $DATA"
