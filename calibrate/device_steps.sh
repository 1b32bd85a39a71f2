# Shared by the device-call scripts (run_steady_on_gpu.sh, run_pairs_on_gpu.sh): a time budget for the whole
# call and a step runner that gives each part min(its own limit, what is left - 10 s) and logs how it ended.
# Source it after setting: outdir, total (seconds), log (file); it sets start.
start=$(date +%s)
left() { echo $((total - ($(date +%s) - start))); }
step() {  # step NAME SECONDS COMMAND...: runs COMMAND under min(SECONDS, time left - 10)
  local name=$1 limit=$2 t
  shift 2
  local budget=$(( $(left) - 10 < limit ? $(left) - 10 : limit ))
  if [ "$budget" -lt 20 ]; then echo "run: $name skipped (no time left)" | tee -a "$log"; return; fi
  t=$(date +%s)
  timeout "$budget" "$@" 2>&1 | tee -a "$log" | grep -vE "^\[.*(gemm_check|attention) [0-9]"
  echo "run: $name rc=$? $(($(date +%s) - t)) s" | tee -a "$log"
}
gpu_header() {  # the board's state at the start of the call
  date -u
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,\
temperature.gpu --format=csv
}
