#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian package of Isobar: installs missing Debian packages, builds the `package` preset
# (Release with Debian's hardening flags, no tests) and writes build/package/isobar_VERSION_ARCH.deb.
#
#   packaging/build-deb.sh
#   apt-get install ./build/package/isobar_*.deb     (then: isobar, isobar-cli, man isobar-cli)
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/setup-common.sh

isobar_install_missing_packages
isobar_build package
isobar_log "writing the package"
rm -f build/package/isobar_*.deb
(cd build/package && cpack -G DEB >/dev/null)
deb=$(ls build/package/isobar_*.deb)
isobar_log "checking it with lintian"
lintian --fail-on error "$deb"
echo "$deb"
