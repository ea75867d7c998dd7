#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
# Everything: what ./run.sh built is up to date already; tests and benchmarks join it.
tb_build
# Two jobs, on two cores: no test needs the machine to itself (the Stop checks count the work
# after Stop in CPU time, tests/support/StopMeter.h).
ctest --test-dir "$TB_BUILD_DIR" --output-on-failure -j "${TB_TEST_JOBS:-2}" "$@"
