#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# clang-tidy with the root .clang-tidy over the given folders (default: core app ui tests), every
# warning an error. Needs a configured build's compile database: ISOBAR_TIDY_BUILD names the build
# folder (CI: build/release); by default build/dev, else build/release.
#
#   .ci/clang-tidy.sh [FOLDER ...]      e.g.  .ci/clang-tidy.sh ui
#
# Prints the findings of each failing file and exits 1 if there was any.
set -euo pipefail
cd "$(dirname "$0")/.."

folders=("$@")
[ ${#folders[@]} -gt 0 ] || folders=(core app ui tests)

build=${ISOBAR_TIDY_BUILD:-}
if [ -z "$build" ]; then
  build=build/dev
  [ -f "$build/compile_commands.json" ] || build=build/release
fi
db=$build/compile_commands.json
[ -f "$db" ] || { echo "clang-tidy: no $db (configure and build that preset first)" >&2; exit 1; }
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || echo /usr/lib/llvm-14/bin/clang-tidy)
[ -x "$tidy" ] || { echo "clang-tidy: not installed (apt-get install clang-tidy)" >&2; exit 1; }

# The tests are compiled with GCC's precompiled headers (-include .../cmake_pch.hxx, with a .gch
# beside it), which clang cannot read. clang-tidy gets a copy of the database whose -include points
# at copies of those headers without the .gch: the same includes, parsed from source.
work=build/tidy
rm -rf "$work"
mkdir -p "$work"
(cd "$build" && find . -name cmake_pch.hxx -exec cp --parents {} "$OLDPWD/$work/" \;)
sed "s#-include $PWD/$build/\([^ \"]*/cmake_pch\.hxx\)#-include $PWD/$work/\1#g" "$db" \
    >"$work/compile_commands.json"

mapfile -t files < <(git ls-files -- "${folders[@]/%//*.cpp}")
[ ${#files[@]} -gt 0 ] || { echo "clang-tidy: no sources under ${folders[*]}" >&2; exit 1; }

# A source this build does not compile has no flags to parse it with (tests/fuzz is built only by
# the fuzz preset, and CI checks it there: ISOBAR_TIDY_BUILD=build/fuzz .ci/clang-tidy.sh tests/fuzz).
compiled=()
skipped=()
for f in "${files[@]}"; do
  if grep -qF "\"file\": \"$PWD/$f\"" "$db"; then
    compiled+=("$f")
  else
    skipped+=("$f")
  fi
done
if [ ${#skipped[@]} -gt 0 ]; then
  echo "clang-tidy: not compiled by $build, so not checked here: ${skipped[*]}"
fi
[ ${#compiled[@]} -gt 0 ] || { echo "clang-tidy: $build compiles none of ${folders[*]}" >&2; exit 1; }
files=("${compiled[@]}")

# The database holds GCC's flags; the GCC-only ones (-Wno-restrict, for GCC 12 alone) are unknown
# to clang, and under -Werror (CI builds with warnings as errors) that is an error in every file.
# -Wno-unknown-warning-option lets clang pass over them, as GCC passes over clang's.
#
# One clang-tidy per file, as many at once as there are cores; each file's output is printed in
# one piece, and only when it has findings, so that parallel runs do not interleave.
export TIDY="$tidy" WORK="$work"
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -I{} sh -c '
    out=$("$TIDY" -p "$WORK" --quiet --warnings-as-errors="*" \
              --extra-arg=-Wno-unknown-warning-option "$1" 2>&1) && exit 0
    printf "%s\n" "$out" | grep -v -E "^[0-9]+ (warnings?|errors?) generated\.$|^Suppressed [0-9]+ warnings"
    exit 1' sh {} || {
    echo "clang-tidy: findings above (in ${folders[*]}); fix them or, for a false positive, NOLINT(check) with the reason" >&2
    exit 1
}
echo "clang-tidy: ${#files[@]} files under ${folders[*]} are clean"
