#!/usr/bin/env bash
# One command for a machine with an AMD GPU and ROCm: builds Tack (Release) with
# its tests and benchmarks, runs on the hip device the conformance suite (the
# integer-expression case included, an expected failure on ROCm 7.0/7.1), the
# textures and reductions rows of it, the HIP unit tests and the backend over
# the stand-in runtime (textures, wrapped memory, memory spaces among them), and
# tack_bench_kernels' streaming kernels on hip; then prints a short table LAST
# (and writes it to $OUT/hip_results.md when OUT is set). Foreign memory runs on
# the GPU in the conformance suite's ForeignMemory rows (the device's own
# memory, from share(), wrapped by array_from_ptr). Every step runs under `timeout`, and the whole
# run stays within about 8 minutes on a 16-core machine. Without a GPU each step
# reports its skips and the table says hip is unavailable; the script still
# exits 0 unless a test FAILED.
#
#   tests/device/run_hip.sh [--build-dir DIR] [--jobs N] [--no-build] [--quick] [--dry-run]
#
#   --build-dir  where to build (default: build-hip/ in the repository)
#   --jobs       parallel compile jobs (default: 16)
#   --no-build   use what DIR already has
#   --quick      small benchmark sizes (for checking this script)
#   --dry-run    print the steps and their commands, run nothing
set -uo pipefail

backend=hip
# shellcheck source=tests/device/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
device_parse_args "$@"

note "Tack on hip: $root, build in $build, -j$jobs, logs in $logs"
if ((dry_run == 0)); then
  command -v rocm-smi >/dev/null && timeout 20 rocm-smi --showproductname 2>/dev/null | grep -E 'GPU|Card' | head -n 4
  # Kernels need hipRTC besides the runtime (libamdhip64).
  ldconfig -p 2>/dev/null | grep -Eo 'lib(amdhip64|hiprtc)\.so[.0-9]* ' | sort -u | tr '\n' ' ' |
    sed 's/^/HIP: /;s/$/\n/'
fi

# ---- build ----------------------------------------------------------------------
device_build tack_conformance_tests tack_unit_tests tack_hip_runtime_tests tack_bench_kernels

# ---- tests ----------------------------------------------------------------------
gtest_group conformance "$(bin tack_conformance_tests)" 'Backends/*/hip:-Backends/Textures.*:Backends/Reductions.*' 240
gtest_group textures "$(bin tack_conformance_tests)" 'Backends/Textures.*/hip' 90
gtest_group reductions "$(bin tack_conformance_tests)" 'Backends/Reductions.*/hip' 90
# The runtime version rules (the 7.0/7.1 mark among them), the buffer cache and the launch limits.
gtest_group hip_unit "$(bin tack_unit_tests)" 'Hip*:GpuLimits.*' 60
# The same backend over the stand-in runtime: the fake's checks hold in a Release build too.
fake=$(find "$build" -name libtack_fake_hip.so 2>/dev/null | head -n 1)
TACK_HIP_LIBRARY=${fake:-/nonexistent} gtest_group fake_runtime "$(bin tack_hip_runtime_tests)" '*' 90

# ---- benchmarks -----------------------------------------------------------------
device_kernel_bench

# ---- the table (last) -----------------------------------------------------------
gpu=()
command -v rocm-smi >/dev/null &&
  gpu=("GPU: $(timeout 10 rocm-smi --showproductname 2>/dev/null | grep -m1 -E 'Card (series|SKU)' | sed 's/.*: *//')")
table_notes="saxpy/triad/sum: tack_bench_kernels' median real time of 3 runs on hip (TACK_BENCH_DEVICE=hip)."
device_table "${gpu[@]}" "hip: $(backend_availability)"
