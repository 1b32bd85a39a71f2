#!/usr/bin/env python3
"""Random GEMM shapes run back to back in PyTorch, at sustained clocks: the check set a GEMM profile is held
against (docs/calibration.md, "The PyTorch check set"). It is drawn with its own seed, apart from every
calibration draw, and measured by PyTorch's own cuBLAS/cuBLASLt path, not by the calibrator.

Shapes: m, n, k log-uniform in [256, 16384], multiples of 16, at most --max-flop per GEMM. Each shape is timed
in bf16 in the three layouts a linear layer runs (forward x @ W.T is cuBLAS TN, input gradient dy @ W is NN,
weight gradient dy.T @ x is NT) and in fp8 (torch._scaled_mm, e4m3 inputs, bf16 output, TN: the only layout
Hopper's fp8 GEMMs take). m, n, k and the layout are written in cuBLAS's column-major terms, as the calibrator
writes them: torch.mm(a [M,K], b [K,N]) is cuBLAS's C[N,M] = op(b) op(a), so m = N, n = M.

Timing: a 20 s warm-up of back-to-back 8192^3 bf16 GEMMs so clock and power settle; then per shape `inner`
launches (rotating over enough input copies to cover 3x L2) captured as one CUDA graph, replayed back to back
for --settle-ms (10 ms: right after the fillers, at about their clock; 300 ms: at the shape's own steady-state
clock under the power limit), then 5-10 timed replays between CUDA events; ~5 ms of filler GEMMs are queued behind them so the
GPU never idles while the host prepares the next shape. NVML's SM clock, power and temperature over the
timed replays go with each sample. Output: a clustersim samples file (format v2, kind gemm), so
`clustersim-fit check-samples` reads it.
"""
import argparse
import math
import random
import sys
import time

import torch

from cs_bench import Filler, NvmlWindow, quantile, rand_nonzero, warm_up, write_sample, write_samples_header


def draw_shapes(count, seed, max_flop):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        m, n, k = (16 * max(16, round(math.exp(rng.uniform(math.log(256), math.log(16384))) / 16)) for _ in range(3))
        if 2.0 * m * n * k <= max_flop:
            out.append((m, n, k))
    return out


CAPTURE_STREAM = []


def make_operands(dtype, layout, m, n, k, gen):
    """PyTorch operands whose product is cuBLAS's (layout, m, n, k) GEMM: torch.mm(a [M,K], b [K,N]) with
    M = n, N = m; cuBLAS's first operand is b (transposed when b is a transposed view), its second a."""
    M, N, K = n, m, k
    op_b, op_a = layout[0], layout[1]
    a = rand_nonzero((K, M), gen).t() if op_a == "t" else rand_nonzero((M, K), gen)
    b = rand_nonzero((N, K), gen).t() if op_b == "t" else rand_nonzero((K, N), gen)
    if dtype == "fp8":
        return a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    return a.to(torch.bfloat16), b.to(torch.bfloat16)


