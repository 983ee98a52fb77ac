#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU: builds Tack (Release) with its
# tests and benchmarks, runs on the cuda device the conformance suite, the
# textures and reductions rows of it, the queue tests of tests/device/, the
# fake-driver runtime tests, and bench/cuda.cpp; then prints a short table LAST
# (and writes it to $OUT/cuda_results.md when OUT is set). Every step runs
# under `timeout`, and the whole run stays within about 8 minutes on a 16-core
# machine. Without a GPU each step reports its skips and the table says cuda is
# unavailable; the script still exits 0 unless a test FAILED.
#
#   tests/device/run_cuda.sh [--build-dir DIR] [--jobs N] [--no-build] [--quick] [--dry-run]
#
#   --build-dir  where to build (default: build-cuda/ in the repository)
#   --jobs       parallel compile jobs (default: 16)
#   --no-build   use what DIR already has
#   --quick      small benchmark sizes (for checking this script)
#   --dry-run    print the steps and their commands, run nothing
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build-cuda
jobs=16
do_build=1
quick=0
dry_run=0
while (($#)); do
  case $1 in
    --build-dir) build=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --no-build) do_build=0 ;;
    --quick) quick=1 ;;
    --dry-run) dry_run=1 ;;
    *) echo "run_cuda.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
budget=${TACK_CUDA_RUN_BUDGET_S:-450}  # seconds for everything before the table; each step gets what is left
start=$SECONDS
logs=$(mktemp -d /tmp/tack-run-cuda-XXXXXX)
# Kernels compiled by these runs stay out of the user's cache.
export TACK_CACHE_DIR=$logs/cache
rows=()         # "group|passed|failed|skipped|note"
bench_rows=()   # "name|value"
overall=0

left() { echo $((budget - (SECONDS - start))); }
note() { echo "== $*"; }

# run_step <name> <timeout_s> <log> <command...>: the command under timeout, output to the log (tail shown on failure).
run_step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local remaining
  remaining=$(left)
  if ((dry_run)); then
    echo "[dry-run] $name (timeout ${limit}s): $*"
    return 0
  fi
  if ((remaining < 15)); then
    note "$name: skipped, the time budget is spent"
    echo "time budget spent" >"$log"
    return 124
  fi
  ((limit > remaining)) && limit=$remaining
  note "$name (at most ${limit}s)"
  local t0=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
  rc=$?
  echo "   rc=$rc after $((SECONDS - t0))s"
  ((rc == 124 || rc == 137)) && echo "   TIMED OUT"
  return $rc
}

