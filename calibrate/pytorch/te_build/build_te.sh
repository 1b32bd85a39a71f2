#!/usr/bin/env bash
# Build Transformer Engine (core library for sm_90 and its PyTorch extension) on the device machine from the source
# tree carried as .te-carry/te-src.tar.xz (TE v2.9 with its cudnn-frontend and cutlass headers, `git archive` of the
# releases, and mathdx-shim/; compressed to fit the device tool's carry limit), into build-te/ (ignored, kept
# between calls on a warm machine: a second call resumes the build).
# Result: build-te/pkg/ on PYTHONPATH imports transformer_engine. Usage: build_te.sh [SECONDS_FOR_THE_CORE]
set -euo pipefail
root=$(pwd)
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
py=/opt/torch/.venv/bin/python3
budget=${1:-520}
mkdir -p build-te/pkg
src=$root/build-te/src
if [ ! -d "$src/transformer_engine" ]; then mkdir -p "$src" && tar -C "$src" -xJf .te-carry/te-src.tar.xz; fi
if [ ! -f build-te/core/build.ninja ]; then
  cmake -S "$src/transformer_engine/common" -B build-te/core -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DPython_EXECUTABLE=$py -DMATHDX_INCLUDE_DIR=$src/mathdx-shim > build-te/cmake.log 2>&1 \
    || { tail -30 build-te/cmake.log; exit 1; }
fi
start=$(date +%s)
timeout "$budget" ninja -C build-te/core -j"$(nproc)" > build-te/ninja.log 2>&1 || true
tail -3 build-te/ninja.log
if [ ! -f build-te/core/libtransformer_engine.so ]; then
  echo "core library not finished after $(( $(date +%s) - start )) s: call again to resume"; exit 3
fi
cp -f build-te/core/libtransformer_engine.so build-te/pkg/
ln -sfn "$src/transformer_engine" build-te/pkg/transformer_engine
mkdir -p build-te/pkg/transformer_engine-2.9.0.dist-info
printf 'Metadata-Version: 2.1\nName: transformer_engine\nVersion: 2.9.0\n' > build-te/pkg/transformer_engine-2.9.0.dist-info/METADATA
printf 'transformer_engine/__init__.py,,\n' > build-te/pkg/transformer_engine-2.9.0.dist-info/RECORD
if ! ls build-te/pkg/transformer_engine_torch*.so > /dev/null 2>&1; then
  site=$($py -c "import sysconfig;print(sysconfig.get_paths()['purelib'])")
  MAX_JOBS=$(nproc) $py calibrate/pytorch/te_build/build_torch_ext.py --te "$src" --out build-te/pkg \
    --temp build-te/torch-ext --cuda-include /usr/local/cuda/include --cuda-include "$site/nvidia/cudnn/include" \
    > build-te/torch-ext.log 2>&1 || { grep -E "error|Error" build-te/torch-ext.log | head -30; exit 1; }
fi
ls -la build-te/pkg
