#!/usr/bin/env bash
# Installs the Debian 12 packages that Tack's build, tests, benchmarks and
# examples need. Idempotent: when everything is present it only asks dpkg and
# returns. Runs apt-get as root, or through sudo when not root.
# Set TACK_SKIP_DEPS=1 to skip it (e.g. on a system without apt).
set -euo pipefail

packages=(
  cmake make g++ ccache                        # the build
  libgtest-dev libgmock-dev libbenchmark-dev   # tests and benchmarks
  libxxhash-dev                                # disk-cache hashes (XXH3)
  llvm-19-dev                                  # the CPU backend's JIT
  pocl-opencl-icd ocl-icd-opencl-dev           # the OpenCL backend, run by PoCL on the CPU
  libamdhip64-dev                              # hipRTC: compile checks of HIP C for gfx90a
  intel-opencl-icd                             # libocloc: compile checks of OpenCL C for Intel GPUs
  clang                                        # compile checks of MSL, parsed as C++
  libstb-dev                                   # PNG output in examples
  libdlpack-dev                                # tack::from_dlpack / Array::to_dlpack
)

if [[ "${TACK_SKIP_DEPS:-0}" == 1 ]]; then
  echo "install-deps: skipped (TACK_SKIP_DEPS=1)"
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
