#!/usr/bin/env bash
# The main job: installs missing Debian packages, builds Release if needed, starts the embedded
# PostgreSQL cluster and loads ERA5 files into it.
#
#   packaging/run.sh [FILE ...]   (NetCDF or GRIB)
#
# Without files it writes a SYNTHETIC ERA5-like sample (4 global hours, 4,152,960 rows) once and
# loads it into the table isobar_sample, replacing what an earlier run put there.
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/setup-common.sh

isobar_install_missing_packages
isobar_build release --target isobar-cli isobar
cli=build/release/app/cli/isobar-cli

isobar_log "starting the embedded PostgreSQL cluster"
"$cli" cluster start

if [ $# -gt 0 ]; then
  isobar_log "loading $# file(s) into the table weather"
  "$cli" load "$@"
else
  if [ "$(id -u)" -eq 0 ]; then
    samples=/var/lib/isobar/samples
  else
    samples="${XDG_DATA_HOME:-$HOME/.local/share}/isobar/samples"
  fi
  mkdir -p "$samples"
  sample="$samples/era5-synthetic-2024-01-01-4h.nc"
  if [ ! -f "$sample" ]; then
    isobar_log "writing a synthetic sample (no files given)"
    "$cli" sample --out "$sample" --hours 4
  fi
  isobar_log "loading $sample into the table isobar_sample"
  "$cli" load --table isobar_sample --replace "$sample"
fi
echo
echo "Connect with:  psql \"$("$cli" cluster url)\""
echo "Desktop app:   build/release/app/gui/isobar [FILE ...]   (needs a display)"
