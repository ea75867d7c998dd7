#!/bin/bash
# Issue 45: the host's own work per trial of a tuned comparison. A 200-trial tuning of Adam on
# moons (600 rows, hidden [8], 30 epochs, one final seed) is run REPEATS times by trainbench-cli with
# its store, each time beside the same file with 1 trial (the process's fixed cost: loading the
# plugins and Qt, opening the store, loading the data; run alternately, in the same sitting). For
# each, the process's CPU time (user + sys, every thread: the trials' training, the host's
# evaluations, drawing, choosing, the store's writer) is set against the sum of the runs' training
# CPU time (each run's fact final.train_cpu_seconds):
#   whole   = CPU(200 trials) / training(200 trials)                       — the process as a user runs it
#   tuning  = (CPU(200) − CPU(1)) / (training(200) − training(1))          — the tuning's own work per trial
# The goal (issue 45): the tuning's ratio at most 1.2. Usage: bench/tuning_overhead.sh BUILD_DIR [REPEATS]
set -euo pipefail
build=${1:?usage: tuning_overhead.sh BUILD_DIR [REPEATS]}
repeats=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spec() {
  cat <<JSON
{"name": "tuning overhead", "kind": "tuned-comparison", "seed": 1, "threads": 1,
 "dataset": {"source": "moons", "samples": 600, "noise": 0.2, "validation_fraction": 0.25},
 "algorithms": [{"id": "gradient.adam", "params": {"epochs": 30, "hidden": [8], "activation": "tanh"},
                 "search": {"lr": {"log_uniform": [0.0001, 0.3]}, "batch_size": {"choice": [16, 32, 64]}}}],
 "tuning": {"trials": $1, "seed": 1}, "final": {"seeds": 1, "defaults": false}}
JSON
}
spec 200 > "$work/t200.json"
spec 1 > "$work/t1.json"
# Prints "process-CPU training-CPU" of one run of $1.
measure() {
  rm -f "$work/t.sqlite"*
  /usr/bin/time -f "%U %S" -o "$work/time" "$build/bin/trainbench-cli" run "$1" --db "$work/t.sqlite" --quiet > /dev/null 2> "$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  python3 - "$work/t.sqlite" "$work/time" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
training = sum(json.loads(info).get("final", {}).get("train_cpu_seconds", 0.0) for (info,) in db.execute("select info_json from runs"))
user, sys_ = map(float, open(sys.argv[2]).read().split()[-2:])
print(user + sys_, training)
PY
}
for r in $(seq 1 "$repeats"); do
  read -r c1 t1 < <(measure "$work/t1.json")
  read -r c200 t200 < <(measure "$work/t200.json")
  python3 -c "
c1, t1, c, t = $c1, $t1, $c200, $t200
print(f'run $r: 200 trials: process CPU {c:.2f} s, training CPU {t:.2f} s, whole {c / t:.3f}; '
      f'1 trial: process CPU {c1:.2f} s; the tuning {(c - c1) / (t - t1):.3f}')"
done
