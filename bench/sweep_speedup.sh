#!/bin/bash
# Sweep throughput on 1 and 2 worker threads (docs/performance.md): the 100-point sweep of
# scenarios/sweeps/sweep-100.yaml into fresh databases. Usage: bench/sweep_speedup.sh [BUILD_DIR] [SWEEP]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/sim/cli/clustersim
sweep=${2:-scenarios/sweeps/sweep-100.yaml}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
declare -A wall
for j in 1 2; do
  start=$(date +%s.%N)
  "$bin" sweep "$sweep" --db "$dir/j$j.sqlite" -j "$j" > /dev/null 2>&1
  end=$(date +%s.%N)
  wall[$j]=$(echo "$end - $start" | bc)
  echo "-j $j: ${wall[$j]} s wall"
done
echo "speed-up -j 2 over -j 1: $(echo "scale=2; ${wall[1]} / ${wall[2]}" | bc)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
