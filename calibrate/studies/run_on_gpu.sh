#!/bin/bash
# The whole single-GPU calibration at burst clocks as run on the GPU machine (docs/calibration.md, "Exact commands";
# the H200's runs 1 and 2): the C++ runner (GEMMs, bandwidth-bound kernels, host copies, NCCL, power), the attention
# benchmark through PyTorch's fused SDPA kernels, and real GPT training steps for validation. Writes everything into
# OUTDIR.
#
#   calibrate/studies/run_on_gpu.sh OUTDIR [--quick]     (from the repository's root)
#
# calibrate/calibrate_gpus.sh now calibrates a GPU in one command, at the clocks training sees; this script is kept
# as the record of those runs.
#
# Expects the runner built on the build machine at build-cal/dist/clustersim-calibrate (see the docs).
set -u -o pipefail
outdir=${1:?usage: run_on_gpu.sh OUTDIR [--quick]}
quick=${2:-}
mkdir -p "$outdir"
# NVLink multicast stays off on shared machines, always.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
bin=build-cal/dist/clustersim-calibrate
# Only the runner gets CUDA's library folder: PyTorch must keep finding its own bundled cuDNN.
runner_libs=/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log="$outdir/calibrate.log"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit \
    --format=csv
  LD_LIBRARY_PATH=$runner_libs ldd "$bin" | grep -E "nccl|cublas|cudart|not found"
} >"$log" 2>&1
t0=$(date +%s)
LD_LIBRARY_PATH=$runner_libs "$bin" $quick --out "$outdir/samples-gpu.csv" 2>&1 | tee -a "$log"
rc_cal=$?
t1=$(date +%s)
python3 calibrate/pytorch/attention_bench.py $quick --out "$outdir/samples-attention.csv" 2>&1 | tee -a "$log"
rc_att=$?
t2=$(date +%s)
python3 calibrate/pytorch/gpt_step.py $quick --out "$outdir/gpt_step.json" 2>&1 | tee -a "$log"
rc_gpt=$?
t3=$(date +%s)
echo "run_on_gpu: calibrate rc=$rc_cal $((t1 - t0)) s, attention rc=$rc_att $((t2 - t1)) s," \
  "gpt steps rc=$rc_gpt $((t3 - t2)) s" | tee -a "$log"
