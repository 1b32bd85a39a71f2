#!/usr/bin/env bash
# Sets up a fresh Debian 12 / Ubuntu 24.04 machine for clustersim, builds it, and runs the flagship scenario.
# As root it installs the missing packages with apt-get; otherwise it prints the exact command to run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Sweeps over MPI or Slurm (sim/sweep): Open MPI and slurm-wlm from the distribution (the tests start a one-node
# Slurm themselves). The planner (gui/): Qt6 Widgets and Charts; Qt6Charts' CMake package needs Qt6OpenGL's (libqt6opengl6-dev,
# not pulled in by qt6-charts-dev on Debian 12); qt6-qpa-plugins has the offscreen platform its tests use, and
# a font makes its screenshots readable. Python (python/): pybind11 and the interpreter's headers, with pytest and
# PyYAML for its tests.
packages=(build-essential cmake pkg-config libboost-graph-dev libeigen3-dev libsqlite3-dev libgtest-dev
          libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libopenmpi-dev openmpi-bin slurm-wlm
          qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev qt6-qpa-plugins fonts-dejavu-core
          python3-dev pybind11-dev python3-pybind11 python3-pytest python3-yaml)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -eq 0 ]; then
    echo "clustersim: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "clustersim: missing packages. Run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    echo "then run $0 again." >&2
    exit 1
  fi
fi

cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
exec ./build/sim/cli/clustersim run scenarios/gpt3-175b-1024xh100.yaml
