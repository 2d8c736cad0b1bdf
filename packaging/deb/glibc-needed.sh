#!/usr/bin/env bash
# Prints the oldest glibc that every ELF file under DIR runs on: the newest GLIBC_x.y symbol version any of them
# requires (objdump -T, from binutils).   packaging/deb/glibc-needed.sh /opt/vnetbench  ->  2.34
set -euo pipefail
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: $0 DIR" >&2; exit 2; }
find "$1" -type f -print0 | while IFS= read -r -d '' file; do
  [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  objdump -T "$file" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' || true
done | sed 's/GLIBC_//' | sort -u -V | tail -n 1
