#!/usr/bin/env bash
# Retakes the workbench screenshots in docs/ under Xvfb, with a fresh settings folder and run
# database (so nothing of the user's shows). Needs xvfb (apt-get install xvfb) and a built tree.
#   scripts/screenshots.sh [build-dir] [sizes]
# With "sizes" only the shots at a laptop's and a desktop's screen size are retaken.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
gui="$build/bin/trainbench"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
only="${2:-}"
shotAt() { local size="$1"; shift; xvfb-run -a -s "-screen 0 ${size}x24" "$gui" "$@"; }
shot() { shotAt 1600x1000 "$@"; }
if [ "$only" != sizes ]; then
  # A finished comparison first, so the run browser of the later shots lists it.
  shot resources/experiments/fashion-mnist-learning-curve.json --run --screenshot docs/gui-comparison.png --when-finished
  # A parameter sweep finished: Adam's learning rate over five seeds in the Comparison tab.
  shot resources/experiments/adam-lr-sweep.json --run --screenshot docs/gui-sweep.png --when-finished
  # A tuned comparison finished: the expected best validation accuracy of n trials (issue 45).
  shot resources/experiments/tuned-moons.json --run --screenshot docs/gui-tuned.png --when-finished
  # The same with successive halving: the choice among the trials that reached the whole budget.
  shot resources/experiments/tuned-moons-halving.json --run --screenshot docs/gui-tuned-halving.png --when-finished
  # The BPLS paper's toy sweep with the six gradient optimizers, while it runs.
  shot resources/experiments/gradient-toy-linear.json --run --screenshot docs/gui-running.png --after 8
  # The teaching view in presentation mode: BPLS and Adam side by side on two moons, mid-run.
  shot resources/experiments/teaching-moons.json --teaching --presentation --screenshot docs/gui-teaching.png --after 5
fi
# The main window, the Comparison tab and the teaching view's presentation mode on a 1366×768
# laptop screen (the compact layout) and a 1920×1080 one; at 1366×768 also the Teaching tab with
# every dock open. The settings folder is shared, so the 1920 shots also show that a layout saved
# on the small screen is not restored on the large one.
for size in 1366x768 1920x1080; do
  shotAt "$size" resources/experiments/teaching-moons.json --run --screenshot "docs/gui-main-$size.png" --when-finished
  shotAt "$size" resources/experiments/teaching-moons.json --run --tab comparison --screenshot "docs/gui-comparison-$size.png" --when-finished
  shotAt "$size" resources/experiments/teaching-moons.json --teaching --presentation --screenshot "docs/gui-teaching-$size.png" --after 6
done
shotAt 1366x768 resources/experiments/teaching-moons.json --teaching --screenshot docs/gui-teaching-tab-1366x768.png --after 6
