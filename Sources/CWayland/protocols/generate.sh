#!/usr/bin/env bash
# Regenerates the C that CWayland compiles from the two vendored protocol files, with
# Debian's wayland-scanner (package libwayland-bin, pulled in by libwayland-dev):
#   Sources/CWayland/protocols/generate.sh
# The output is committed, so a build needs no wayland-scanner.
#
# Where the XML files come from (each keeps its copyright and licence in <copyright>):
# - ext-data-control-v1.xml: wayland-protocols, staging/ext-data-control/ (added to the
#   staging protocols on 2024-10-25, first released in wayland-protocols 1.39).
# - wlr-data-control-unstable-v1.xml: wlr-protocols, unstable/ (version 2, with the
#   primary selection), as bundled by wl-clipboard since its 2019-09-16 update.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=$(dirname "$here")
for protocol in ext-data-control-v1 wlr-data-control-unstable-v1; do
  wayland-scanner client-header "$here/$protocol.xml" "$target/include/$protocol-client-protocol.h"
  wayland-scanner private-code "$here/$protocol.xml" "$target/$protocol-protocol.c"
done
