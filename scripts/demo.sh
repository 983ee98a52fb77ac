#!/usr/bin/env bash
# The demo: builds the lid-driven cavity example (target tack_cavity) in build/
# and runs it on the default device (TACK_DEVICE, else the default): a D2Q9
# lattice-Boltzmann flow at Re = 100 on 128 x 128 cells, run to a steady state
# and checked against Ghia et al. (1982). It writes its pictures and a CSV to
# build/demo/. Arguments go to the example, e.g.
#   bash scripts/demo.sh --device opencl
#   bash scripts/demo.sh --device interp --n 16 --steps 300   # the interpreter is slow: a short run
#   bash scripts/demo.sh --re 1000
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

build="${TACK_BUILD_DIR:-build}"
out="$build/demo"
# ccache: leave the build folder out of the hash (it is hashed with -g by
# default), so the add_subdirectory_package test reuses these objects.
export CCACHE_NOHASHDIR=1
# ... and rewrite paths inside the checkout as relative ones, so a clone at another path (CI) hits the cache.
export CCACHE_BASEDIR="$PWD"
cmake -S . -B "$build" -DTACK_BUILD_EXAMPLES=ON
cmake --build "$build" --target tack_cavity --parallel "${TACK_JOBS:-2}"
status=0
"$build/examples/tack_cavity" --out "$out" "$@" || status=$?
if [[ -d "$out" ]]; then
  echo "demo: pictures and CSV in $out/:"
  ls "$out" | sed 's/^/  /'
fi
exit "$status"
