#!/bin/bash
# Issue 45: the host's own work per trial of a tuned comparison. A 200-trial tuning of Adam on
# moons (600 rows, hidden [8], 30 epochs, one final seed) is run REPEATS times by trainbench-cli with
# its store; for each, the process's CPU time (user + sys, every thread: the trials' training, the
# host's checkpoint evaluations, drawing, choosing, the store's writer) is set against the sum of the
# trials' and final runs' training CPU time (each run's fact final.train_cpu_seconds). The goal: at
# most 1.2×. Usage: bench/tuning_overhead.sh BUILD_DIR [REPEATS]
set -euo pipefail
build=${1:?usage: tuning_overhead.sh BUILD_DIR [REPEATS]}
repeats=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/tuned.json" <<'JSON'
{"name": "tuning overhead", "kind": "tuned-comparison", "seed": 1, "threads": 1,
 "dataset": {"source": "moons", "samples": 600, "noise": 0.2, "validation_fraction": 0.25},
 "algorithms": [{"id": "gradient.adam", "params": {"epochs": 30, "hidden": [8], "activation": "tanh"},
                 "search": {"lr": {"log_uniform": [0.0001, 0.3]}, "batch_size": {"choice": [16, 32, 64]}}}],
 "tuning": {"trials": 200, "seed": 1}, "final": {"seeds": 1, "defaults": false}}
JSON
for r in $(seq 1 "$repeats"); do
  rm -f "$work/t.sqlite"*
  /usr/bin/time -f "%U %S %e" -o "$work/time" "$build/bin/trainbench-cli" run "$work/tuned.json" --db "$work/t.sqlite" --quiet > /dev/null
  read -r user sys wall < "$work/time"
  training=$(python3 - "$work/t.sqlite" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
total = 0.0
for (info,) in db.execute("select info_json from runs"):
    total += json.loads(info).get("final", {}).get("train_cpu_seconds", 0.0)
print(total)
PY
)
  python3 -c "
u, s, w, t = $user, $sys, $wall, $training
print(f'run $r: process CPU {u + s:.2f} s (wall {w:.2f} s), training CPU of the 201 runs {t:.2f} s, ratio {(u + s) / t:.3f}')"
done
