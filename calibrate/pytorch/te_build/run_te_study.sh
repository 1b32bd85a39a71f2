#!/usr/bin/env bash
# Run calibrate/pytorch/mcore_te_step_study.py with the Transformer Engine built by build_te.sh and the
# Megatron-Core source carried in .mcore (git archive core_r0.15.0 megatron/core). Arguments go to the study.
set -euo pipefail
py=/opt/torch/.venv/bin/python3
site=$($py -c "import sysconfig;print(sysconfig.get_paths()['purelib'])")
export PYTHONPATH=$(pwd)/build-te/pkg:$(pwd)/calibrate/pytorch:$(pwd)/calibrate/pytorch/te_build/shims
export LD_LIBRARY_PATH=$(pwd)/build-te/pkg:$site/nvidia/cudnn/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUDA_HOME=/usr/local/cuda NCCL_NVLS_ENABLE=0 CUDA_DEVICE_MAX_CONNECTIONS=1
$py -c "import transformer_engine.pytorch as te; import transformer_engine; print('TE', transformer_engine.__version__)"
exec $py calibrate/pytorch/mcore_te_step_study.py --mcore .mcore "$@"
