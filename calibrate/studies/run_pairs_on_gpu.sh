#!/bin/bash
# The third device call of the H100's calibration (docs/calibration.md, "H100: ... refit"; H100 run 4, as the H200's
# run 8), after run_sustained_on_gpu.sh and run_steady_on_gpu.sh: clock pairs, the same random GEMMs timed twice,
#   1. 10 ms after filler GEMMs (the board busy, its clock where the previous work left it), and
#   2. each replayed alone until its clock settles (250 ms, after a 5 s warm-up),
# so the power-cap fit sees one kernel at two clocks (what pins the duty-cycle beta; the H200's run 8).
#
#   calibrate/studies/run_pairs_on_gpu.sh OUTDIR [TOTAL_SECONDS]
#
# calibrate/calibrate_gpus.sh now calibrates a GPU in one command; this script is kept as the record of those runs.
source "$(dirname "$0")/../device_steps.sh"
cd "$here/pytorch" || exit 1
step pairs-after-filler 200 python3 gemm_check.py --out "$outdir/pairs-after-filler.csv" --count 150 --seed 20261205 \
  --settle-ms 10
step pairs-steady 320 python3 gemm_check.py --out "$outdir/pairs-steady.csv" --count 150 --seed 20261205 \
  --settle-ms 250 --warmup-s 5 --trace "$outdir/nvml-trace-pairs.csv"
echo "run: total $(($(date +%s) - start)) s" | tee -a "$log"
