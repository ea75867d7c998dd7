#!/usr/bin/env bash
# Cells per second and parallel efficiency of `trainbench-cli run --mpi` at 1, 2 and 3 ranks on
# this machine (issue 15). Rank 0 hands out cells and owns the database; ranks 1 … N−1 train, one
# cell at a time with --threads-per-rank 1. "1 rank" is the same experiment in one process.
#   bench/mpi_scaling.sh [BUILD_DIR] [REPEATS]
# Two workloads: a learning curve of 24 equal cells of about 0.3 s (Adam on Friedman #1, 2000
# rows, 100 epochs), and a noise sweep of 3000 cells of about 1 ms (Adam, 10 epochs, on 500 rows
# of Friedman #1 at 3 noise levels: the hand-out and message overhead per cell, which batching
# hides). Wall time of the whole command including MPI's start-up (printed: an empty experiment
# on 3 ranks), fastest of REPEATS (default 3); efficiency = speed-up over 1 rank / training ranks.
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
cli=$(readlink -f "$build/bin/trainbench-cli")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 QT_QPA_PLATFORM=offscreen
cat > "$work/lc.json" <<'JSON'
{"name": "mpi-scaling-lc", "kind": "learning-curve", "repeats": 24, "seed": 1, "threads": 1,
 "dataset": {"source": "friedman1", "samples": 2000},
 "algorithms": [{"id": "gradient.adam", "params": {"epochs": 100, "hidden": [64, 64], "checkpoint_every": 100}}]}
JSON
cat > "$work/ns.json" <<'JSON'
{"name": "mpi-scaling-ns", "kind": "noise-sweep", "seed": 1, "threads": 1,
 "dataset": {"source": "friedman1", "samples": 500},
 "sweep": {"sigma": [0, 0.5, 1], "monte_carlo": 1000},
 "algorithms": [{"id": "gradient.adam", "params": {"epochs": 10, "hidden": [32]}}]}
JSON
cat > "$work/empty.json" <<'JSON'
{"name": "mpi-scaling-startup", "kind": "learning-curve", "repeats": 1, "seed": 1, "threads": 1,
 "dataset": {"source": "moons", "samples": 50}, "algorithms": [{"id": "linear.ridge"}]}
JSON
cells() { case $1 in lc) echo 24 ;; ns) echo 3000 ;; esac; }

fastest() { # command… → fastest wall seconds of $repeats runs
  local best=
  for _ in $(seq "$repeats"); do
    rm -f "$work"/db.sqlite*
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > "$work/out.txt" 2>&1 || { cat "$work/out.txt" >&2; exit 1; }
    t1=$(date +%s.%N)
    best=$(python3 -c "a=$t1-$t0; b='$best'; print(a if not b or a < float(b) else b)")
  done
  echo "$best"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo "start-up: one process $(fastest "$cli" run "$work/empty.json" --db "$work/db.sqlite" --quiet) s," \
  "mpirun -np 3 $(fastest mpirun --oversubscribe -np 3 "$cli" run "$work/empty.json" --mpi --db "$work/db.sqlite" --quiet) s"
printf '%-14s %6s %10s %10s %9s %11s\n' workload ranks workers seconds cells/s efficiency
for w in lc ns; do
  n=$(cells $w)
  base=$(fastest "$cli" run "$work/$w.json" --db "$work/db.sqlite" --quiet --threads 1)
  for ranks in 1 2 3; do
    if [ "$ranks" = 1 ]; then
      t=$base; workers=1
    else
      t=$(fastest mpirun --oversubscribe -np "$ranks" "$cli" run "$work/$w.json" --mpi --db "$work/db.sqlite" --quiet --threads-per-rank 1)
      workers=$((ranks - 1))
    fi
    python3 -c "
t=$t; base=$base; n=$n; k=$workers
print(f'%-14s %6d %10d %10.2f %9.1f %10.0f%%' % ('$w', $ranks, k, t, n / t, 100 * base / t / k))"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
