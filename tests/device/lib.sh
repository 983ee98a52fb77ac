# shellcheck shell=bash disable=SC2154  # `backend` is set by the script that sources this
# Shared by tests/device/run_<backend>.sh: the options, the steps under a time
# budget, the gtest groups and the table printed last. A script sets `backend`
# (cuda, hip, level_zero) and sources this file; see run_cuda.sh for its use.
#
#   device_parse_args "$@"     --build-dir DIR, --jobs N, --no-build, --quick, --dry-run
#   device_build TARGET...     configure (Release, tests and benchmarks) and build the targets
#   gtest_group GROUP BIN FILTER [TIMEOUT]   one gtest run, recorded as a row of the table
#   device_table TITLE_LINE... the table, to $OUT/<backend>_results.md too when OUT is set; exits
#
# Without the device every group reports its skips; the scripts exit 0 unless a
# test FAILED, crashed, timed out or was not built.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build-${backend//_/-}
jobs=16
do_build=1
quick=0
dry_run=0
rows=()        # "group|passed|failed|skipped|note"
bench_rows=()  # "name|value"
overall=0

device_parse_args() {
  while (($#)); do
    case $1 in
      --build-dir) build=$2; shift ;;
      --jobs) jobs=$2; shift ;;
      --no-build) do_build=0 ;;
      --quick) quick=1 ;;
      --dry-run) dry_run=1 ;;
      *) echo "run_$backend.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
  done
  local budget_var=TACK_${backend^^}_RUN_BUDGET_S
  budget=${!budget_var:-450}  # seconds for everything before the table; each step gets what is left
  start=$SECONDS
  logs=$(mktemp -d "/tmp/tack-run-${backend//_/-}-XXXXXX")
  # Kernels compiled by these runs stay out of the user's cache.
  export TACK_CACHE_DIR=$logs/cache
}

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

# gtest_group <group> <binary> <filter> [timeout]: runs one gtest binary and records passed/failed/skipped from its
# summary.
gtest_group() {
  local group=$1 bin=$2 filter=$3 log=$logs/$1.log rc
  if ((dry_run)); then
    run_step "$group" "${4:-240}" "$log" "${bin:-<not built>}" --gtest_filter="$filter" --gtest_brief=1
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

# The first executable called $1 under the build folder.
bin() { find "$build" -type f -name "$1" -perm -u+x 2>/dev/null | head -n 1; }

# device_build <target>...: installs missing tools where it can, configures and builds; on failure goes on with
# whatever was built (the table says which group is missing).
device_build() {
  ((do_build)) || return 0
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  [[ -e /usr/include/gtest/gtest.h || -e /usr/local/include/gtest/gtest.h ]] || missing+=(googletest)
  [[ -d /usr/lib/llvm-19 ]] || missing+=(llvm-19)
  if ((${#missing[@]})); then
    note "missing: ${missing[*]}; trying scripts/install-deps.sh (apt may be unreachable)"
    run_step install-deps 200 "$logs/install-deps.log" bash "$root/scripts/install-deps.sh" ||
      tail -n 20 "$logs/install-deps.log"
  fi
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  # An existing build folder keeps its generator.
  [[ -f $build/CMakeCache.txt ]] && generator=()
  if ! run_step configure 150 "$logs/configure.log" cmake -S "$root" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DTACK_BUILD_TESTS=ON -DTACK_BUILD_BENCH=ON -DTACK_BUILD_EXAMPLES=OFF; then
    ((dry_run)) || {
      tail -n 40 "$logs/configure.log"
      rows+=("configure|-|-|-|failed: see $logs/configure.log")
      overall=1
    }
  fi
  if ! run_step build 330 "$logs/build.log" cmake --build "$build" --target "$@" -j "$jobs"; then
    if ((dry_run == 0)); then
      grep -E 'error|Error' "$logs/build.log" | head -n 20
      rows+=("build|-|-|-|failed: see $logs/build.log")
      overall=1
    fi
  fi
}

# device_table <line>...: the table of rows and bench_rows, after the given lines (the device, the availability) and
# before the notes in $table_notes; prints it last, copies it and the logs to $OUT when set, and exits.
device_table() {
  ((dry_run)) && { rm -rf "$logs"; exit 0; }
  local table=$logs/${backend}_results.md line r
  {
    echo "## Tack on $backend ($(date -u +%Y-%m-%dT%H:%MZ), $((SECONDS - start)) s)"
    echo
    for line in "$@"; do
      echo "$line"
      echo
    done
    echo "| group | passed | failed | skipped | note |"
    echo "|---|---|---|---|---|"
    for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
    echo
    echo "| benchmark | value |"
    echo "|---|---|"
    for r in "${bench_rows[@]}"; do echo "| ${r//|/ | } |"; done
    echo
    [[ -n ${table_notes:-} ]] && echo "$table_notes"
    echo "logs: $logs"
  } >"$table"
  [[ -n ${OUT:-} ]] && mkdir -p "$OUT" && cp "$table" "$OUT/${backend}_results.md" && cp "$logs"/*.log "$OUT/" 2>/dev/null
  echo
  cat "$table"
  exit $overall
}

# "available" or "unavailable: <reason>", from what the conformance group's log says.
backend_availability() {
  local log=$logs/conformance.log why
  why=$(grep -m1 -Eo "backend '$backend' is unavailable here: .*" "$log" 2>/dev/null | cut -c1-160)
  if [[ -n $why ]]; then
    echo "unavailable: ${why#*here: }"
  elif grep -q '^\[  PASSED  \] [1-9]\|^\[  FAILED  \] [0-9]' "$log" 2>/dev/null; then
    echo "available"
  else
    echo "unknown (no conformance run; see $log)"
  fi
}

# device_kernel_bench: tack_bench_kernels' streaming kernels (saxpy, triad, sum) on $backend
# (TACK_BENCH_DEVICE), the median real time of each as a row; without the device, one row saying so.
device_kernel_bench() {
  local bench_bin filter='^(saxpy|triad|sum)/tack$' availability
  bench_bin=$(bin tack_bench_kernels)
  local args=(--benchmark_filter="$filter" --benchmark_format=csv --benchmark_min_time=0.2
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
  if ((dry_run)); then
    run_step bench 150 "$logs/bench.log" env TACK_BENCH_DEVICE="$backend" TACK_BENCH_QUICK=$quick \
      "${bench_bin:-tack_bench_kernels}" "${args[@]}"
    return
  fi
  availability=$(backend_availability)
  if [[ $availability == unavailable* ]]; then
    bench_rows+=("benchmarks|not run: $backend $availability")
    return
  fi
  if [[ ! -x $bench_bin ]]; then
    bench_rows+=("benchmarks|tack_bench_kernels not built (Google Benchmark and OpenMP are needed)")
    return
  fi
  local rc
  TACK_BENCH_DEVICE=$backend TACK_BENCH_QUICK=$quick run_step bench 150 "$logs/bench.log" "$bench_bin" "${args[@]}"
  rc=$?
  if ((rc != 0)); then
    overall=1
    tail -n 15 "$logs/bench.log"
    bench_rows+=("benchmarks|FAILED (rc=$rc), see $logs/bench.log")
    return
  fi
  # csv: name,iterations,real_time,cpu_time,time_unit,...; the medians of the repetitions.
  local name value unit
  while IFS=, read -r name _ value _ unit _; do
    bench_rows+=("${name//\"/}|$value $unit")
  done < <(grep -E '^"[a-z_]+/tack_median"' "$logs/bench.log")
}
