#!/usr/bin/env bash
# Co-location on one GPU: a training job and a decode job, each alone, then together under time-slicing (two
# processes, default compute mode: no isolation) and under MPS (a user-space MPS control daemon with its own pipe
# directory, default and with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE limits). MIG is not measured: it needs the GPU's
# MIG mode changed, which this kit never does. Never changes clocks or GPU settings.
# Every phase starts its jobs together and times them over the same window (colocate_job.py --start-at).
#   calibrate/colocation/run_on_gpu.sh OUTDIR
set -uo pipefail
out=${1:?usage: run_on_gpu.sh OUTDIR}
jobs=${JOBS:-/tmp/cs-colocation-jobs}
rm -rf "$jobs"; mkdir -p "$out" "$jobs"
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONUNBUFFERED=1
LEAD=${LEAD:-16}     # seconds from launch to the window: imports, model build, warm-up, the alone probe
WINDOW=${WINDOW:-8}

{ echo "== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; nvidia-smi; nvidia-smi -q -d CLOCK,POWER,COMPUTE; } > "$out/env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu,memory.used --format=csv -lms 500 \
  > "$out/nvml.csv" 2>&1 &
smi=$!

job() {  # job PHASE NAME [ENV=V ...] -- ARGS...
  local phase=$1 name=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" python3 "$here/colocate_job.py" --name "$phase/$name" --start-at "$start" --window "$WINDOW" \
    --out "$jobs/${phase}__${name}.json" "$@" &
}

phase() {  # phase NAME: start-at for the jobs launched after it
  start=$(python3 -c "import time; print(time.time() + $LEAD)")
  echo "== phase $1 $(date -u +%T)"
}

TRAIN=(--role train --batch 2 --seq 2048)
D16=(--role decode --batch 16 --ctx 1024)
D16E=(--role decode --batch 16 --ctx 1024 --eager)
D128=(--role decode --batch 128 --ctx 1024)

{
  phase alone-train;    job alone-train train -- "${TRAIN[@]}"; wait
  phase alone-d16;      job alone-d16 decode -- "${D16[@]}"; wait
  phase alone-d16e;     job alone-d16e decode -- "${D16E[@]}"; wait
  phase alone-d128;     job alone-d128 decode -- "${D128[@]}"; wait
  phase ts-train-d16;   job ts-train-d16 train -- "${TRAIN[@]}"; job ts-train-d16 decode -- "${D16[@]}"; wait
  phase ts-train-d16e;  job ts-train-d16e train -- "${TRAIN[@]}"; job ts-train-d16e decode -- "${D16E[@]}"; wait
  phase ts-train-d128;  job ts-train-d128 train -- "${TRAIN[@]}"; job ts-train-d128 decode -- "${D128[@]}"; wait
  phase ts-d16-d16;     job ts-d16-d16 decode -- "${D16[@]}"; job ts-d16-d16 decode2 -- "${D16[@]}"; wait
  phase ts-train-train; job ts-train-train train -- "${TRAIN[@]}"; job ts-train-train train2 -- "${TRAIN[@]}"; wait

  export CUDA_MPS_PIPE_DIRECTORY=/tmp/cs-mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/cs-mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    echo "== MPS daemon started"
    phase mps-alone-train;  job mps-alone-train train -- "${TRAIN[@]}"; wait
    phase mps-train-d16;    job mps-train-d16 train -- "${TRAIN[@]}"; job mps-train-d16 decode -- "${D16[@]}"; wait
    phase mps70-train-d16;  job mps70-train-d16 train CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=70 -- "${TRAIN[@]}"
                            job mps70-train-d16 decode CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30 -- "${D16[@]}"; wait
    phase mps-train-d16e;   job mps-train-d16e train -- "${TRAIN[@]}"; job mps-train-d16e decode -- "${D16E[@]}"; wait
    phase mps-train-d128;   job mps-train-d128 train -- "${TRAIN[@]}"; job mps-train-d128 decode -- "${D128[@]}"; wait
    phase mps30-alone-d16;  job mps30-alone-d16 decode CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30 -- "${D16[@]}"; wait
    echo quit | nvidia-cuda-mps-control
    echo "== MPS daemon stopped"; cat "$CUDA_MPS_LOG_DIRECTORY"/control.log 2>/dev/null | tail -5
  else
    echo "== MPS daemon did not start: MPS phases not measured"
  fi
} 2>&1 | tee "$out/log.txt"
kill $smi 2>/dev/null
python3 - "$out" "$jobs" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
rows = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(sys.argv[2], "*.json")))]
json.dump(rows, open(os.path.join(out, "colocation.json"), "w"), indent=1)
print(f"{len(rows)} job results -> colocation.json")
PY
