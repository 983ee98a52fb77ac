#!/usr/bin/env bash
# Measures examples/mpi_cavity on this machine: 1 rank x 2 threads against 2
# ranks x 1 thread (and 4 x 1, oversubscribed on 2 cores), MLUPS and the halo
# exchange's share of a step, each the best of 3 runs. Figures: bench/RESULTS.md.
#
#   bench/mpi_cavity.sh [EXE] [N] [STEPS]    (defaults: build/examples/tack_mpi_cavity 256 4000)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exe=${1:-$root/build/examples/tack_mpi_cavity} n=${2:-256} steps=${3:-4000}
export TACK_CACHE_DIR=$(mktemp -d /tmp/tack-mpi-bench-XXXXXX)
trap 'rm -rf "$TACK_CACHE_DIR"' EXIT
mpi=(mpirun --allow-run-as-root)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $n x $n cells, $steps steps"
config() {  # config LABEL THREADS "MPIRUN FLAGS" [EXAMPLE FLAGS]: the run of 3 with the most MLUPS
  local label=$1 threads=$2 flags=$3 extra=${4:-}
  for _ in 1 2 3; do
    # shellcheck disable=SC2086  # the flags are words
    TACK_CPU_THREADS=$threads "${mpi[@]}" $flags "$exe" --n "$n" --steps "$steps" $extra | grep MLUPS
  done | awk '{ m = $0; sub(/.*s: /, "", m); sub(/ MLUPS.*/, "", m); print m "\t" $0 }' | sort -g -r | head -1 |
    cut -f2- | sed "s/^/$label: /"
}
# A rank of 2 threads must not be bound to one core (Open MPI's default for 2 ranks or fewer).
config "1 rank x 2 threads" 2 "--bind-to none -np 1"
config "1 rank x 1 thread" 1 "--bind-to core -np 1"
config "2 ranks x 1 thread" 1 "--bind-to core -np 2"
config "2 ranks x 1 thread, no overlap" 1 "--bind-to core -np 2" --no-overlap
config "4 ranks x 1 thread (oversubscribed)" 1 "--oversubscribe --bind-to none -np 4"
