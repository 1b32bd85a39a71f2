#!/bin/bash
# Calibrates the GPUs of this machine end to end (docs/calibration.md, "Calibrate your GPUs"): measures them with
# clustersim-calibrate and the PyTorch benchmarks in calibrate/pytorch/, fits a measured device profile with
# clustersim-fit, and checks it on samples and training steps the fit never saw. Run from the repository's root:
#
#   calibrate/calibrate_gpus.sh OUTDIR [--base PROFILE] [--name NAME] [--only STEP,...] [--budget-s SECONDS]
#
# Steps, in this order (all by default; minutes on one H100). Each writes its own files into OUTDIR, so a
# calibration can be split over several calls (--only), and the fit can run on another machine from the same OUTDIR.
#   sweep      clustersim-calibrate: a short burst sweep (GEMMs, bf16 in TN/NN/NT; the power points), then the
#              sustained sweep (a 20 s warm-up, the GEMM + copy duty-cycle sweep for the power model, every GEMM
#              format, bandwidth-bound kernels and host copies, back to back, with NVML readings)      4.3
#   nccl       clustersim-calibrate: collectives over every visible GPU                                 <1 on one
#   attention  attention_bench.py: FlashAttention-2 forward and backward, bf16 and fp16                 0.9
#   steady     gemm_check.py: 150 random GEMMs x 4 variants, each settled at its own clock (the power
#              model's active and tensor power, and PyTorch's own GEMM kernels)                         2.5
#   heldout    gemm_check.py: another 150 with their own seed, kept out of the fit to check it          2.4
#   gpt        gpt_step.py: three GPT training steps (1.3-3.4 B parameters) to check the profile on     1.3
#   fit        clustersim-fit fit: OUTDIR/NAME.yaml (the profile), fit-report.md, holdout.csv and
#              calibration.db; then the held-out GEMMs (heldout-steady-report.md) and the GPT steps
#              (gpt-step-check.md) predicted with the new profile                                       <1
#
# --base is the datasheet profile of the same GPU that the fit starts from (taken from the GPU's name for H100 and
# H200); --name names the measured profile (default: the base's name with -measured for -datasheet). Copy
# OUTDIR/NAME.yaml into profiles/ to use it by name in scenarios. The programs are taken from
# $CLUSTERSIM_CALIBRATE / $CLUSTERSIM_FIT, else from build-cal/ or build/ (build-cal/dist/ holds a runner copied
# from another machine), else built into build-cal/ with CMake. Each step has its own time limit, and what a step
# measured is kept if a later one fails; run.log in OUTDIR has everything.
usage="usage: calibrate/calibrate_gpus.sh OUTDIR [--base PROFILE] [--name NAME] [--only STEP,...] [--budget-s SECONDS]"
all_steps=sweep,nccl,attention,steady,heldout,gpt,fit
outdir=${1:?$usage}
shift
base="" name="" only=$all_steps budget=3600
while [ $# -gt 0 ]; do
  case $1 in
    --base) base=${2:?$usage}; shift 2 ;;
    --name) name=${2:?$usage}; shift 2 ;;
    --only) only=${2:?$usage}; shift 2 ;;
    --budget-s) budget=${2:?$usage}; shift 2 ;;
    *) echo "calibrate_gpus: unknown argument $1" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
for s in ${only//,/ }; do
  case ",$all_steps," in *",$s,"*) ;; *) echo "calibrate_gpus: unknown step $s (steps: $all_steps)" >&2; exit 2 ;; esac
done
wants() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

outdir=$(mkdir -p "$outdir" && cd "$outdir" && pwd) || exit 1
set -- "$outdir" "$budget"
source "$(dirname "$0")/device_steps.sh"  # the environment, run.log, step and left; here is calibrate/
cd "$here/.." || exit 1
failed=()
run_step() { step "$@" || failed+=("$1"); }  # run_step NAME SECONDS COMMAND...: step, remembering a failure

# The first of: the variable, the build folders, PATH.
find_program() {  # find_program NAME VARIABLE_VALUE CANDIDATE...
  local name=$1 given=$2 c
  shift 2
  if [ -n "$given" ]; then echo "$given"; return; fi
  for c in "$@"; do [ -x "$c" ] && { echo "$c"; return; }; done
  command -v "$name"
}
find_calibrate() {
  find_program clustersim-calibrate "${CLUSTERSIM_CALIBRATE:-}" build-cal/dist/clustersim-calibrate \
    build-cal/calibrate/gpu/clustersim-calibrate build/calibrate/gpu/clustersim-calibrate
}
find_fit() {
  find_program clustersim-fit "${CLUSTERSIM_FIT:-}" build-cal/dist/clustersim-fit \
    build-cal/calibrate/fit/clustersim-fit build/calibrate/fit/clustersim-fit
}
build() {  # build TARGET: a Release build into build-cal (needs the README's build dependencies and, for the
           # runner, CUDA and NCCL)
  echo "calibrate_gpus: building $1 into build-cal/" | tee -a "$log"
  { cmake -S . -B build-cal -DCMAKE_BUILD_TYPE=Release && cmake --build build-cal --target "$1" -j"$(nproc)"; } \
    >>"$log" 2>&1 || echo "calibrate_gpus: building $1 failed (see $log)" | tee -a "$log"
}

