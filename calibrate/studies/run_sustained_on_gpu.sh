#!/bin/bash
# The sustained-clock calibration as run on the GPU machine (docs/calibration.md, "Sustained clocks"; H200 run 4 and
# H100 run 1):
#   1. a short burst sweep (--quick GEMM grid, bf16 in TN/NN/NT, every format in TN) and the burst power points;
#   2. the sustained calibration: time-based warm-up, the GEMM+copy duty-cycle sweep, every GEMM format (bf16
#      in all three layouts, 240 random shapes plus the transformer grid) and the bandwidth-bound kernels, all
#      back to back with NVML clock, power and temperature per sample;
#   3. the PyTorch check set (calibrate/pytorch/gemm_check.py: its own random shapes, bf16 TN/NN/NT and fp8);
#   4. the GPT training steps with their clock and power.
# Each part has its own time limit so the whole fits one device call; what ran is kept if a later part fails.
#
#   calibrate/studies/run_sustained_on_gpu.sh OUTDIR [TOTAL_SECONDS]     (from the repository's root)
#
# calibrate/calibrate_gpus.sh now calibrates a GPU in one command; this script is kept as the record of those runs.
set -u -o pipefail
outdir=${1:?usage: run_sustained_on_gpu.sh OUTDIR [TOTAL_SECONDS]}
total=${2:-570}
mkdir -p "$outdir"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
bin=build-cal/dist/clustersim-calibrate
runner_libs=/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log="$outdir/run.log"
start=$(date +%s)
left() { echo $((total - ($(date +%s) - start))); }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,\
temperature.gpu --format=csv
  LD_LIBRARY_PATH=$runner_libs ldd "$bin" | grep -E "nccl|cublas|cudart|not found"
} >"$log" 2>&1
t=$(date +%s)
LD_LIBRARY_PATH=$runner_libs timeout 60 "$bin" --quick --only gemm,power --layouts tn,nn,nt \
  --out "$outdir/samples-burst.csv" 2>&1 | tee -a "$log" | grep -vE "^\[.*gemm [0-9]+/" 
echo "run: burst rc=$? $(($(date +%s) - t)) s" | tee -a "$log"
t=$(date +%s)
LD_LIBRARY_PATH=$runner_libs timeout 330 "$bin" --clocks sustained --only gemm,memory,power --layouts tn,nn,nt \
  --random-shapes 240 --budget-ms 15 --warmup-s 20 --trace "$outdir/nvml-trace-calibrate.csv" \
  --out "$outdir/samples-sustained.csv" 2>&1 | tee -a "$log" | grep -E "warm-up|power-mix|written|error|timed out" 
echo "run: sustained rc=$? $(($(date +%s) - t)) s" | tee -a "$log"
t=$(date +%s)
timeout $(( $(left) > 150 ? 110 : $(left) - 40 )) python3 calibrate/pytorch/gemm_check.py \
  --out "$outdir/gemm-check.csv" --count 150 2>&1 | tee -a "$log" | grep -vE "^\[.*gemm_check [0-9]"
echo "run: gemm_check rc=$? $(($(date +%s) - t)) s" | tee -a "$log"
t=$(date +%s)
if [ "$(left)" -gt 100 ]; then
  timeout $(( $(left) - 5 )) python3 calibrate/pytorch/gpt_step.py --out "$outdir/gpt_step.json" 2>&1 | tee -a "$log"
elif [ "$(left)" -gt 45 ]; then
  timeout $(( $(left) - 5 )) python3 calibrate/pytorch/gpt_step.py --quick --out "$outdir/gpt_step.json" 2>&1 | tee -a "$log"
fi
echo "run: gpt_step rc=$? $(($(date +%s) - t)) s; total $(($(date +%s) - start)) s" | tee -a "$log"
