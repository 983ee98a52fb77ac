#!/usr/bin/env bash
# Builds Tack with every test in build/ and runs them all with ctest, then
# builds the Python package (python/, scikit-build-core + nanobind) into a venv
# over the same library and runs its pytest suite, with the self-contained wheel (scripts/wheel.sh) and the API
# reference (scripts/api_docs.sh).
# Extra arguments go to ctest, e.g.  bash scripts/test.sh -R '^conformance\.'  or  -L unit
# Environment: TACK_BUILD_DIR (default build), TACK_JOBS (default 2),
# TACK_PYTEST_ARGS (extra pytest arguments), TACK_SKIP_CTEST=1 / TACK_SKIP_PYTEST=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build="${TACK_BUILD_DIR:-build}"
venv="$build/venv"
bash scripts/install-deps.sh --python "$venv"

jobs="${TACK_JOBS:-2}"
# ccache: leave the build folder out of the hash (it is hashed with -g by
# default), so the add_subdirectory_package test reuses these objects.
export CCACHE_NOHASHDIR=1
# ... and rewrite paths inside the checkout as relative ones, so a clone at another path (CI) hits the cache.
export CCACHE_BASEDIR="$PWD"

cmake -S . -B "$build" -DTACK_BUILD_TESTS=ON
cmake --build "$build" --parallel "$jobs"

if [[ "${TACK_SKIP_CTEST:-0}" != 1 ]]; then
  # ctest exits non-zero when a test fails or none is found; --timeout bounds a
  # test that sets no TIMEOUT of its own, so a hang cannot stall CI.
  (cd "$build" && ctest --output-on-failure --no-tests=error -j "$jobs" --timeout 900 "$@")
fi

if [[ "${TACK_SKIP_PYTEST:-0}" != 1 ]]; then
  # The package links the library just built (TACK_PREBUILT), so nothing is compiled twice;
  # TACK_PYTHON_TWINS builds the test module of python/tests/test_twins.py beside it (not installed).
  build_abs="$(cd "$build" && pwd)"
  python="$build_abs/venv/bin/python"
  "$python" -m pip install -q --disable-pip-version-check --no-build-isolation \
    -C cmake.define.TACK_PREBUILT="$build_abs" -C cmake.define.TACK_PYTHON_TWINS=ON \
    -C build-dir="$build_abs/python" ./python
  "$python" -c "import tack; print('python: tack', tack.__version__, 'on', ', '.join(tack.backend_names()))"
  # The self-contained wheel (static LLVM, auditwheel-repaired): python/tests/test_wheel.py installs it into a
  # fresh venv and checks it. Its library objects are the ones just built (ccache).
  bash scripts/wheel.sh
  export TACK_WHEEL
  TACK_WHEEL="$(ls "$build_abs"/wheel/dist/tack-*.whl)"
  # From outside the checkout, so the installed package is what is tested. pytest's
  # exit code 5 means no test ran: never a pass.
  rc=0
  tests="$PWD/python/tests"
  (cd "$build_abs" && POCL_CACHE_DIR="$build_abs/pocl-cache" TACK_CACHE_DIR="$build_abs/pytest-tack-cache" \
    TACK_TWINS_DIR="$build_abs/python/twins" \
    "$python" -m pytest "$tests" -q -p no:cacheprovider ${TACK_PYTEST_ARGS:-}) || rc=$?
  if ((rc == 5)); then
    echo "pytest: no test was collected from python/tests: that is a failure" >&2
    exit 1
  fi
  ((rc == 0)) || exit "$rc"
  # The API reference from the docstrings (warnings are errors), its doctests, and mypy over the examples.
  bash scripts/api_docs.sh "$python"
fi
