#!/usr/bin/env bash
# Builds Tack with every test in build/ and runs them all with ctest.
# Extra arguments go to ctest, e.g.  bash scripts/test.sh -R '^conformance\.'  or  -L unit
# Environment: TACK_BUILD_DIR (default build), TACK_JOBS (default 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

build="${TACK_BUILD_DIR:-build}"
jobs="${TACK_JOBS:-2}"
# ccache: leave the build folder out of the hash (it is hashed with -g by
# default), so the add_subdirectory_package test reuses these objects.
export CCACHE_NOHASHDIR=1
# ... and rewrite paths inside the checkout as relative ones, so a clone at another path (CI) hits the cache.
export CCACHE_BASEDIR="$PWD"

cmake -S . -B "$build" -DTACK_BUILD_TESTS=ON
cmake --build "$build" --parallel "$jobs"

cd "$build"
# ctest exits non-zero when a test fails or none is found; --timeout bounds a
# test that sets no TIMEOUT of its own, so a hang cannot stall CI.
ctest --output-on-failure --no-tests=error -j "$jobs" --timeout 900 "$@"
