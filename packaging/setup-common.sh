# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by run.sh and test.sh: install what is missing, then build. Sourced, not run.
# Works on a fresh Debian 12 machine as root (or as a user with sudo).

ISOBAR_PACKAGES=(
  cmake ninja-build g++ pkg-config
  # rebuilds reuse what was compiled before (ccache); fifty test programs link in seconds (lld)
  ccache lld
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev
  libpq-dev libnetcdf-dev libeccodes-dev libhdf5-dev libspdlog-dev zlib1g-dev nlohmann-json3-dev libzip-dev
  postgresql-15
  libcap2-bin
  # the man pages (from --help) and the icon's PNG sizes
  help2man librsvg2-bin
  # the Debian package, and what its test checks it with
  dpkg-dev lintian desktop-file-utils appstream shared-mime-info man-db
  # what the desktop app loads at run time: a window, the SVG icon
  qt6-qpa-plugins libqt6svg6
  # the maps' coastlines, lakes and borders (GSHHG, crude to intermediate resolution)
  gmt-gshhg-low
)

isobar_log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# isobar_install_missing_packages [PACKAGE ...]: installs those of the packages (by default
# ISOBAR_PACKAGES) that are not installed yet.
isobar_install_missing_packages() {
  local wanted=("$@")
  [ ${#wanted[@]} -gt 0 ] || wanted=("${ISOBAR_PACKAGES[@]}")
  local missing=()
  local p
  for p in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "isobar: need root (or sudo) to install: ${missing[*]}" >&2; return 1; }
    sudo="sudo"
  fi
  isobar_log "installing missing Debian packages: ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
}

# isobar_build PRESET [cmake --build options]: configure (once) and build with that CMake preset.
# With ISOBAR_WARNINGS_AS_ERRORS=1 (CI sets it) every compiler warning fails the build: the build
# is configured again with CMAKE_COMPILE_WARNING_AS_ERROR=ON.
isobar_build() {
  local preset="$1"
  local args=()
  if [ "${ISOBAR_WARNINGS_AS_ERRORS:-0}" = 1 ]; then
    args+=(-DCMAKE_COMPILE_WARNING_AS_ERROR=ON)
  fi
  if [ ! -f "build/$preset/build.ninja" ] || [ ${#args[@]} -gt 0 ]; then
    isobar_log "configuring ($preset${args[*]:+ with ${args[*]}})"
    cmake --preset "$preset" "${args[@]}" >/dev/null
  fi
  isobar_log "building ($preset)"
  cmake --build --preset "$preset" "${@:2}"
}