# gtest_group <group> <binary> <filter>: runs one gtest binary and records passed/failed/skipped from its summary.
gtest_group() {
  local group=$1 bin=$2 filter=$3 log=$logs/$1.log rc
  if ((dry_run)); then
    run_step "$group" 0 "$log" "$bin" --gtest_filter="$filter" --gtest_brief=1
    return
  fi
  if [[ ! -x $bin ]]; then
    rows+=("$group|-|-|-|not built")
    overall=1
    return
  fi
  run_step "$group" "${4:-240}" "$log" "$bin" --gtest_filter="$filter" --gtest_brief=1
  rc=$?
  local ran passed failed skipped why=""
  ran=$(grep -Eo '^\[==========\] [0-9]+ tests? from' "$log" | tail -n1 | grep -Eo '[0-9]+' | head -n1)
  passed=$(grep -Eo '^\[  PASSED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n1)
  failed=$(grep -Eo '^\[  FAILED  \] [0-9]+ tests?,' "$log" | grep -Eo '[0-9]+' | tail -n1)
  skipped=$(grep -Eo '^\[  SKIPPED \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n1)
  : "${passed:=0}" "${failed:=0}" "${skipped:=0}" "${ran:=0}"
  if ((rc == 124 || rc == 137)); then
    why="timed out"
    overall=1
  elif ((rc != 0 && failed == 0)); then
    why="exit $rc (crash?)"
    overall=1
    tail -n 30 "$log"
  elif ((failed > 0)); then
    overall=1
    grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | head -n 15
  fi
  if ((ran == 0 && rc == 0)); then why="no test matched"; fi
  if ((skipped > 0 && passed == 0 && failed == 0)); then
    # The first skip's reason (gtest prints it after the file:line of GTEST_SKIP).
    why=$(grep -A1 -m1 'Skipped' "$log" | tail -n1 | cut -c1-90)
    [[ -z $why ]] && why="skipped"
  fi
  rows+=("$group|$passed|$failed|$skipped|$why")
}

note "Tack on cuda: $root, build in $build, -j$jobs, logs in $logs"
if ((dry_run == 0)); then
  command -v nvidia-smi >/dev/null && timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  # Kernels need NVRTC (libnvrtc.so.13 or .12) besides the driver.
  ldconfig -p 2>/dev/null | grep -Eo 'libnvrtc\.so\.[0-9]+ ' | sort -u | tr '\n' ' ' | sed 's/^/NVRTC: /;s/$/\n/'
fi

# ---- build ----------------------------------------------------------------------
if ((do_build)); then
  missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  [[ -e /usr/include/gtest/gtest.h || -e /usr/local/include/gtest/gtest.h ]] || missing+=(googletest)
  [[ -d /usr/lib/llvm-19 ]] || missing+=(llvm-19)
  if ((${#missing[@]})); then
    note "missing: ${missing[*]}; trying scripts/install-deps.sh (apt may be unreachable)"
    run_step install-deps 200 "$logs/install-deps.log" bash "$root/scripts/install-deps.sh" || tail -n 20 "$logs/install-deps.log"
  fi
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  # An existing build folder keeps its generator.
  [[ -f $build/CMakeCache.txt ]] && generator=()
  if ! run_step configure 150 "$logs/configure.log" cmake -S "$root" -B "$build" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DTACK_BUILD_TESTS=ON -DTACK_BUILD_BENCH=ON -DTACK_BUILD_EXAMPLES=OFF; then
    ((dry_run)) || { tail -n 40 "$logs/configure.log"; rows+=("configure|-|-|-|failed: see $logs/configure.log"); overall=1; }
  fi
  targets=(tack_conformance_tests tack_device_tests tack_cuda_runtime_tests tack_cuda_shared_memory_tests tack_bench_cuda)
  if ! run_step build 330 "$logs/build.log" cmake --build "$build" --target "${targets[@]}" -j "$jobs"; then
    if ((dry_run == 0)); then
      # Go on with whatever was built; the table says which group is missing.
      grep -E 'error|Error' "$logs/build.log" | head -n 20
      rows+=("build|-|-|-|failed: see $logs/build.log")
      overall=1
    fi
  fi
fi

bin() { find "$build" -type f -name "$1" -perm -u+x 2>/dev/null | head -n 1; }

# ---- tests ----------------------------------------------------------------------
gtest_group conformance "$(bin tack_conformance_tests)" 'Backends/*/cuda:-Backends/Textures.*:Backends/Reductions.*' 240
gtest_group textures "$(bin tack_conformance_tests)" 'Backends/Textures.*/cuda' 90
gtest_group reductions "$(bin tack_conformance_tests)" 'Backends/Reductions.*/cuda' 90
gtest_group device_async "$(bin tack_device_tests)" '*' 120
# The same backend over the stand-in driver: the fake's checks hold in a Release build too.
fake=$(find "$build" -name libtack_fake_cuda.so 2>/dev/null | head -n 1)
TACK_CUDA_LIBRARY=${fake:-/nonexistent} gtest_group fake_driver "$(bin tack_cuda_runtime_tests)" '*' 90
TACK_CUDA_LIBRARY=${fake:-/nonexistent} gtest_group fake_shared "$(bin tack_cuda_shared_memory_tests)" '*' 60

# ---- benchmarks -----------------------------------------------------------------
bench_bin=$(bin tack_bench_cuda)
bench_args=()
((quick)) && bench_args=(--quick)
if ((dry_run)); then
  run_step bench 0 "$logs/bench.log" "${bench_bin:-tack_bench_cuda}" "${bench_args[@]}"
elif [[ -x $bench_bin ]]; then
  run_step bench 150 "$logs/bench.log" "$bench_bin" "${bench_args[@]}"
  rc=$?
  cat "$logs/bench.log" | grep -Ev '^RESULT' | tail -n 15
  if grep -q '^SKIP' "$logs/bench.log"; then
    bench_rows+=("benchmarks|$(grep -m1 '^SKIP' "$logs/bench.log" | cut -c7-100)")
  else
    ((rc != 0)) && { overall=1; bench_rows+=("benchmarks|FAILED (rc=$rc), see $logs/bench.log"); }
    while read -r _ name value unit; do bench_rows+=("$name|$value $unit"); done < <(grep '^RESULT' "$logs/bench.log")
  fi
else
  bench_rows+=("benchmarks|tack_bench_cuda not built")
fi

# ---- the table (last) -----------------------------------------------------------
((dry_run)) && { rm -rf "$logs"; exit 0; }
table=$logs/cuda_results.md
{
  echo "## Tack on cuda ($(date -u +%Y-%m-%dT%H:%MZ), $((SECONDS - start)) s)"
  echo
  if command -v nvidia-smi >/dev/null; then
    echo "GPU: $(timeout 10 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    echo
  fi
  echo "| group | passed | failed | skipped | note |"
  echo "|---|---|---|---|---|"
  for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
  echo
  echo "| benchmark | value |"
  echo "|---|---|"
  for r in "${bench_rows[@]}"; do echo "| ${r//|/ | } |"; done
  echo
  echo "saxpy/triad: GB/s over the bytes each moves (3 x 4 B per element), pct: of a cuMemcpyDtoDAsync of the"
  echo "same arrays (2 x 4 B per element); launch_queue_us: host time per queued launch (10 000, no wait);"
  echo "cold_compile_ms: a new variant with the disk cache off; cache_hit_ms: a new process, disk cache warm."
  echo "logs: $logs"
} >"$table"
[[ -n ${OUT:-} ]] && mkdir -p "$OUT" && cp "$table" "$OUT/cuda_results.md" && cp "$logs"/*.log "$OUT/" 2>/dev/null
echo
cat "$table"
exit $overall
