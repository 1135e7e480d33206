#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The fuzzers of tests/fuzz, each for a bounded time: builds the fuzz preset (clang, libFuzzer, ASan
# + UBSan), makes the seed corpora, runs the targets two at a time, and exits non-zero on any crash,
# leak, timeout or out-of-memory, printing the reproducer and the command that runs it again.
#
#   .ci/fuzz.sh [TARGET ...]        default: every target
#
# Environment:
#   FUZZ_SECONDS   time per target (default 60)
#   FUZZ_TIMEOUT   seconds one input may take before it counts as a hang (default 25)
#   FUZZ_RSS_MB    memory a target may use before it counts as out of memory (default 2048)
#   FUZZ_JOBS      targets at once (default 2: the machine's two cores)
#   FUZZ_SEED      libFuzzer's -seed (default random); CI passes 1, so that a run fails or passes
#                  again on the same code, and a finding can be replayed from the log
#
# Seeds are made each time, never committed: the real files of ../shared/era5-samples (read in
# place; the header reader gets their first 64 KiB), and the synthetic writer's files in every
# layout it knows (fuzz_seeds, built with the fuzzers). Each target's corpus, build/fuzz/corpus/
# TARGET, keeps what earlier runs found; findings land in build/fuzz/findings/TARGET, logs in
# build/fuzz/logs.
set -euo pipefail
cd "$(dirname "$0")/.."
. packaging/setup-common.sh

seconds=${FUZZ_SECONDS:-60}
timeout=${FUZZ_TIMEOUT:-25}
rss_mb=${FUZZ_RSS_MB:-2048}
jobs=${FUZZ_JOBS:-2}
all_targets=(fuzz_classic_header fuzz_grib_scan fuzz_zip_directory fuzz_era5_open)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

# What the fuzz build needs, and no more: no GUI, no PostgreSQL, no packaging tools. llvm brings
# llvm-symbolizer, which puts file:line into the sanitizers' reports.
isobar_install_missing_packages cmake ninja-build pkg-config g++ clang libclang-rt-14-dev llvm \
  qt6-base-dev libpq-dev libnetcdf-dev libeccodes-dev libhdf5-dev libspdlog-dev zlib1g-dev \
  nlohmann-json3-dev libzip-dev

build=build/fuzz
isobar_build fuzz
bin=$build/tests/fuzz

# --- seeds ---------------------------------------------------------------------------------------
isobar_log "making the seed corpora"
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds"
"$bin/fuzz_seeds" "$seeds/synthetic" >"$build/fuzz_seeds.log" 2>&1 || {
  cat "$build/fuzz_seeds.log" >&2
  exit 1
}
samples=../shared/era5-samples
[ -d "$samples" ] || isobar_log "no $samples: the synthetic seeds only"

# Each file goes to the targets that read its kind (by content, as Isobar tells them apart); every
# file also seeds fuzz_era5_open, which opens anything.
seed() { # seed TARGET FILE NAME [BYTES]
  local dir=$build/corpus/$1
  mkdir -p "$dir"
  if [ -n "${4:-}" ]; then
    head -c "$4" "$2" >"$dir/seed-$3"
  else
    cp "$2" "$dir/seed-$3"
  fi
}
while IFS= read -r -d '' file; do
  name=$(basename "$(dirname "$file")")-$(basename "$file")
  magic=$(head -c 4 "$file" | od -An -tx1 | tr -d ' \n')
  case "$magic" in
  434446*) seed fuzz_classic_header "$file" "$name" 65536 ;; # CDF
  47524942) seed fuzz_grib_scan "$file" "$name" ;;           # GRIB
  504b0304 | 504b0506) seed fuzz_zip_directory "$file" "$name" ;;
  esac
  seed fuzz_era5_open "$file" "$name"
done < <(find "$seeds/synthetic" $([ -d "$samples" ] && echo "$samples") -type f ! -name '*.md' -print0 | sort -z)

# --- runs ----------------------------------------------------------------------------------------
findings=$build/findings
logs=$build/logs
mkdir -p "$logs"
run() { # run TARGET: one bounded run; its exit status in $logs/TARGET.status
  local target=$1
  rm -rf "${findings:?}/$target"
  mkdir -p "$findings/$target"
  local status=0
  # close_fd_mask=3: the libraries' own chatter (ecCodes, HDF5) is dropped; libFuzzer's and the
  # sanitizers' reports still reach the log.
  "$bin/$target" "$build/corpus/$target" -max_total_time="$seconds" -timeout="$timeout" \
    -rss_limit_mb="$rss_mb" -detect_leaks=1 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$findings/$target/" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} >"$logs/$target.log" 2>&1 ||
    status=$?
  echo "$status" >"$logs/$target.status"
}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
started=$SECONDS
isobar_log "running ${#targets[@]} target(s), ${seconds} s each, $jobs at a time"
for target in "${targets[@]}"; do
  [ -x "$bin/$target" ] || { echo "fuzz: no target $target (have: ${all_targets[*]})" >&2; exit 2; }
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  run "$target" &
done
wait

# --- verdict -------------------------------------------------------------------------------------
failed=0
for target in "${targets[@]}"; do
  status=$(cat "$logs/$target.status")
  stats=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$target.log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/$target.log")
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$logs/$target.log" | tail -n 1)
  mapfile -t found < <(find "$findings/$target" -type f \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
  if [ "$status" -eq 0 ] && [ ${#found[@]} -eq 0 ]; then
    echo "fuzz: $target: ok (${stats:-?} inputs, ${rate:-?}/s, ${cov:-no coverage line})"
    continue
  fi
  failed=1
  echo "fuzz: $target: FAILED (exit $status), log $logs/$target.log" >&2
  grep -m 1 -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|deadly signal|ALARM|out-of-memory' \
    "$logs/$target.log" >&2 || true
  for f in "${found[@]}"; do
    echo "  reproducer: $f" >&2
    echo "  run again:  $bin/$target -timeout=$timeout -rss_limit_mb=$rss_mb $f" >&2
  done
done
isobar_log "fuzzing took $((SECONDS - started)) s"
if [ "$failed" -ne 0 ]; then
  echo "fuzz: findings above; fix them, add a regression test (tests/), and run again" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} target(s), no crash, leak, timeout or out-of-memory"
