#!/usr/bin/env python3
"""What a kernel launched from a native (C++) loop costs the host and the GPU, against one launched from Python:
the data behind the simulator's grouped-launch cost (docs/validation.md, "Host-bound eager steps").

Transformer Engine's GroupedLinear runs one cuBLAS GEMM per local expert from a C++ loop, and its split_quantize
casts each expert's rows to fp8 in a C++ loop too (under current scaling: zero the amax, amax, scale, cast). An
eager PyTorch model that loops over experts in Python (moe_step.py) pays the Python dispatcher for every kernel.
This study times, for E experts of R rows each (R tiny: the GPU work is negligible, so the time is the host's):
  python_mm     a Python loop of torch.mm(x[rows of e], w[e].t(), out=...)           (moe_step.py's loop)
  native_mm     the same loop in C++ through ATen (at::mm_out on slices)             (GroupedLinear's loop)
  native_cast4  a C++ loop of small ATen kernels per expert (zero, |x|, amax, scale, cast to fp8)
  python_op     one small elementwise op from Python per kernel                       (the eager per-op cost)
For each: the host time per kernel with the GPU idle (host-bound), and the GPU time per kernel when the kernels
were queued behind a long sleep (the GPU's own floor, kernel plus the gap between back-to-back kernels). NVML
clock, power and temperature are recorded over each measurement.
"""
import argparse
import os
import statistics
import sys
import time

import torch
from torch.utils.cpp_extension import load_inline

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, host_times_idle, kernel_count, sleep_cycles, write_results  # noqa: E402

CPP = r"""
#include <torch/extension.h>
// One GEMM per expert over its rows, as Transformer Engine's grouped GEMM loops (here through ATen).
void grouped_mm(torch::Tensor x, torch::Tensor w, torch::Tensor out, int64_t rows) {
  const int64_t experts = w.size(0);
  for (int64_t e = 0; e < experts; ++e) {
    auto xe = x.narrow(0, e * rows, rows);
    auto oe = out.narrow(0, e * rows, rows);
    at::mm_out(oe, xe, w[e].t());
  }
}
// Small kernels per expert as current-scaling fp8 quantisation runs them: zero the amax, amax, scale, cast.
void grouped_cast4(torch::Tensor x, torch::Tensor amax, torch::Tensor out, int64_t rows) {
  const int64_t experts = amax.size(0);
  for (int64_t e = 0; e < experts; ++e) {
    auto xe = x.narrow(0, e * rows, rows);
    auto a = amax.narrow(0, e, 1);
    a.zero_();
    a.copy_(xe.abs().amax().reshape({1}));
    auto s = at::div(a, 448.0);
    out.narrow(0, e * rows, rows).copy_(at::div(xe, s));
  }
}
"""


def measure(name, fn, kernels_per_call, calls, nvml):
    """Host time per kernel (GPU idle, host-bound), GPU time per kernel queued behind a sleep."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    t0 = time.monotonic()
    host = [t / kernels_per_call * 1e6 for t in host_times_idle(fn, calls, warmup=0)]
    gpu = []
    for _ in range(calls):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(sleep_cycles(20.0))  # the host queues everything below while the GPU sleeps
        a.record()
        fn()
        b.record()
        b.synchronize()
        gpu.append(a.elapsed_time(b) * 1e3 / kernels_per_call)
    r = dict(name=name, kernels_per_call=kernels_per_call, calls=calls,
             host_us_per_kernel_median=statistics.median(host), host_us_per_kernel_min=min(host),
             gpu_us_per_kernel_queued_median=statistics.median(gpu), gpu_us_per_kernel_queued_min=min(gpu),
             nvml=nvml.summary(t0, time.monotonic()))
    print(f"native_launch_study: {name}: host {r['host_us_per_kernel_median']:.2f} us/kernel, GPU queued "
          f"{r['gpu_us_per_kernel_queued_median']:.2f} us/kernel ({kernels_per_call} kernels per call), "
          f"{r['nvml']['sm_mhz_median']:.0f} MHz {r['nvml']['watts_median']:.0f} W", file=sys.stderr, flush=True)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--calls", type=int, default=50)
    args = ap.parse_args()
    ext = load_inline(name="native_launch_ext", cpp_sources=CPP, functions=["grouped_mm", "grouped_cast4"],
                      extra_cflags=["-O2"], verbose=False)
    nvml = NvmlWindow()
    env = environment(nvml)
    results = []
    h, f = 2048, 1536
    for experts in (16, 64):
        for rows in (16, 256):
            x = torch.randn(experts * rows, h, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(experts, f, h, device="cuda", dtype=torch.bfloat16)
            out = torch.empty(experts * rows, f, device="cuda", dtype=torch.bfloat16)
            amax = torch.zeros(experts, device="cuda", dtype=torch.float32)
            q = torch.empty(experts * rows, h, device="cuda", dtype=torch.float8_e4m3fn)

            def python_mm():
                for e in range(experts):
                    torch.mm(x[e * rows:(e + 1) * rows], w[e].t(), out=out[e * rows:(e + 1) * rows])

            def native_mm():
                ext.grouped_mm(x, w, out, rows)

            def native_cast4():
                ext.grouped_cast4(x, amax, q, rows)

            tag = f"e{experts}-r{rows}"
            for name, fn in (("python_mm", python_mm), ("native_mm", native_mm), ("native_cast4", native_cast4)):
                k = kernel_count(fn)
                r = measure(f"{name}-{tag}", fn, k, args.calls, nvml)
                r.update(experts=experts, rows=rows, hidden=h, ffn=f)
                results.append(r)
                write_results(args.out, env, results)
    a = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    c = torch.empty_like(a)

    def python_op():
        for _ in range(64):
            torch.add(a, a, out=c)

    r = measure("python_op-add", python_op, kernel_count(python_op), args.calls, nvml)
    results.append(r)
    write_results(args.out, env, results)


if __name__ == "__main__":
    main()
