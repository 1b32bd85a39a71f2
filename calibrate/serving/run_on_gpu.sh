#!/usr/bin/env bash
# The serving calibration on one GPU: skinny GEMMs, decode and prefill attention, the small operators and whole
# prefill/decode steps, each script under its own time cap (a script also stops its sweep itself a little
# earlier and keeps what it measured). Everything lands in OUTDIR: five CSV files, env.txt (versions, nvidia-smi
# clocks and power before and after), log.txt. Never changes clocks or GPU settings.
#   calibrate/serving/run_on_gpu.sh OUTDIR
set -uo pipefail
out=${1:?usage: run_on_gpu.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

{
  echo "== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi
  echo "== before: nvidia-smi -q -d CLOCK,POWER"
  nvidia-smi -q -d CLOCK,POWER
  echo "== python"
  python3 - <<'PY'
import platform, torch
p = torch.cuda.get_device_properties(0)
print("python", platform.python_version(), "torch", torch.__version__, "cuda", torch.version.cuda,
      "cudnn", torch.backends.cudnn.version())
print("device", p.name, "sm", p.multi_processor_count, "memory", p.total_memory,
      "l2", getattr(p, "L2_cache_size", "?"))
try:
    import flash_attn
    print("flash_attn", flash_attn.__version__)
except Exception as e:
    print("flash_attn not importable:", type(e).__name__, e)
try:
    import pynvml
    pynvml.nvmlInit()
    print("nvml driver", pynvml.nvmlSystemGetDriverVersion())
except Exception as e:
    print("pynvml:", e)
PY
  python3 -m pip list 2>/dev/null | grep -iE "^(torch|triton|nvidia-ml-py|nvidia-cublas|nvidia-cudnn|flash)" 
  lscpu | grep -E "Model name|^CPU\(s\)"
} > "$out/env.txt" 2>&1

run() {
  local name=$1 cap=$2
  shift 2
  echo "== $name (cap ${cap} s) $(date -u +%T)"
  timeout "$cap" python3 "$here/$name" "$@"
  echo "== $name exit $? $(date -u +%T)"
}

{
  run serve_steps.py 110 --out "$out/steps.csv" --max-s 95
  run skinny_gemm.py 60 --out "$out/gemm.csv" --max-s 48
  run decode_attention.py 45 --out "$out/decode_attention.csv" --max-s 36
  run serve_ops.py 40 --out "$out/ops.csv" --max-s 30
  run prefill_attention.py 40 --out "$out/prefill_attention.csv" --max-s 30
} 2>&1 | tee "$out/log.txt"

{
  echo "== after: nvidia-smi -q -d CLOCK,POWER $(date -u +%T)"
  nvidia-smi -q -d CLOCK,POWER
} >> "$out/env.txt" 2>&1
python3 "$here/summarize.py" "$out" 2>&1 | tee -a "$out/log.txt"
