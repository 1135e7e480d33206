#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job: installs missing Debian packages, builds Release if needed, starts the embedded
# PostgreSQL cluster, loads ERA5 files into it and, where there is a display, opens the desktop app
# on them.
#
#   packaging/run.sh [--headless] [FILE ...]   (NetCDF or GRIB)
#
# Without files it writes a SYNTHETIC ERA5-like file (4 global hours, 4,152,960 rows) once and
# loads it into the table isobar_synthetic, replacing what an earlier run put there. With a display
# ($DISPLAY or $WAYLAND_DISPLAY) and without --headless, the desktop app then opens with the files
# in its Files tab and the run just made in its History tab.
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/setup-common.sh

headless=0
if [ "${1:-}" = "--headless" ]; then
  headless=1
  shift
fi
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  headless=1
fi

isobar_install_missing_packages
isobar_build release --target isobar-cli isobar
cli=build/release/app/cli/isobar-cli
app=build/release/app/gui/isobar

isobar_log "starting the embedded PostgreSQL cluster"
"$cli" cluster start

if [ $# -gt 0 ]; then
  files=("$@")
  isobar_log "loading $# file(s) into the table weather"
  "$cli" load "${files[@]}"
else
  if [ "$(id -u)" -eq 0 ]; then
    synthetic=/var/lib/isobar/synthetic
  else
    synthetic="${XDG_DATA_HOME:-$HOME/.local/share}/isobar/synthetic"
  fi
  mkdir -p "$synthetic"
  file="$synthetic/era5-synthetic-2024-01-01-4h.nc"
  if [ ! -f "$file" ]; then
    isobar_log "writing a synthetic file (no files given)"
    "$cli" synth --out "$file" --hours 4
  fi
  files=("$file")
  isobar_log "loading $file into the table isobar_synthetic"
  "$cli" load --table isobar_synthetic --replace "$file"
fi
echo
echo "Connect with:  psql \"$("$cli" cluster url)\""
if [ "$headless" -eq 1 ]; then
  echo "Desktop app:   $app [FILE ...]   (needs a display)"
  exit 0
fi
isobar_log "opening the desktop app (close it to end; --headless skips it)"
rc=0
"$app" --tab history "${files[@]}" || rc=$?
if [ "$rc" -eq 129 ] || [ "$rc" -eq 130 ] || [ "$rc" -eq 143 ]; then
  # SIGHUP, SIGINT, SIGTERM: closed by the user or the session, not a failure of the app
  echo "isobar: the desktop app was stopped by signal $((rc - 128)); the load above is complete." >&2
  exit "$rc"
elif [ "$rc" -ne 0 ]; then
  echo "isobar: the desktop app could not run on this display (exit $rc, DISPLAY='${DISPLAY:-}'," \
       "WAYLAND_DISPLAY='${WAYLAND_DISPLAY:-}'); the load above is complete." \
       "Run packaging/run.sh --headless to skip the app." >&2
  exit 1
fi
