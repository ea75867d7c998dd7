#!/usr/bin/env bash
# Cells per second and parallel efficiency of `trainbench-cli run --mpi` at 1, 2 and 3 ranks on
# this machine (issues 15 and 30). Rank 0 hands out cells and owns the database; ranks 1 … N−1
# train, one cell at a time with --threads-per-rank 1. "1 rank" is the same experiment in one process.
#   bench/mpi_scaling.sh [BUILD_DIR] [REPEATS]
#   MPIRUN_ARGS="--mca pml ob1" bench/mpi_scaling.sh build 5   # extra mpirun options for every MPI run
# Two workloads: a learning curve of 24 equal cells of about 0.3 s (Adam on Friedman #1, 2000
# rows, 100 epochs), and a noise sweep of 3000 cells of about 1 ms (Adam, 10 epochs, on 500 rows
# of Friedman #1 at 3 noise levels: the hand-out and message overhead per cell, which batching
# hides). Wall time of the whole command including MPI's start-up, fastest of REPEATS (default 3);
# the configurations of a workload run in turn (1, 2, 3 ranks, 1, 2, 3 …) so that a change in the
# machine's load touches all of them. Efficiency = one-process time / (MPI time × training ranks).
# "after start-up" subtracts from each time that of an experiment of one tiny run in the same
# configuration (start-up: Open MPI's launch and MPI_Init, Qt, plugins, database; shut-down), i.e.
# it is the efficiency of the cells' hand-out and training alone.
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
cli=$(readlink -f "$build/bin/trainbench-cli")
read -r -a extra <<< "${MPIRUN_ARGS:-}"
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
cells() { case $1 in lc) echo 24 ;; ns) echo 3000 ;; empty) echo 1 ;; esac; }

once() { # command… → wall seconds of one run
  rm -f "$work"/db.sqlite*
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > "$work/out.txt" 2>&1 || { cat "$work/out.txt" >&2; exit 1; }
  t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)"
}
command_for() { # workload ranks → the command
  if [ "$2" = 1 ]; then
    echo "$cli" run "$work/$1.json" --db "$work/db.sqlite" --quiet --threads 1
  else
    echo mpirun "${extra[@]}" --oversubscribe -np "$2" "$cli" run "$work/$1.json" --mpi --db "$work/db.sqlite" --quiet --threads-per-rank 1
  fi
}
declare -A best
measure() { # workload → best[workload,ranks] for ranks 1 2 3, alternating
  for _ in $(seq "$repeats"); do
    for ranks in 1 2 3; do
      # shellcheck disable=SC2046 # the command is words without spaces (mktemp paths)
      t=$(once $(command_for "$1" "$ranks"))
      local key="$1,$ranks"
      best[$key]=$(python3 -c "a=$t; b='${best[$key]:-}'; print(a if not b or a < float(b) else b)")
    done
  done
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; mpirun options: ${MPIRUN_ARGS:-(none)}"
t_true=
for _ in $(seq "$repeats"); do
  t=$(once mpirun "${extra[@]}" --oversubscribe -np 3 /bin/true)
  t_true=$(python3 -c "a=$t; b='$t_true'; print(a if not b or a < float(b) else b)")
done
measure empty
printf 'start-up (an experiment of one tiny run): one process %.2f s, mpirun -np 2 %.2f s, -np 3 %.2f s (mpirun -np 3 /bin/true: %.2f s)\n' \
  "${best[empty,1]}" "${best[empty,2]}" "${best[empty,3]}" "$t_true"
printf '%-8s %6s %8s %8s %9s %11s %20s\n' workload ranks workers seconds cells/s efficiency 'after start-up'
for w in lc ns; do
  measure $w
  for ranks in 1 2 3; do
    python3 -c "
t=${best[$w,$ranks]}; base=${best[$w,1]}; n=$(cells $w); k=max(1, $ranks - 1)
s=${best[empty,$ranks]}; s1=${best[empty,1]}
print('%-8s %6d %8d %8.2f %9.1f %10.0f%% %19.0f%%' % ('$w', $ranks, k, t, n / t, 100 * base / t / k, 100 * (base - s1) / (t - s) / k))"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