if wants sweep || wants nccl; then
  calibrate=$(find_calibrate)
  if [ -z "$calibrate" ]; then build clustersim-calibrate; calibrate=$(find_calibrate); fi
  if [ -z "$calibrate" ]; then
    echo "calibrate_gpus: no clustersim-calibrate: build it (docs/calibration.md, 'Calibrate your GPUs') and set" \
      "CLUSTERSIM_CALIBRATE, or leave out the sweep and nccl steps" | tee -a "$log"
    exit 1
  fi
  # Only the runner gets CUDA's library folders: PyTorch must keep finding its own bundled cuDNN.
  runner_libs=/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  runner=(env LD_LIBRARY_PATH="$runner_libs" "$calibrate")
  { echo "calibrate_gpus: $calibrate"; "${runner[@]:0:2}" ldd "$calibrate" | grep -E "nccl|cublas|cudart|not found"; } \
    >>"$log" 2>&1
fi
if wants sweep; then
  run_step burst 90 "${runner[@]}" --quick --only gemm,power --layouts tn,nn,nt --out "$outdir/samples-burst.csv"
  run_step sustained 420 "${runner[@]}" --clocks sustained --only gemm,memory,power --layouts tn,nn,nt \
    --random-shapes 240 --budget-ms 15 --warmup-s 20 --trace "$outdir/nvml-trace-calibrate.csv" \
    --out "$outdir/samples-sustained.csv"
fi
wants nccl && run_step nccl 300 "${runner[@]}" --only nccl --out "$outdir/samples-nccl.csv"
wants attention && run_step attention 180 python3 calibrate/pytorch/attention_bench.py \
  --out "$outdir/samples-attention.csv"
wants steady && run_step steady 300 python3 calibrate/pytorch/gemm_check.py --out "$outdir/gemm-check-steady.csv" \
  --count 150 --seed 20261204 --settle-ms 250 --trace "$outdir/nvml-trace-steady.csv"
wants heldout && run_step heldout 300 python3 calibrate/pytorch/gemm_check.py --out "$outdir/heldout-steady.csv" \
  --count 150 --seed 20261206 --settle-ms 250 --warmup-s 5
wants gpt && run_step gpt 300 python3 calibrate/pytorch/gpt_step.py --out "$outdir/gpt_step.json"

if wants fit; then
  fit=$(find_fit)
  if [ -z "$fit" ]; then build clustersim-fit; fit=$(find_fit); fi
  samples=()
  for f in samples-burst.csv samples-sustained.csv samples-nccl.csv samples-attention.csv gemm-check-steady.csv; do
    [ -s "$outdir/$f" ] && samples+=(--samples "$outdir/$f")
  done
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  [ -n "$gpu" ] || gpu=$(sed -n 's/^# gpu: //p' "$outdir"/samples-*.csv 2>/dev/null | head -1)
  if [ -z "$base" ]; then
    case $gpu in
      *H100*) base=h100-sxm-datasheet ;;
      *H200*) base=h200-datasheet ;;
    esac
  fi
  [ -n "$base" ] && name=${name:-${base%-datasheet}-measured}
  if [ -z "$fit" ]; then
    echo "calibrate_gpus: no clustersim-fit here: run the fit step where it builds (it needs no GPU):" \
      "calibrate/calibrate_gpus.sh $outdir --only fit${base:+ --base $base}${name:+ --name $name}" | tee -a "$log"
  elif [ -z "$base" ]; then
    echo "calibrate_gpus: no datasheet profile known for '$gpu': give one with --base (profiles/*.yaml)" | tee -a "$log"
    exit 1
  elif [ ${#samples[@]} -eq 0 ]; then
    echo "calibrate_gpus: no samples in $outdir to fit: run the measuring steps first" | tee -a "$log"
    exit 1
  else
    if step fit 600 "$fit" fit "${samples[@]}" --base "$base" --name "$name" --db "$outdir/calibration.db" \
      --out "$outdir/$name.yaml" --report "$outdir/fit-report.md" --holdout-csv "$outdir/holdout.csv"; then
      [ -s "$outdir/heldout-steady.csv" ] && "$fit" check-samples --profile "$outdir/$name.yaml" --clock own \
        --samples "$outdir/heldout-steady.csv" >"$outdir/heldout-steady-report.md" 2>>"$log"
      [ -s "$outdir/gpt_step.json" ] && "$fit" check-steps --profile "$outdir/$name.yaml" \
        --measured "$outdir/gpt_step.json" >"$outdir/gpt-step-check.md" 2>>"$log"
      echo "calibrate_gpus: wrote $outdir/$name.yaml (fit-report.md$([ -s "$outdir/heldout-steady-report.md" ] &&
        echo ", heldout-steady-report.md")$([ -s "$outdir/gpt-step-check.md" ] && echo ", gpt-step-check.md"))" |
        tee -a "$log"
    else
      failed+=(fit)
    fi
  fi
fi
echo "run: total $(($(date +%s) - start)) s${failed[*]:+; failed: ${failed[*]}}" | tee -a "$log"
[ ${#failed[@]} -eq 0 ]
