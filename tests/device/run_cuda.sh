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

backend=cuda
# shellcheck source=tests/device/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
device_parse_args "$@"

note "Tack on cuda: $root, build in $build, -j$jobs, logs in $logs"
if ((dry_run == 0)); then
  command -v nvidia-smi >/dev/null && timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  # Kernels need NVRTC (libnvrtc.so.13 or .12) besides the driver.
  ldconfig -p 2>/dev/null | grep -Eo 'libnvrtc\.so\.[0-9]+ ' | sort -u | tr '\n' ' ' | sed 's/^/NVRTC: /;s/$/\n/'
fi

# ---- build ----------------------------------------------------------------------
device_build tack_conformance_tests tack_device_tests tack_cuda_runtime_tests tack_cuda_shared_memory_tests \
  tack_bench_cuda

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
  grep -Ev '^RESULT' "$logs/bench.log" | tail -n 15
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
gpu=()
command -v nvidia-smi >/dev/null &&
  gpu=("GPU: $(timeout 10 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)")
table_notes="saxpy/triad: GB/s over the bytes each moves (3 x 4 B per element), pct: of a cuMemcpyDtoDAsync of the
same arrays (2 x 4 B per element); launch_queue_us: host time per queued launch (10 000, no wait);
cold_compile_ms: a new variant with the disk cache off; cache_hit_ms: a new process, disk cache warm."
device_table "${gpu[@]}" "cuda: $(backend_availability)"
