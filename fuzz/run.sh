#!/bin/bash
# Builds the libFuzzer harnesses of fuzz/ with clang in a build folder of their own and runs each
# for a while on its corpus (kept in the build folder, seeded from the test fixtures). Exits
# non-zero when a harness finds a crash, a sanitizer report, a timeout or an out-of-memory.
#
#   fuzz/run.sh [--seconds N] [--build-dir DIR] [--jobs J] [csv|libsvm|idx|experiment …]
#
# --seconds: per harness (default 60); ctest runs 5 (tests/fuzz). --jobs: parallel fuzzing
# processes per harness (libFuzzer -jobs/-workers, default 1). Findings go to DIR/artifacts.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=60
BUILD="$SRC/build-fuzz"
JOBS=1
HARNESSES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) HARNESSES+=("$1"); shift ;;
  esac
done
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(csv libsvm idx experiment)

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$SRC/fuzz" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j2

# Seeds: the fixtures of the loaders' tests and the example experiments, copied so that libFuzzer
# (which writes new inputs into the first corpus folder) never touches the source tree.
seed() {
  local name=$1; shift
  mkdir -p "$BUILD/corpus/$name"
  for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$BUILD/corpus/$name/" || true; done
}
seed csv "$SRC"/tests/fixtures/data/*.csv "$SRC"/tests/fixtures/data/sklearn/*.csv
seed libsvm "$SRC"/tests/fixtures/data/*.libsvm
seed idx "$SRC"/fuzz/corpus/idx/*
seed experiment "$SRC"/resources/experiments/*.json "$SRC"/tests/fixtures/data/*.json
mkdir -p "$BUILD/artifacts"

# Allocations an input may ask for are bounded by MemoryBudget; cap it below libFuzzer's
# malloc limit, so that a refused allocation is the loaders' answer, not a fuzzer finding.
export TRAINBENCH_MEMORY_LIMIT=1G
export QT_QPA_PLATFORM=offscreen
status=0
for h in "${HARNESSES[@]}"; do
  log="$BUILD/fuzz_$h.log"
  set +e
  "$BUILD/fuzz_$h" "$BUILD/corpus/$h" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=3072 \
    -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$h-" \
    ${JOBS:+$([ "$JOBS" -gt 1 ] && echo "-jobs=$JOBS -workers=$JOBS")} >"$log" 2>&1
  rc=$?
  set -e
  # With --jobs, libFuzzer's workers write fuzz-N.log files beside the main log.
  logs=("$log")
  shopt -s nullglob
  logs+=("$BUILD"/fuzz-*.log)
  shopt -u nullglob
  runs=$(awk '/stat::number_of_executed_units/ {s+=$2} END {print s+0}' "${logs[@]}")
  units=$(find "$BUILD/corpus/$h" -type f | wc -l)
  if [ $rc -ne 0 ]; then
    echo "fuzz_$h: FAILED (exit $rc) after $runs executions; see $log and $BUILD/artifacts" >&2
    grep -E 'ERROR|SUMMARY|not a DataError|==[0-9]+==' "$log" | head -20 >&2 || true
    status=1
  else
    echo "fuzz_$h: $runs executions in ${SECONDS_EACH} s, corpus $units inputs, no finding"
  fi
  rm -f "$BUILD"/fuzz-*.log
done
exit $status
