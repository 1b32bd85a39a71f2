#!/usr/bin/env python3
"""The Mamba-2 SSD scan as Megatron-Core runs it: mamba_ssm's Triton kernels (mamba_chunk_scan_combined, the
path MambaMixer takes in training), timed forward and forward plus backward at the shapes one GPU of the
Nemotron-H and Nemotron 3 rows sees. The data behind the simulator's SSD operators (sim/workload/layer_ops.cpp,
mamba_block: the dt cumsum, the stacked chunk GEMMs and the fp32 state passing), which run 6
(ssd_batched_gemm_study.py) priced from cuBLAS batched GEMMs because mamba_ssm was not on the device machine.

mamba_ssm is not installed there either: its Triton kernels (pure Python) and einops are put on PYTHONPATH from
the public repositories (state-spaces/mamba, arogozhnikov/einops; nothing of them is committed here), without the
package's CUDA extensions, which the scan does not use.

For each shape: GPU time of the forward and of forward plus backward (CUDA events around back-to-back calls queued
behind a sleep; each call reruns Triton's autotuned kernels, tuned on the first calls), the kernels each launches
(torch.profiler), NVML clock and power. Output: one JSON object with a list of results.
"""
import argparse
import json
import os
import sys

import torch
from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, device_event_count, gpu_time  # noqa: E402


def make(batch, seq, heads, head_dim, groups, state, chunk):
    dev, bf = "cuda", torch.bfloat16
    x = torch.randn(batch, seq, heads, head_dim, device=dev, dtype=bf, requires_grad=True)
    dt = torch.randn(batch, seq, heads, device=dev, dtype=bf, requires_grad=True)
    A = (-torch.rand(heads, device=dev, dtype=torch.float32) - 0.5).requires_grad_()
    B = torch.randn(batch, seq, groups, state, device=dev, dtype=bf, requires_grad=True)
    C = torch.randn(batch, seq, groups, state, device=dev, dtype=bf, requires_grad=True)
    D = torch.randn(heads, device=dev, dtype=torch.float32, requires_grad=True)
    dt_bias = torch.randn(heads, device=dev, dtype=torch.float32, requires_grad=True)
    grad = torch.randn(batch, seq, heads, head_dim, device=dev, dtype=bf)

    def run():
        return mamba_chunk_scan_combined(x, dt, A, B, C, chunk, D=D, z=None, dt_bias=dt_bias, dt_softplus=True)

    def fwd():
        with torch.no_grad():
            run()

    def fwd_bwd():
        run().backward(grad)

    return fwd, fwd_bwd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    torch.manual_seed(20261206)
    nvml = NvmlWindow()
    shapes = [
        # name, batch, seq, heads, head_dim, groups, state, chunk
        ("nemotron-3-nano, TP 1", 1, 8192, 64, 64, 8, 128, 128),
        ("nemotron-3-nano, TP 1, micro-batch 2", 2, 8192, 64, 64, 8, 128, 128),
        ("nemotron-h-8b, TP 1", 1, 8192, 128, 64, 8, 128, 128),
        ("nemotron-h-56b, TP 8", 1, 8192, 32, 64, 1, 256, 128),
        ("nemotron-h-56b, TP 4", 1, 8192, 64, 64, 2, 256, 128),
    ]
    results = []
    for name, b, s, h, p, g, n, l in shapes:
        fwd, fwd_bwd = make(b, s, h, p, g, n, l)
        g_f, w_f = gpu_time(fwd, args.reps, nvml)
        g_a, w_a = gpu_time(fwd_bwd, args.reps, nvml)
        r = {"shape": name, "batch": b, "seq": s, "heads": h, "head_dim": p, "groups": g, "state": n, "chunk": l,
             "gpu_forward_s": g_f, "gpu_forward_backward_s": g_a,
             "kernels_forward": device_event_count(fwd), "kernels_forward_backward": device_event_count(fwd_bwd),
             "sm_clock_mhz": w_a["sm_clock_mhz"], "power_w": w_a["power_w"], "nvml_forward": w_f, "nvml_forward_backward": w_a}
        results.append(r)
        print(json.dumps(r), file=sys.stderr)
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "power_limit_w": nvml.power_limit_w,
           "nvml": nvml.ok or nvml.why, "results": results}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
