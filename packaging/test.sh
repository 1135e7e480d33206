#!/usr/bin/env bash
# The whole test suite: installs missing Debian packages, builds (dev preset) and runs every test
# with CTest. The tests start their own throwaway PostgreSQL clusters.
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/setup-common.sh

isobar_install_missing_packages
isobar_build dev
isobar_log "running the tests"
ctest --preset dev --parallel 2
