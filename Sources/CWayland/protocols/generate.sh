#!/usr/bin/env bash
# Regenerates the wlr-data-control C that CWayland compiles, with Debian's wayland-scanner
# (package libwayland-bin, pulled in by libwayland-dev), from Debian's copy of the protocol:
# librust-wayland-protocols-dev ships wlroots' wlr-protocols, whose
# unstable/wlr-data-control-unstable-v1.xml is version 2 (with the primary selection).
#   Sources/CWayland/protocols/generate.sh
# The output is committed, so a build needs neither package. ext-data-control-v1 has no XML
# in Debian 12 (wayland-protocols 1.39 added it); its interfaces are written out by hand in
# ../ext-data-control-v1.c.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=$(dirname "$here")
xml=$(ls /usr/share/cargo/registry/wayland-protocols-*/wlr-protocols/unstable/wlr-data-control-unstable-v1.xml 2>/dev/null | sort | tail -n 1)
if [[ -z "$xml" ]]; then
  echo "generate.sh: wlr-data-control-unstable-v1.xml not found; apt-get install librust-wayland-protocols-dev" >&2
  exit 1
fi
wayland-scanner client-header "$xml" "$target/include/wlr-data-control-unstable-v1-client-protocol.h"
wayland-scanner private-code "$xml" "$target/wlr-data-control-unstable-v1-protocol.c"
# The seat's description is Quire's own (../core-interfaces.c explains why).
sed -i 's/\bwl_seat_interface\b/cwayland_seat_interface/g' "$target/wlr-data-control-unstable-v1-protocol.c"
