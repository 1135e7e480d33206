#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite: installs missing Debian packages, builds the release preset (the build users
# get, optimised as they run it) and runs every test with CTest. The tests start their own throwaway
# PostgreSQL clusters. CI sets ISOBAR_WARNINGS_AS_ERRORS=1, so any compiler warning fails it there.
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/setup-common.sh

isobar_install_missing_packages
isobar_build release
isobar_log "running the tests"
ctest --preset release --parallel 2
