#!/usr/bin/env bash
# Builds the saxpy example (target tack_demo) in build/ and runs it on the
# default device (TACK_DEVICE, else the default). Arguments go to the demo,
# e.g.  bash scripts/demo.sh --device interp
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

build="${TACK_BUILD_DIR:-build}"
# ccache: leave the build folder out of the hash (it is hashed with -g by
# default), so the add_subdirectory_package test reuses these objects.
export CCACHE_NOHASHDIR=1
cmake -S . -B "$build" -DTACK_BUILD_EXAMPLES=ON
cmake --build "$build" --target tack_demo --parallel "${TACK_JOBS:-2}"
exec "$build/examples/tack_demo" "$@"
