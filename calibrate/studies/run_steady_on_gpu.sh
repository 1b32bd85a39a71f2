#!/bin/bash
# The second device call of the H100's calibration (docs/calibration.md, "H100: the borrowed profile checked on a real
# H100"; H100 run 2), after run_sustained_on_gpu.sh: what the power model and the attention fit need beyond the
# calibrator's sweep.
#   1. FlashAttention-2 forward and backward at burst clocks (the attention surface) and at sustained clocks;
#   2. random GEMMs each replayed alone until its clock settles (steady state under the power limit), the
#      samples that place a kernel's own clock in the power-cap fit;
#   3. a held-out steady set with its own seed, measured now and not looked at until the fit is fixed.
# Each part has its own time limit so the whole fits one device call; what ran is kept if a later part fails.
#
#   calibrate/studies/run_steady_on_gpu.sh OUTDIR [TOTAL_SECONDS]
#
# calibrate/calibrate_gpus.sh now calibrates a GPU in one command; this script is kept as the record of that run.
source "$(dirname "$0")/../device_steps.sh"
cd "$here/pytorch" || exit 1
step attention-burst 70 python3 attention_bench.py --out "$outdir/samples-attention.csv"
step attention-sustained 100 python3 attention_bench.py --sustained --out "$outdir/samples-attention-sustained.csv"
step steady 170 python3 gemm_check.py --out "$outdir/gemm-check-steady.csv" --count 150 --seed 20261204 \
  --settle-ms 250 --trace "$outdir/nvml-trace-steady.csv"
step heldout-steady 200 python3 gemm_check.py --out "$outdir/heldout-steady.csv" --count 150 --seed 20261206 \
  --settle-ms 250 --warmup-s 5
echo "run: total $(($(date +%s) - start)) s" | tee -a "$log"
