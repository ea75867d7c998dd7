#!/usr/bin/env bash
# The performance record of issue 51, re-runnable on any machine: one command that measures every
# goal and writes one Markdown table with the machine's CPU model, so that two machines' figures can
# be set side by side. Not part of ./test.sh (speed is measured, never asserted).
#
#   bench/run_all.sh [BUILD_DIR] [OUT.md]        (defaults: build, bench-record-<host>-<date>.md)
#
# Needs a Release build (./run.sh or cmake --build) and Fashion-MNIST
# (/usr/share/datasets/fashion-mnist, Debian's dataset-fashion-mnist). About 10 minutes on 2 cores.
# Measures, each in this one sitting:
#   1. every core busy: each family at 1 and 2 threads (bench/core_use: speed-up, cores busy, same
#      results at both thread counts);
#   1b. dsgd-fashion-mnist-30s.json's first configuration, one seed: whole-run wall time (the goal
#      ≤ 35 s), training wall time and CPU time (its budget is 60 s of CPU);
#   2. the toy noise sweeps (gradient-toy-linear.json + gradient-toy-nonlinear.json, the goal
#      ≤ 10 s together) and the fast paths they took (lock_step_width, lock_step_lanes,
#      lock_step_exp);
#   3. BPLS Algorithm 2 against its own normal-equations step (bench/bpls_fashion --seeds 5, the goal
#      ≤ 3.2).
set -euo pipefail
cd "$(dirname "$0")/.."
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }  # arithmetic without bc
# One query of a run store, rows as "a|b|c" (Python's sqlite3: no sqlite3 program needed).
query() { python3 -c 'import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join("" if v is None else str(v) for v in row))' "$1" "$2"; }
build=${1:-build}
out=${2:-bench-record-$(hostname)-$(date -u +%Y%m%d-%H%M).md}
cli=$build/bin/trainbench-cli
for exe in "$cli" "$build/bin/core_use" "$build/bin/bpls_fashion"; do
    [[ -x $exe ]] || { echo "run_all.sh: $exe is not built (cmake --build $build)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
{
    echo "# Performance record ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo
    echo "CPU: $cpu; $(nproc) cores; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg);"
    echo "build: $("$cli" --version 2>/dev/null | head -1); command: bench/run_all.sh $build"
    echo
} > "$out"

echo "1. every core busy (bench/core_use) …" >&2
"$build/bin/core_use" > "$work/core_use.txt"
{
    echo "## 1. Every core busy: each family at 1 and 2 threads (Fashion-MNIST, medians of 3 alternating runs)"
    echo
    sed -n '/^| family/,$p' "$work/core_use.txt"
    echo
} >> "$out"

echo "1b. DSGD preconditioned, 60 CPU-seconds …" >&2
python3 - "$work/dsgd.json" <<'EOF'
import json, sys
d = json.load(open("resources/experiments/dsgd-fashion-mnist-30s.json"))
d["repeats"] = 1
d["algorithms"] = d["algorithms"][:1]
json.dump(d, open(sys.argv[1], "w"))
EOF
start=$(now)
"$cli" run "$work/dsgd.json" --db "$work/dsgd.sqlite" --quiet > /dev/null
wall=$(calc "$(now) - $start")
read -r train cpu acc < <(query "$work/dsgd.sqlite" "select json_extract(info_json, '\$.final.train_seconds'), json_extract(info_json, '\$.time_budget.used'), json_extract(info_json, '\$.final.test_accuracy') from runs" | tr '|' ' ')
{
    echo "## 1b. DSGD preconditioned, mixed precision, batch 7500, 60 s of CPU (dsgd-fashion-mnist-30s.json, seed 1)"
    echo
    echo "| whole run, wall s (goal ≤ 35) | training, wall s | training, CPU s | cores busy while training | checkpoint evaluations and loading, wall s | test accuracy |"
    echo "|---|---|---|---|---|---|"
    printf '| %.1f | %.1f | %.1f | %.2f | %.1f | %.2f %% |\n\n' "$wall" "$train" "$cpu" "$(calc "$cpu / $train")" \
        "$(calc "$wall - $train")" "$(calc "100 * $acc")"
} >> "$out"

echo "2. toy noise sweeps …" >&2
{
    echo "## 2. Toy noise sweeps (goal ≤ 10 s together) and the paths they took"
    echo
    echo "| file | wall s | lock_step_width / lock_step_lanes / lock_step_exp of the gradient rows |"
    echo "|---|---|---|"
} >> "$out"
total=0
for f in gradient-toy-linear gradient-toy-nonlinear; do
    start=$(now)
    "$cli" run "resources/experiments/$f.json" --db "$work/$f.sqlite" --quiet > /dev/null
    t=$(calc "$(now) - $start")
    total=$(calc "$total + $t")
    paths=$(query "$work/$f.sqlite" "select distinct json_extract(info_json, '\$.lock_step_width') || ' / ' || json_extract(info_json, '\$.lock_step_lanes') || ' / ' || json_extract(info_json, '\$.lock_step_exp') from runs where algorithm_id like 'gradient.%'" | paste -sd, -)
    printf '| %s | %.2f | %s |\n' "$f.json" "$t" "$paths" >> "$out"
done
printf '| together | %.2f | |\n\n' "$total" >> "$out"

echo "3. BPLS against its step (bench/bpls_fashion --seeds 5) …" >&2
"$build/bin/bpls_fashion" --seeds 5 --no-gram > "$work/bpls.txt"
{
    echo "## 3. BPLS Algorithm 2 over its normal-equations step (goal ≤ 3.2)"
    echo
    grep '^summary ratio' "$work/bpls.txt" | sed 's/^/    /'
    echo
} >> "$out"
cat "$out"
echo "run_all.sh: written $out" >&2
