#!/usr/bin/env python3
"""How long a grouped expert GEMM (one GEMM per local expert) takes on the GPU, in steady state: the data behind
the simulator's pricing of Transformer Engine's GroupedLinear (docs/validation.md, "Grouped expert GEMMs").

For MoE layers' real shapes (per-expert rows x output x input, E local experts) it times, back to back after a
time-based warm-up at the board's sustained clock:
  sequential  E GEMMs one after another on one stream (a Python or C++ loop on one stream)
  streams4    the same E GEMMs round-robin on four streams (Transformer Engine's multi-stream cuBLAS path)
  batched     one batched GEMM over all E experts (torch.bmm; what a single grouped kernel would do)
in bf16 (torch.mm) and fp8 (torch._scaled_mm, per-tensor scales). NVML SM clock, power and temperature are
recorded over each measurement.
"""
import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, write_results  # noqa: E402

# (name, experts, rows per expert, n, k): forward GEMMs of the expert FFN (fc1 = gate+up fused, fc2 = down).
SHAPES = [
    ("qwen3-30b-ep8-fc1", 16, 4096, 1536, 2048),
    ("qwen3-30b-ep8-fc2", 16, 4096, 2048, 768),
    ("qwen3-30b-ep16-fc1", 8, 4096, 1536, 2048),
    ("qwen3-30b-small-fc1", 16, 1024, 1536, 2048),
    ("qwen3-235b-ep32-fc1", 4, 4096, 3072, 4096),
    ("qwen3-235b-ep32-fc2", 4, 4096, 4096, 1536),
    ("deepseek-v3-ep64-fc1", 4, 4096, 4096, 7168),
    ("deepseek-v3-ep64-fc2", 4, 4096, 7168, 2048),
]


def make(dtype, experts, rows, n, k):
    x = torch.randn(experts, rows, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(experts, n, k, device="cuda", dtype=torch.bfloat16) * 0.02
    if dtype == "fp8":
        x = x.to(torch.float8_e4m3fn)
        w = w.to(torch.float8_e4m3fn)
    out = torch.empty(experts, rows, n, device="cuda", dtype=torch.bfloat16)
    return x, w, out


ONE = None  # per-tensor scale for the fp8 GEMMs, made once


def gemm(dtype, a, b_t, out):
    if dtype == "bf16":
        torch.mm(a, b_t, out=out)
    else:  # the bf16 result comes from the caching allocator; no copy kernel
        torch._scaled_mm(a, b_t, scale_a=ONE, scale_b=ONE, out_dtype=torch.bfloat16)


def runner(mode, dtype, x, w, out, streams):
    experts = x.shape[0]
    if mode == "batched":
        if dtype == "bf16":
            return lambda: torch.bmm(x, w.transpose(1, 2), out=out)
        return None  # no batched fp8 GEMM in PyTorch
    if mode == "sequential":
        return lambda: [gemm(dtype, x[e], w[e].t(), out[e]) for e in range(experts)]

    def multi():
        main = torch.cuda.current_stream()
        for s in streams:
            s.wait_stream(main)
        for e in range(experts):
            with torch.cuda.stream(streams[e % len(streams)]):
                gemm(dtype, x[e], w[e].t(), out[e])
        for s in streams:
            main.wait_stream(s)
    return multi


def timed(fn, reps):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e3 / reps  # us per call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup-s", type=float, default=2.0)
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    nvml = NvmlWindow()
    env = environment(nvml)
    global ONE
    ONE = torch.ones((), device="cuda", dtype=torch.float32)
    streams = [torch.cuda.Stream() for _ in range(4)]
    results = []
    for name, experts, rows, n, k in SHAPES:
        for dtype in ("bf16", "fp8"):
            x, w, out = make(dtype, experts, rows, n, k)
            for mode in ("sequential", "streams4", "batched"):
                fn = runner(mode, dtype, x, w, out, streams)
                if fn is None:
                    continue
                t_end = time.monotonic() + args.warmup_s  # time-based warm-up: the clock settles under load
                while time.monotonic() < t_end:
                    fn()
                torch.cuda.synchronize()
                t0 = time.monotonic()
                samples = [timed(fn, args.reps) for _ in range(5)]
                t1 = time.monotonic()
                reading = nvml.summary(t0, t1)
                us = statistics.median(samples)
                flops = 2.0 * experts * rows * n * k
                r = dict(name=name, dtype=dtype, mode=mode, experts=experts, rows=rows, n=n, k=k, us_median=us,
                         us_min=min(samples), tflops=flops / us / 1e6, nvml=reading)
                print(f"grouped_gemm_study: {name} {dtype} {mode}: {us:.1f} us, {r['tflops']:.0f} TFLOP/s, "
                      f"{reading['sm_mhz_median']:.0f} MHz {reading['watts_median']:.0f} W", file=sys.stderr,
                      flush=True)
                results.append(r)
                write_results(args.out, env, results)
            del x, w, out
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
