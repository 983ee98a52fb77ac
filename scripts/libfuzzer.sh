#!/usr/bin/env bash
# Builds the libFuzzer target tack_libfuzzer (tests/fuzz/libfuzzer/) with clang
# in build-libfuzzer/ and runs it for a bounded time from the checked-in seed
# corpus. The library is compiled with -fsanitize=fuzzer-no-link (coverage for
# the fuzzer) plus ASan + UBSan; any crash, uncaught non-tack exception, hang
# (-timeout), leak or sanitizer report fails the run and leaves the input in
# the build folder (crash-*, timeout-*, leak-*). .ci/run calls it after asan.sh.
# Environment: TACK_LIBFUZZER_BUILD_DIR (default build-libfuzzer),
# TACK_LIBFUZZER_RUNS (default 40000 inputs; 0 = until the time runs out),
# TACK_LIBFUZZER_SEED (default 1, so a CI run is reproducible; 0 = random),
# TACK_LIBFUZZER_SECONDS (default 300, a cap), TACK_JOBS (default 2), CXX (a clang++;
# default: the newest of clang++-15, clang++-14, clang++).
# Extra arguments go to the fuzzer, e.g.  bash scripts/libfuzzer.sh -runs=1000
# To run long, or to replay one input, see docs/reliability.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${TACK_LIBFUZZER_BUILD_DIR:-build-libfuzzer}"
jobs="${TACK_JOBS:-2}"
seconds="${TACK_LIBFUZZER_SECONDS:-300}"
runs="${TACK_LIBFUZZER_RUNS:-40000}"
seed="${TACK_LIBFUZZER_SEED:-1}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
export CCACHE_NOHASHDIR=1
export CCACHE_BASEDIR="$PWD"  # clones at other paths share the cached objects

# libFuzzer comes with clang only. PoCL installs clang 15 beside Debian's
# default clang 14; the newer one is preferred. Both compile LLVM 19's headers.
if [[ -z "${CXX:-}" ]]; then
  for c in clang++-15 /usr/lib/llvm-15/bin/clang++ clang++-14 clang++; do
    if command -v "$c" >/dev/null; then CXX="$(command -v "$c")"; break; fi
  done
fi
if [[ -z "${CXX:-}" ]]; then
  echo "libfuzzer: no clang++ found (libFuzzer needs clang)" >&2
  exit 1
fi

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# Library at -O1 -g1 as in scripts/asan.sh. Only the library and the fuzz
# target are built: no tests, no examples.
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTACK_BUILD_TESTS=OFF -DTACK_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS="$san -fsanitize=fuzzer-no-link" \
  -DCMAKE_SHARED_LINKER_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" \
  -DCMAKE_PROJECT_Tack_INCLUDE="$PWD/tests/fuzz/libfuzzer/project_include.cmake"
cmake --build "$build" --parallel "$jobs" --target tack_libfuzzer

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
export TACK_CACHE_DIR="$build/tack-cache"
export POCL_CACHE_DIR="$build/pocl-cache"
# As in scripts/asan.sh: Intel's ICD cannot run under the sanitizers; PoCL can.
if [[ -f /etc/OpenCL/vendors/pocl.icd ]]; then
  export OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd
fi
# New inputs go to the first folder (in the build tree); the seeds stay as they are.
mkdir -p "$build/corpus"
# A fixed seed and input count make the CI step the same run everywhere: a failure there reproduces here.
"$build/libfuzzer/tack_libfuzzer" -seed="$seed" -runs="$runs" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
  -artifact_prefix="$build/" -print_final_stats=1 "$@" "$build/corpus" tests/fuzz/libfuzzer/corpus
echo "libfuzzer: passed"
