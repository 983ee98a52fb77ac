#!/usr/bin/env bash
# The ctest tests of examples/mpi_cavity (examples/CMakeLists.txt runs them):
#
#   test_mpi_cavity.sh bitwise|cache|ghia EXE OUTDIR MPIEXEC
#
#   bitwise  1 rank (also against examples/cavity's Lattice), 2 and 4 ranks, 2
#            ranks without overlap and 2 staging halos through the host: the same bytes
#   cache    4 ranks compile the kernels at once into one fresh TACK_CACHE_DIR;
#            the entries are valid (a second run loads every variant from them, as
#            TACK_LOG=compile reports, without a warning, adds none) and both runs
#            give the 1-rank result
#   ghia     2 ranks to a steady state at Re = 100, within 0.01 of Ghia et al.
# Exit 77 (ctest: skipped) with the reason when MPI is absent.
set -uo pipefail
mode=$1 exe=${2:-} out=$3 mpiexec=${4:-}
skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
[[ -n "$exe" && -x "$exe" ]] || skip "tack_mpi_cavity was not built: MPI was not found when configuring (Debian: openmpi-bin libopenmpi-dev)"
[[ -n "$mpiexec" ]] && command -v "$mpiexec" >/dev/null || skip "no mpirun (MPIEXEC '$mpiexec')"

flags=()
# Open MPI refuses root without --allow-run-as-root, and more ranks than cores without --oversubscribe.
if "$mpiexec" --version 2>&1 | grep -qiE "open ?mpi|openrte"; then flags=(--allow-run-as-root --oversubscribe); fi
export TACK_CPU_THREADS=${TACK_CPU_THREADS:-1}  # one thread per rank: the ranks share this machine's cores
mkdir -p "$out"
run() {  # run RANKS LOG ARGS...: the example on RANKS ranks, output to LOG and shown
  local np=$1 log=$2
  shift 2
  echo "+ mpirun -np $np tack_mpi_cavity $*"
  "$mpiexec" "${flags[@]}" -np "$np" "$exe" "$@" >"$log" 2>&1
  local rc=$?
  cat "$log"
  ((rc == 77)) && skip "$(grep skipped: "$log" | head -1)"
  ((rc == 0)) || fail "exit code $rc"
}
small=(--n 24 --steps 200)

case $mode in
bitwise)
  export TACK_CACHE_DIR="$out/cache-bitwise"
  rm -rf "$TACK_CACHE_DIR"
  run 1 "$out/np1.log" "${small[@]}" --compare-serial --dump "$out/np1.bin"
  grep -q "single-process Lattice: yes" "$out/np1.log" || fail "1 rank differs from examples/cavity"
  run 2 "$out/np2.log" "${small[@]}" --dump "$out/np2.bin"
  run 4 "$out/np4.log" "${small[@]}" --dump "$out/np4.bin"
  run 2 "$out/np2-no-overlap.log" "${small[@]}" --no-overlap --dump "$out/np2-no-overlap.bin"
  run 2 "$out/np2-staged.log" "${small[@]}" --host-staging --dump "$out/np2-staged.bin"
  for r in np2 np4 np2-no-overlap np2-staged; do
    cmp "$out/np1.bin" "$out/$r.bin" || fail "$r differs from 1 rank"
  done
  echo "2 ranks, 4 ranks, 2 ranks without overlap and 2 staged through the host: the same bytes as 1 rank"
  ;;
cache)
  TACK_CACHE=0 run 1 "$out/ref.log" "${small[@]}" --dump "$out/ref.bin"
  export TACK_CACHE_DIR="$out/cache-shared"
  rm -rf "$TACK_CACHE_DIR"  # fresh: every rank compiles, and stores, the same kernels at once
  run 4 "$out/race.log" "${small[@]}" --dump "$out/race.bin"
  ls -A "$TACK_CACHE_DIR" | sort >"$out/entries1.txt"
  echo "cache entries after the first run:"
  cat "$out/entries1.txt"
  [[ -s "$out/entries1.txt" ]] || fail "nothing was stored in $TACK_CACHE_DIR"
  grep -qvE '^[0-9a-f]{32}\.v[0-9]+\.tack$' "$out/entries1.txt" && fail "a file that is not a finished cache entry was left behind"
  # TACK_LOG=compile: a line per variant each rank made, which says whether the disk cache served it.
  TACK_LOG=compile run 4 "$out/again.log" "${small[@]}" --dump "$out/again.bin"
  grep -q "warning: disk cache" "$out/race.log" "$out/again.log" && fail "a disk-cache warning (a damaged entry?)"
  made=$(grep -c "^tack: kernel '" "$out/again.log")
  loaded=$(grep -c "^tack: kernel '.*, disk cache hit$" "$out/again.log")
  echo "the second run made $made variants (4 ranks), $loaded of them loaded from the disk cache"
  ((made >= 4)) || fail "the second run reported $made variants (TACK_LOG=compile): fewer than one per rank"
  ((loaded == made)) || fail "the second run compiled $((made - loaded)) of its $made variants: it did not load them all"
  ls -A "$TACK_CACHE_DIR" | sort | cmp - "$out/entries1.txt" || fail "the second run changed the entries"
  cmp "$out/ref.bin" "$out/race.bin" && cmp "$out/ref.bin" "$out/again.bin" || fail "a result differs from 1 rank's"
  echo "4 ranks compiling into one cache at once: valid entries, loaded by the second run, results as 1 rank"
  ;;
ghia)
  export TACK_CACHE_DIR="$out/cache-ghia"
  run 2 "$out/ghia.log" --n 128
  grep -q "within 0.01 of Ghia et al.: OK" "$out/ghia.log" || fail "no Ghia check"
  ;;
*) fail "unknown mode $mode" ;;
esac
