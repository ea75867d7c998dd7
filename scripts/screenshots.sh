#!/usr/bin/env bash
# Retakes the workbench screenshots in docs/ under Xvfb, with a fresh settings folder and run
# database (so nothing of the user's shows). Needs xvfb (apt-get install xvfb) and a built tree.
#   scripts/screenshots.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
gui="$build/bin/trainbench"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
shot() { xvfb-run -a -s '-screen 0 1600x1000x24' "$gui" "$@"; }
# A finished comparison first, so the run browser of the later shots lists it.
shot resources/experiments/fashion-mnist-learning-curve.json --run --screenshot docs/gui-comparison.png --when-finished
# A parameter sweep finished: Adam's learning rate over five seeds in the Comparison tab.
shot resources/experiments/adam-lr-sweep.json --run --screenshot docs/gui-sweep.png --when-finished
# The BPLS paper's toy sweep with the six gradient optimizers, while it runs.
shot resources/experiments/gradient-toy-linear.json --run --screenshot docs/gui-running.png --after 8
# The teaching view in presentation mode: BPLS and Adam side by side on two moons, mid-run.
shot resources/experiments/teaching-moons.json --teaching --presentation --screenshot docs/gui-teaching.png --after 5
