#!/bin/sh
# compile_checks.metal_runtime: the metal backend (src/backends/metal) parsed
# where it cannot be built. Its plain C++ headers must compile as C++ without
# Objective-C; its Objective-C++ (.mm, ARC) is parsed by clang against the
# stand-in <Foundation/Foundation.h> and <Metal/Metal.h> beside this script,
# as for an SDK before macOS 15 (fastMathEnabled) and, where a file tests the
# SDK version, also as for macOS 15 and later (mathMode). Exit 77 (skip) without a clang that parses
# Objective-C++ with ARC.
#
#   check.sh <source dir> [clang++]
set -u
root=${1:?usage: check.sh <source dir> [clang++]}
clang=${2:-clang++}
stubs="$root/tests/compile_checks/metal_runtime_stubs"
metal="$root/src/backends/metal"

case "$clang" in *NOTFOUND*|"") echo "skipped: no clang++ found"; exit 77 ;; esac
if ! command -v "$clang" >/dev/null 2>&1; then echo "skipped: $clang is not installed"; exit 77; fi

objcxx="-x objective-c++ -std=c++20 -fobjc-arc -fblocks -fobjc-runtime=macosx-13.0 -fsyntax-only"
probe=$(mktemp "${TMPDIR:-/tmp}/tack_objcxx_probe.XXXXXX")
trap 'rm -f "$probe"' EXIT
printf '@interface TackProbe\n- (void)run;\n@end\nvoid f(TackProbe* p) { [p run]; }\n' > "$probe"
# shellcheck disable=SC2086
if ! "$clang" $objcxx "$probe" >/dev/null 2>&1; then
  echo "skipped: $clang does not parse Objective-C++ with ARC"
  exit 77
fi

warn="-Wall -Wextra -Wno-unused-parameter -Werror"
include="-I$stubs -I$root/src -I$root/include"
failed=0
for h in "$metal"/*.hpp; do
  # shellcheck disable=SC2086
  if ! "$clang" -x c++ -std=c++20 -fsyntax-only -Wno-pragma-once-outside-header $include "$h"; then
    echo "FAILED: $h as plain C++"; failed=1
  fi
done
for m in "$metal"/*.mm; do
  sdks=""
  # The newer SDK's branch only where a file has one (parsing is slow on a busy machine).
  if grep -q __MAC_OS_X_VERSION_MAX_ALLOWED "$m"; then sdks="-D__MAC_OS_X_VERSION_MAX_ALLOWED=150000"; fi
  for sdk in "" $sdks; do
    # shellcheck disable=SC2086
    if ! "$clang" $objcxx $warn $sdk $include "$m"; then
      echo "FAILED: $m ${sdk:-(SDK before macOS 15)}"; failed=1
    fi
  done
done
if [ "$failed" -ne 0 ]; then exit 1; fi
echo "metal runtime: $(ls "$metal"/*.hpp | wc -l) headers as C++, $(ls "$metal"/*.mm | wc -l) Objective-C++ files parsed"
