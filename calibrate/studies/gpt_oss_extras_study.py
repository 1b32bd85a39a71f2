#!/usr/bin/env python3
"""What Megatron-Core's two GPT-OSS-only code paths cost on the GPU and the host: the data behind the
simulator's "RoPE, unfused (YaRN attention scaling)" and "expert output bias (per-expert loop)" operators
(sim/workload/layer_ops.cpp; docs/validation.md, "Dense fp8 checks and GPT-OSS").

  rope   YaRN's concentration factor (1.347 for GPT-OSS) is not accepted by Transformer Engine's fused RoPE, so
         Megatron-Core rotates Q and K with separate PyTorch operators (rope_utils._apply_rotary_pos_emb_bshd):
         cos and sin of the frequencies times the factor, cast to the activations' type; t * cos plus the
         rotated half (negated second half, concatenated with the first) times sin; a concatenation with the
         (empty) pass-through part. Written here with the same operators, on GPT-OSS's Q (64 heads of 64) and K
         (8 heads of 64).
  bias   the experts' down-projection bias is added scaled by each row's routing probability (fp32) in a Python
         loop over the local experts (TEGroupedMLP._apply_bias): split the rows by expert, t + b * p per expert,
         concatenate, cast back to bf16. Written here with the same operators, at GPT-OSS's width (2,880).

For each shape: the GPU time of the forward and of forward plus backward (CUDA events around back-to-back calls
queued behind a sleep, so the host's launches never starve the GPU), the host time per call with the GPU idle,
the kernels each pass launches (torch.profiler), and NVML clock and power over the GPU timing. Output: one JSON
object with a list of results.
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, device_event_count, gpu_time, host_times_idle  # noqa: E402

MSCALE = 0.1 * math.log(32.0) + 1.0  # GPT-OSS: YaRN factor 32


def rope(t, freqs, mscale):
    cos = (torch.cos(freqs) * mscale).to(t.dtype)
    sin = (torch.sin(freqs) * mscale).to(t.dtype)
    x1, x2 = torch.chunk(t, 2, dim=-1)
    rotated = torch.cat((-x2, x1), dim=-1)
    out = t * cos + rotated * sin
    return torch.cat((out, t[..., t.shape[-1]:]), dim=-1)


def bias_loop(out, biases, rows_per_expert, probs):
    shape = out.shape
    flat = out.view(-1, shape[-1])
    parts = [t + b * p for t, b, p in zip(torch.split(flat, rows_per_expert), biases, torch.split(probs, rows_per_expert))]
    return torch.cat(parts).view(shape).to(out.dtype)


def host_time(fn, reps):
    """Seconds of host time per call with the GPU idle at the start of each call (the median)."""
    ts = sorted(host_times_idle(fn, reps, warmup=3))
    return ts[len(ts) // 2]


def study(name, shape, make, nvml, reps):
    fwd_only, fwd_bwd = make()
    g_fwd, w_fwd = gpu_time(fwd_only, reps, nvml)
    g_all, w_all = gpu_time(fwd_bwd, reps, nvml)
    return {
        "op": name, **shape,
        "gpu_forward_s": g_fwd, "gpu_forward_backward_s": g_all,
        "host_forward_s": host_time(fwd_only, reps), "host_forward_backward_s": host_time(fwd_bwd, reps),
        "kernels_forward": device_event_count(fwd_only), "kernels_forward_backward": device_event_count(fwd_bwd),
        "sm_clock_mhz": w_all.get("sm_clock_mhz", 0.0), "power_w": w_all.get("power_w", 0.0),
        "nvml_forward": w_fwd, "nvml_forward_backward": w_all,
    }


def make_rope(tokens, heads, head_dim):
    t = torch.randn(tokens, 1, heads, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    freqs = torch.randn(tokens, 1, 1, head_dim, device="cuda", dtype=torch.float32)
    grad = torch.randn_like(t)

    def fwd():
        with torch.no_grad():
            rope(t, freqs, MSCALE)

    def fwd_bwd():
        rope(t, freqs, MSCALE).backward(grad)

    return fwd, fwd_bwd


def make_bias(experts, rows, width):
    out = torch.randn(experts * rows, width, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    probs = torch.rand(experts * rows, 1, device="cuda", dtype=torch.float32, requires_grad=True)
    biases = [torch.randn(width, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(experts)]
    split = [rows] * experts
    grad = torch.randn(experts * rows, width, device="cuda", dtype=torch.bfloat16)

    def fwd():
        with torch.no_grad():
            bias_loop(out, biases, split, probs)

    def fwd_bwd():
        bias_loop(out, biases, split, probs).backward(grad)

    return fwd, fwd_bwd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    torch.manual_seed(20261206)
    nvml = NvmlWindow()
    results = []
    for tokens in (4096, 16384):
        for heads in (64, 8):  # GPT-OSS's Q and K
            results.append(study("rope", {"tokens": tokens, "heads": heads, "head_dim": 64},
                                 lambda: make_rope(tokens, heads, 64), nvml, args.reps))
            print(json.dumps(results[-1]), file=sys.stderr)
    for experts, rows in ((16, 1024), (16, 4096), (4, 4096)):
        results.append(study("bias", {"experts": experts, "rows_per_expert": rows, "width": 2880},
                             lambda: make_bias(experts, rows, 2880), nvml, args.reps))
        print(json.dumps(results[-1]), file=sys.stderr)
    doc = {
        "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "power_limit_w": nvml.power_limit_w, "nvml": nvml.ok or nvml.why, "mscale": MSCALE, "results": results,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
