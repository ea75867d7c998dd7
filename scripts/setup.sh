#!/usr/bin/env bash
# Shared by run.sh and test.sh: install missing Debian packages, configure once.
# Usage: source scripts/setup.sh; tb_build [TARGET...]   ($TB_BUILD_DIR holds the build tree)
set -euo pipefail

TB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TB_BUILD_DIR="${TB_BUILD_DIR:-$TB_ROOT/build}"

# Why each package is needed is in README.md ("Dependencies").
TB_PACKAGES=(
  g++ cmake ninja-build pkg-config git dpkg-dev file
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libqt6sql6-sqlite libgl-dev
  libeigen3-dev libtbb-dev zlib1g-dev libarchive-dev liblbfgspp-dev
  liblinear-dev libsvm-dev liblinear-tools libsvm-tools
  openmpi-bin libopenmpi-dev openssh-client
  fonts-dejavu-core
  dataset-fashion-mnist
  clang libclang-rt-14-dev
  python3-dev pybind11-dev python3-numpy python3-pandas python3-torch python3-sklearn python3-matplotlib libopenblas0-pthread
)

tb_install_packages() {
  local missing=()
  for p in "${TB_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "Installing missing packages: ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Configures the build tree when it has no build system yet (a fresh tree, or a configure that
# failed part-way); an existing tree is never reconfigured here (CMake re-runs itself when a
# CMakeLists.txt changed).
tb_configure() {
  if [ -f "$TB_BUILD_DIR/build.ninja" ] || [ -f "$TB_BUILD_DIR/Makefile" ]; then
    return 0
  fi
  local generator=()
  if command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
  fi
  cmake -S "$TB_ROOT" -B "$TB_BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >&2
}

# tb_build [TARGET...]: builds the given targets (default: everything) in the one build tree.
# run.sh builds trainbench-apps (the workbench, the CLI, the plugins); test.sh then builds the
# rest (tests, benchmarks) in the same tree.
tb_build() {
  local targets=()
  if [ $# -gt 0 ]; then
    targets=(--target "$@")
  fi
  cmake --build "$TB_BUILD_DIR" -j "$(nproc)" "${targets[@]+"${targets[@]}"}" >&2
}

tb_install_packages
tb_configure
