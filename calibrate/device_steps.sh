# Shared by the scripts that run GPU measurements in steps (calibrate_gpus.sh; studies/run_steady_on_gpu.sh and
# studies/run_pairs_on_gpu.sh), sourced with their arguments OUTDIR [TOTAL_SECONDS]: the output folder and its
# run.log (the board's state first; appended to, so calls into one folder keep each other's lines), the environment
# every call keeps, a time budget for the whole call, and a step runner that gives each part min(its own limit, what
# is left - 10 s), logs how it ended and returns its status. Sets outdir, total, log, here (calibrate/, this file's
# folder) and start.
set -u -o pipefail
outdir=${1:?usage: $(basename "$0") OUTDIR [TOTAL_SECONDS]}
total=${2:-570}
mkdir -p "$outdir"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
log="$outdir/run.log"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
start=$(date +%s)
{
  echo "== $(basename "$0") $*"
  date -u
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,\
temperature.gpu --format=csv
} >>"$log" 2>&1
left() { echo $((total - ($(date +%s) - start))); }
step() {  # step NAME SECONDS COMMAND...: runs COMMAND under min(SECONDS, time left - 10); progress lines go to the
          # log only
  local name=$1 limit=$2 t rc
  shift 2
  local budget=$(( $(left) - 10 < limit ? $(left) - 10 : limit ))
  if [ "$budget" -lt 20 ]; then echo "run: $name skipped (no time left)" | tee -a "$log"; return 1; fi
  t=$(date +%s)
  timeout "$budget" "$@" 2>&1 | tee -a "$log" | { grep -vE "^\[ *[0-9.]+ s\] " || true; }
  rc=${PIPESTATUS[0]}
  echo "run: $name rc=$rc $(($(date +%s) - t)) s" | tee -a "$log"
  return "$rc"
}
