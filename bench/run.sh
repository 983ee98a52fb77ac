#!/usr/bin/env bash
# Builds Tack's benchmarks (Release, build-bench/) and runs them, then prints a
# table: kernel, Tack, hand-written C++/OpenMP, ratio (C++ time / Tack time),
# target, verdict. See bench/README.md.
#
#   bench/run.sh                                  # everything
#   bench/run.sh --benchmark_filter='saxpy|lbm'   # extra flags go to tack_bench_kernels
#
# Environment: TACK_BENCH_THREADS (threads for Tack's pool and OpenMP, default 2),
# BENCH_MIN_TIME (seconds per benchmark, default 0.5), CACHE_VARIANTS (kernels in
# the cache-hit test, default 50), TACK_BENCH_BUILD_DIR (default build-bench/).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TACK_BENCH_BUILD_DIR:-$root/build-bench}
min_time=${BENCH_MIN_TIME:-0.5}
export TACK_BENCH_THREADS=${TACK_BENCH_THREADS:-2}

tmp=$(mktemp -d /tmp/tack-bench-run-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Build quietly; the log is shown only if the build fails.
echo "== building the benchmarks in $build (Release, -j2)"
if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTACK_BUILD_BENCH=ON \
         -DTACK_BUILD_TESTS=OFF -DTACK_BUILD_EXAMPLES=OFF &&
       cmake --build "$build" --target tack_bench_kernels tack_bench_compile tack_bench_cache_hit tack_bench_first_call -j2; } \
     >"$tmp/build.log" 2>&1; then
  tail -n 60 "$tmp/build.log"
  echo "build failed (full log above, last 60 lines)"
  exit 1
fi

bin() { find "$build" -type f -name "$1" -perm -u+x | head -n 1; }
# A scratch disk cache, so the user's ~/.cache/tack is neither used nor touched.
export TACK_CACHE_DIR=$tmp/cache
# Each binary appends its table's rows here.
export TACK_BENCH_RESULTS=$tmp/results
: >"$TACK_BENCH_RESULTS"
status=0

# Other runnable processes now (the fewest of five looks, less this script's own).
busy=$(for i in 1 2 3 4 5; do awk '/^procs_running/ { print $2 - 1 }' /proc/stat; sleep 0.2; done | sort -n | head -n 1)
if [ "${busy:-0}" -ge 1 ]; then
  echo "WARNING: $busy other runnable process(es) on $(nproc) CPU(s): the cores are shared, the timings will be noisy"
fi
echo "== $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPU(s):$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== tack_bench_kernels (min_time ${min_time}s, ${TACK_BENCH_THREADS} thread(s))"
"$(bin tack_bench_kernels)" --benchmark_min_time="$min_time" "$@" || status=1

echo "== tack_bench_compile (TACK_CACHE=0)"
TACK_CACHE=0 "$(bin tack_bench_compile)" --benchmark_min_time="$min_time" || status=1

echo "== tack_bench_cache_hit"
"$(bin tack_bench_cache_hit)" "${CACHE_VARIANTS:-50}" || status=1

echo "== tack_bench_first_call (child processes; its own scratch caches)"
"$(bin tack_bench_first_call)" "${FIRST_CALL_RUNS:-41}" || status=1

echo
echo "== summary ($(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg); ratio = C++ time / Tack time, above 1 Tack is faster)"
{
  echo "kernel|Tack|C++/OpenMP|ratio|target|verdict"
  cat "$TACK_BENCH_RESULTS"
} | awk -F'|' '{ printf "%-42s %14s %14s %8s %12s  %s\n", $1, $2, $3, $4, $5, $6 }'
[ "$status" = 0 ] || echo "(some benchmark binary failed: see above)"
exit "$status"
