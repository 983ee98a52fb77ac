#!/usr/bin/env bash
# check_dry_run.sh <backend>: tests/device/run_<backend>.sh --dry-run exits 0, prints its steps in order
# (configure, build, the conformance, textures and reductions groups with filters naming the backend, then the
# benchmarks), creates no build folder and leaves no log folder behind; an unknown argument exits 2.
set -uo pipefail
backend=$1
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=$dir/run_$backend.sh
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() {
  echo "FAILED: run_$backend.sh --dry-run: $*"
  echo "--- its output:"
  cat "$scratch/out"
  exit 1
}

logs_before=$(find /tmp -maxdepth 1 -name "tack-run-${backend//_/-}-*" 2>/dev/null | sort)
bash "$script" --dry-run --build-dir "$scratch/build" --jobs 3 >"$scratch/out" 2>&1
rc=$?
((rc == 0)) || fail "exit $rc"
grep -q 'unbound variable\|command not found\|syntax error' "$scratch/out" && fail "a shell error"
[[ -e $scratch/build ]] && fail "the build folder was made"
logs_after=$(find /tmp -maxdepth 1 -name "tack-run-${backend//_/-}-*" 2>/dev/null | sort)
[[ $logs_before == "$logs_after" ]] || fail "a log folder was left behind"

# The steps, in this order, each a [dry-run] line.
expect=(
  "configure .*cmake -S .* -B $scratch/build .*-DCMAKE_BUILD_TYPE=Release"
  "build .*cmake --build $scratch/build --target tack_conformance_tests .* -j 3"
  "conformance .*--gtest_filter=Backends/\\*/$backend:-Backends/Textures\\.\\*:Backends/Reductions\\.\\*"
  "textures .*--gtest_filter=Backends/Textures\\.\\*/$backend "
  "reductions .*--gtest_filter=Backends/Reductions\\.\\*/$backend "
  "bench "
)
line=0
for pattern in "${expect[@]}"; do
  found=$(grep -n -E "^\[dry-run\] $pattern" "$scratch/out" | head -n 1 | cut -d: -f1)
  [[ -n $found ]] || fail "no step matching '$pattern'"
  ((found > line)) || fail "the step '$pattern' is out of order"
  line=$found
done
[[ $backend == cuda ]] || grep -q "TACK_BENCH_DEVICE=$backend " "$scratch/out" || fail "the benchmarks do not run on $backend"
steps=$(grep -c '^\[dry-run\]' "$scratch/out")

bash "$script" --no-such-option >"$scratch/out" 2>&1
rc=$?
((rc == 2)) || fail "an unknown argument gave exit $rc, not 2"
grep -q "run_$backend.sh: unknown argument '--no-such-option'" "$scratch/out" || fail "the unknown argument not named"
echo "run_$backend.sh --dry-run: $steps steps, in order"
