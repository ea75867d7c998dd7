#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
# Everything: what ./run.sh built is up to date already; tests and benchmarks join it.
tb_build
# Two jobs: the machine has two cores; the tests that measure Stop latency tolerate a busy neighbour.
ctest --test-dir "$TB_BUILD_DIR" --output-on-failure -j "${TB_TEST_JOBS:-2}" "$@"