def time_shape(dtype, layout, m, n, k, gen, filler, l2, budget_s, settle_s):
    M, N, K = n, m, k
    elt = 1 if dtype == "fp8" else 2
    set_bytes = (M * K + K * N) * elt + M * N * 2
    sets = max(1, min(8, math.ceil(3 * l2 / set_bytes)))
    ops = [make_operands(dtype, layout, m, n, k, gen) for _ in range(sets)]
    outs = [torch.empty((M, N), device="cuda", dtype=torch.bfloat16) for _ in range(sets)]
    one = torch.ones((), device="cuda", dtype=torch.float32)

    def launch(i):
        a, b = ops[i % sets]
        if dtype == "fp8":
            torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, out=outs[i % sets])
        else:
            torch.mm(a, b, out=outs[i % sets])

    for i in range(3):
        launch(i)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for i in range(3):
        launch(i)
    e.record()
    filler.run(3)  # the GPU works on these while the host captures the graph
    e.synchronize()
    t1 = max(s.elapsed_time(e) * 1e-3 / 3, 1e-7)
    inner = max(1, min(256, math.ceil(2e-3 / t1)))
    graph = torch.cuda.CUDAGraph()
    # capture_begin/end rather than torch.cuda.graph(), which synchronises the device (an idle gap).
    with torch.cuda.stream(CAPTURE_STREAM[0]):
        graph.capture_begin()
        for i in range(inner):
            launch(i)
        graph.capture_end()
    rep_s = t1 * inner
    for _ in range(max(1, math.ceil(settle_s / rep_s))):
        graph.replay()
    reps = max(5, min(10, int(budget_s / rep_s)))
    marks = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    for r in range(reps):
        marks[r].record()
        graph.replay()
    marks[-1].record()
    filler.run(3)
    marks[0].synchronize()
    t0 = time.monotonic()
    marks[-1].synchronize()
    t_end = time.monotonic()
    per = [marks[r].elapsed_time(marks[r + 1]) * 1e-3 / inner for r in range(reps)]
    del graph
    return quantile(per, 0.5), quantile(per, 0.1), quantile(per, 0.9), reps, t0, t_end


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--seed", type=int, default=20261210)
    ap.add_argument("--max-flop", type=float, default=2e13)
    ap.add_argument("--warmup-s", type=float, default=20.0)
    ap.add_argument("--budget-ms", type=float, default=15.0)
    ap.add_argument("--settle-ms", type=float, default=10.0,
                    help="replay each shape alone this long before timing it: 10 ms (the default) times it "
                         "right after the filler GEMMs, at about their clock; a few hundred ms lets the power "
                         "regulator settle at the shape's own clock (its steady state)")
    ap.add_argument("--trace")
    args = ap.parse_args()
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    nvml = NvmlWindow()
    CAPTURE_STREAM.append(torch.cuda.Stream())
    start = time.monotonic()
    filler = Filler(gen)
    fp8 = hasattr(torch, "_scaled_mm") and hasattr(torch, "float8_e4m3fn")
    warm_up(filler, args.warmup_s, nvml, "gemm_check")
    shapes = draw_shapes(args.count, args.seed, args.max_flop)
    variants = [("bf16", "tn"), ("bf16", "nn"), ("bf16", "nt")] + ([("fp8", "tn")] if fp8 else [])
    # A shape replayed alone long enough for the power regulator to settle is timed at its own steady clock
    # ("steady"); right after the fillers, at about theirs ("sustained").
    clocks = "steady" if args.settle_ms >= 200 else "sustained"
    with open(args.out, "w") as out:
        write_samples_header(out, f"calibrate/pytorch/gemm_check.py (torch {torch.__version__}, seed {args.seed}, "
                                  f"{args.count} shapes, back to back, CUDA graphs, "
                                  f"each replayed alone {args.settle_ms:g} ms before timing)",
                             torch_cuda=torch.version.cuda, clocks=clocks, power_limit_w=nvml.power_limit_w,
                             **({} if nvml.ok else {"nvml": nvml.why}))
        done = 0
        for (m, n, k) in shapes:
            for dtype, layout in variants:
                done += 1
                try:
                    med, p10, p90, reps, t0, t1 = time_shape(dtype, layout, m, n, k, gen, filler, l2,
                                                             args.budget_ms * 1e-3, args.settle_ms * 1e-3)
                except RuntimeError as e:
                    print(f"gemm_check: {dtype} {layout} {m}x{n}x{k} failed: {e}", file=sys.stderr, flush=True)
                    continue
                mhz, w, temp, reasons = nvml.window(t0, t1)
                nbytes = (m * k + k * n) * (1 if dtype == "fp8" else 2) + m * n * 2
                write_sample(out, "gemm", "gemm", dtype, (med, p10, p90, reps), (mhz, w, temp, reasons), m=m, n=n,
                             k=k, nbytes=nbytes, algo="torch", layout=layout, clocks=clocks)
                if done % 40 == 0:
                    print(f"[{time.monotonic() - start:6.1f} s] gemm_check {done}/{len(shapes) * len(variants)}: "
                          f"{dtype} {layout} {m}x{n}x{k} {med * 1e3:.3f} ms "
                          f"{2.0 * m * n * k / med * 1e-12:.0f} TFLOP/s {mhz:.0f} MHz {w:.0f} W {temp:.0f} C",
                          file=sys.stderr, flush=True)
    if args.trace:
        nvml.trace(args.trace, start)
    nvml.close()
    print(f"gemm_check: done in {time.monotonic() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
