#!/usr/bin/env python3
"""Skinny GEMMs of LLM decode and small prefill chunks: y = x W^T for M = 1..512 tokens against the linear layers
of Llama 3.2 1B, Llama 3 8B and Llama 3 70B (shapes.py), in bf16 (F.linear, as nn.Linear runs it) and fp8
(torch._scaled_mm, e4m3 inputs with per-tensor scales, bf16 output, with fast accumulation at every M and
without it at M = 1, 8, 64, 512).

Timing as a CUDA-graph decode loop runs (serve_common.time_graph): weights and activations rotate over enough
copies to touch 3x the L2 cache, so a weight is read from HBM as in a real decode step. The fp8 rows exclude
quantising the activation (serve_ops.py times that as fp8_quant). gb_per_s counts W, x and y once each.
kernels/kernel: the kernels one call runs and the longest one's name (torch.profiler), at M = 1, 8, 64, 512.

    python3 calibrate/serving/skinny_gemm.py --out gemm.csv [--max-s 100]
"""
import argparse

import torch
import torch.nn.functional as F

from serve_common import Deadline, NvmlWindow, RowWriter, copies_for, free, kernel_info, log, rand, time_graph
from shapes import MODELS, linears

MS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
KERNEL_M = (1, 8, 64, 512)  # M at which the profiler names the kernel (it costs time per sample)
FP8 = torch.float8_e4m3fn


def fp8_call(x8, w8, one, fast):
    return torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-s", type=float, default=100.0, help="stop the sweep after this many seconds")
    # 70B last: the step models are 8B and 1B shapes, so a sweep cut by its cap loses the 70B first.
    ap.add_argument("--models", default="llama3-8b,llama3.2-1b,llama3-70b")
    ap.add_argument("--no-kernels", action="store_true", help="skip the profiler's kernel names")
    args = ap.parse_args()
    dl = Deadline(args.max_s)
    nvml = NvmlWindow()
    out = RowWriter(args.out, nvml)
    one = torch.ones((), device="cuda", dtype=torch.float32)
    n = 0
    for model in args.models.split(","):
        m = MODELS[model]
        for op, N, K in linears(m):
            if dl.over():
                break
            wb = [rand((N, K), scale=K ** -0.5) for _ in range(copies_for(N * K * 2))]
            w8 = [w.to(FP8) for w in wb[:copies_for(N * K)]]
            while len(w8) < copies_for(N * K):
                w8.append(rand((N, K), scale=K ** -0.5).to(FP8))
            for M in MS:
                if dl.over():
                    log(f"skinny_gemm: time cap {args.max_s:.0f} s reached at {model} {op} M={M}")
                    break
                sx = copies_for(M * K * 2 + N * K * 2)
                xb = [rand((M, K)) for _ in range(max(sx, len(wb)))]
                x8 = [x.to(FP8) for x in xb]
                variants = [("bf16", "linear", lambda i: F.linear(xb[i % len(xb)], wb[i % len(wb)]),
                             N * K * 2 + M * K * 2 + M * N * 2)]
                for fast in ((True, False) if M in KERNEL_M else (True,)):
                    call = (lambda fast: lambda i: fp8_call(x8[i % len(x8)], w8[i % len(w8)], one, fast))(fast)
                    variants.append(("fp8", "scaled_mm_fast" if fast else "scaled_mm", call,
                                     N * K + M * K + M * N * 2))
                for dtype, algo, fn, nbytes in variants:
                    note = ""
                    try:
                        try:
                            fn(0)
                        except RuntimeError as e:
                            if dtype != "fp8" or M >= 16:
                                raise
                            # _scaled_mm refused this M: time it padded to 16 rows, as an engine would pad.
                            xp = [rand((16, K)).to(FP8) for _ in x8]
                            fast = algo.endswith("fast")
                            fn = (lambda xp, fast: lambda i: fp8_call(xp[i % len(xp)], w8[i % len(w8)], one, fast))(
                                xp, fast)
                            note = f"M={M} refused ({str(e)[:60]}): timed padded to M=16"
                        t = time_graph(fn)
                        kern = ("", "") if args.no_kernels or M not in KERNEL_M else kernel_info(fn)
                        out.write(t, kind="serve_gemm", op=op, dtype=dtype, m=M, n=N, k=K, tokens=M, model=model,
                                  algo=algo, layout="TN", bytes=nbytes, flops=2 * M * N * K, kernels=kern[0],
                                  kernel=kern[1], note=note)
                        n += 1
                        if n % 25 == 0 or M == 1:
                            log(f"[{dl.elapsed():6.1f} s] gemm {n}: {model} {op} {dtype}/{algo} M={M} N={N} K={K} "
                                f"{t['median_s'] * 1e6:.1f} us {nbytes / t['median_s'] * 1e-9:.0f} GB/s")
                    except Exception as e:  # noqa: BLE001 - keep the sweep going, with the failure recorded
                        free()
                        out.write(None, kind="serve_gemm", op=op, dtype=dtype, m=M, n=N, k=K, tokens=M,
                                  model=model, algo=algo, layout="TN", note=f"failed: {e}")
                        log(f"gemm {model} {op} {dtype}/{algo} M={M}: failed: {e}")
                del xb, x8, variants
            del wb, w8
            free()
    out.close()
    nvml.close()
    log(f"skinny_gemm: {n} samples in {dl.elapsed():.0f} s")


if __name__ == "__main__":
    main()
