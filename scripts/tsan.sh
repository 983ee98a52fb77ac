#!/usr/bin/env bash
# Builds Tack and its tests with ThreadSanitizer in build-tsan/ and runs the
# concurrency tests: several host threads dispatching one variant, the CPU
# thread pool and launch policy. .ci/run calls it after the main suite.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${TACK_TSAN_BUILD_DIR:-build-tsan}"
jobs="${TACK_JOBS:-2}"
export CCACHE_NOHASHDIR=1
# ... and rewrite paths inside the checkout as relative ones, so a clone at another path (CI) hits the cache.
export CCACHE_BASEDIR="$PWD"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACK_BUILD_TESTS=ON -DTACK_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread"
cmake --build "$build" --parallel "$jobs" --target tack_conformance_tests tack_unit_tests
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
export TACK_CACHE_DIR="$build/tsan-cache"
export POCL_CACHE_DIR="$build/pocl-cache"
# The opencl backend runs here on PoCL only: Intel's ICD (intel-opencl-icd, installed for ocloc) dlopens a
# library with RTLD_DEEPBIND, which ThreadSanitizer's runtime cannot run, and would abort the process.
if [[ -f /etc/OpenCL/vendors/pocl.icd ]]; then
  export OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd
fi
"$build/tests/tack_conformance_tests" --gtest_filter='*ConcurrentDispatch*'
"$build/tests/tack_unit_tests" --gtest_filter='ThreadPool*:LaunchPolicy*:DiskCache*'
echo "tsan: passed"
