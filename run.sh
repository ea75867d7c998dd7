#!/usr/bin/env bash
# Installs what is missing, builds, and launches the workbench. With --headless, or when no
# display is available, runs the demo experiments instead and writes their charts (PNG) and
# runs (SQLite database), then prints where both are.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
# Only what runs: the workbench, the CLI and the plugins (./test.sh builds the rest).
tb_build trainbench-apps

headless=0
args=()
for a in "$@"; do
  case "$a" in
    --headless) headless=1 ;;
    *) args+=("$a") ;;
  esac
done
gui="$TB_BUILD_DIR/bin/trainbench"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  headless=1
fi
if [ ! -x "$gui" ]; then
  headless=1
fi

if [ "$headless" -eq 0 ]; then
  exec "$gui" "${args[@]+"${args[@]}"}"
fi

cli="$TB_BUILD_DIR/bin/trainbench-cli"
out="${TB_DEMO_DIR:-$PWD/out/demo}"
mkdir -p "$out"
db_args=()
if [ -n "${TB_DEMO_DB:-}" ]; then
  db_args=(--db "$TB_DEMO_DB")
fi
status=0
# The demo: the BPLS paper's toy noise sweeps and a Fashion-MNIST learning curve.
demos=(resources/experiments/bpls-toy-linear.json resources/experiments/bpls-toy-nonlinear.json
       resources/experiments/fashion-mnist-learning-curve.json)
for spec in "${demos[@]}"; do
  name="$(basename "$spec" .json)"
  echo "== $name" >&2
  "$cli" run "$spec" "${db_args[@]+"${db_args[@]}"}" --plot "$out/$name.png" --csv "$out/$name.csv" || status=$?
done
echo >&2
echo "Charts and CSV files: $out" >&2
"$cli" runs "${db_args[@]+"${db_args[@]}"}" | tail -n 20
exit $status
