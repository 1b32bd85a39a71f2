#!/usr/bin/env bash
# Speed benchmark of the step replay (docs/performance.md): wall time and peak memory of `clustersim run` on
# the flagship scenario and the 16,384-GPU Llama 3.1 405B scenario, on one core (taskset), best of 3.
# Usage: scripts/bench_replay.sh [path/to/clustersim]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/sim/cli/clustersim}"
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)
for s in scenarios/gpt3-175b-1024xh100.yaml scenarios/llama3.1-405b-16384xh100.yaml; do
  best=""
  for _ in 1 2 3; do
    line=$( { /usr/bin/time -f "%e %M" "${pin[@]}" "$bin" run "$s" --json /tmp/cs_bench.json >/dev/null; } 2>&1 | tail -1)
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then best="$line"; fi
  done
  events=$(python3 -c "import json;print(json.load(open('/tmp/cs_bench.json'))['simulation']['events'])" 2>/dev/null || echo "?")
  network=$(python3 -c "import json;print(json.load(open('/tmp/cs_bench.json'))['network']['model'])" 2>/dev/null || echo "?")
  printf '%-45s wall %6s s   peak RSS %8s KiB   events %s   network: %s\n' "$s" "${best%% *}" "${best##* }" "$events" "$network"
done
