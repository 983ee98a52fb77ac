#!/usr/bin/env bash
# One command for a machine with an Intel GPU and the Level Zero loader: builds
# Tack (Release) with its tests and benchmarks, runs on the level_zero device
# the conformance suite, the textures and reductions rows of it, the backend
# over the stand-in loader (external handles, images, texture copies and
# wrapped memory among them), and tack_bench_kernels' streaming kernels on
# level_zero; then prints a short table LAST (and writes it to
# $OUT/level_zero_results.md when OUT is set). Foreign memory runs on the GPU in
# the conformance suite's ForeignMemory rows (the device's own memory, from
# share(), wrapped by array_from_ptr). Every step runs under `timeout`, and the whole run stays within about 8
# minutes on a 16-core machine. Without a GPU each step reports its skips and
# the table says level_zero is unavailable; the script still exits 0 unless a
# test FAILED.
#
#   tests/device/run_level_zero.sh [--build-dir DIR] [--jobs N] [--no-build] [--quick] [--dry-run]
#
#   --build-dir  where to build (default: build-level-zero/ in the repository)
#   --jobs       parallel compile jobs (default: 16)
#   --no-build   use what DIR already has
#   --quick      small benchmark sizes (for checking this script)
#   --dry-run    print the steps and their commands, run nothing
set -uo pipefail

backend=level_zero
# shellcheck source=tests/device/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
device_parse_args "$@"

note "Tack on level_zero: $root, build in $build, -j$jobs, logs in $logs"
if ((dry_run == 0)); then
  # Kernels need libocloc besides the loader (libze_loader).
  ldconfig -p 2>/dev/null | grep -Eo 'lib(ze_loader|ocloc)[-.0-9a-z]*\.so[.0-9]* ' | sort -u | tr '\n' ' ' |
    sed 's/^/Level Zero: /;s/$/\n/'
fi

# ---- build ----------------------------------------------------------------------
device_build tack_conformance_tests tack_level_zero_runtime_tests tack_bench_kernels

# ---- tests ----------------------------------------------------------------------
gtest_group conformance "$(bin tack_conformance_tests)" \
  'Backends/*/level_zero:-Backends/Textures.*:Backends/Reductions.*' 240
gtest_group textures "$(bin tack_conformance_tests)" 'Backends/Textures.*/level_zero' 90
gtest_group reductions "$(bin tack_conformance_tests)" 'Backends/Reductions.*/level_zero' 90
# The same backend over the stand-in loader: the fake's checks hold in a Release build too.
fake=$(find "$build" -name libtack_fake_level_zero.so 2>/dev/null | head -n 1)
TACK_LEVEL_ZERO_LIBRARY=${fake:-/nonexistent} gtest_group fake_loader "$(bin tack_level_zero_runtime_tests)" '*' 120

# ---- benchmarks -----------------------------------------------------------------
device_kernel_bench

# ---- the table (last) -----------------------------------------------------------
table_notes="saxpy/triad/sum: tack_bench_kernels' median real time of 3 runs on level_zero (TACK_BENCH_DEVICE=level_zero)."
device_table "level_zero: $(backend_availability)"
