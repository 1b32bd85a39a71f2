#!/usr/bin/env python3
"""Causal flash attention, forward and backward, timed through PyTorch's fused SDPA kernels.

Writes a clustersim samples file (the format of sim/store/calibration_sample.hpp) with one `attention`
sample per (direction, dtype, batch, heads, seq, head_dim). The kernel is the one a PyTorch training step
runs: scaled_dot_product_attention restricted to the backend given by --backend (FlashAttention-2 by
default; `cudnn` selects cuDNN's fused attention). Inputs are (batch, seq, heads, head_dim) tensors viewed as
(batch, heads, seq, head_dim), as a GPT block produces them.

Timing: warm-up, then repetitions of back-to-back launches between CUDA events, median and 10th/90th
percentiles kept; inputs rotate over enough copies to cover three times the L2 cache; random non-zero data.
Shapes are limited to at least 2e10 useful forward FLOPs so that Python launch overhead (~20 us) stays
hidden behind the previous kernel.

--sustained: the clocks training sees (docs/calibration.md, "Sustained clocks"). A warm-up of back-to-back
8192^3 bf16 GEMMs (--warmup-s, 20 s) lets clock and power settle at the board limit, and filler GEMMs
(gemm_check.py's) are queued ahead of every shape's warm-up and timed launches, so the GPU never idles while
the host prepares the next shape; samples say `sustained` in the clocks column. Without it, each shape is
timed after the host's synchronisations (burst clocks, as run 2 measured).
"""
import argparse
import math
import random
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cs_bench import Filler, NvmlWindow, rand_nonzero, time_launches, warm_up, write_sample, write_samples_header


def grid(quick):
    cands = []
    for seq in (512, 1024, 2048, 4096, 8192, 16384):
        for b in (1, 2, 4, 8, 16):
            for h in (8, 16, 24, 32, 48):
                for d in (64, 128):
                    fwd = 4.0 * b * h * seq * seq * d / 2
                    if b * seq <= 65536 and 2e10 <= fwd <= 4e13:
                        cands.append((b, h, seq, d))
    rng = random.Random(20261202)
    rng.shuffle(cands)
    keep = 28 if quick else 110
    # Always include the GPT shapes of gpt_step.py (batch, heads, seq 2048, head_dim 128).
    must = [(4, 16, 2048, 128), (2, 24, 2048, 128), (2, 32, 2048, 128)]
    return must + [c for c in cands if c not in must][:keep]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--backend", default="flash", choices=["flash", "cudnn", "efficient"])
    ap.add_argument("--sustained", action="store_true", help="time at sustained clocks (warm-up, filler GEMMs)")
    ap.add_argument("--warmup-s", type=float, default=20.0)
    ap.add_argument("--dtypes", default="bf16,fp16", help="comma-separated: bf16, fp16")
    args = ap.parse_args()
    backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION}[args.backend]
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    budget = 0.012 if args.quick else 0.03
    start = time.time()
    shapes = grid(args.quick)
    nvml = NvmlWindow()
    busy = None
    if args.sustained:
        filler = Filler(gen)
        warm_up(filler, args.warmup_s, nvml, "attention_bench")
        busy = lambda: filler.run(4)  # ~6 ms of GEMMs ahead of the next launches
    clocks = "sustained" if args.sustained else ""
    with open(args.out, "w") as out:
        tool = (f"calibrate/pytorch/attention_bench.py (torch {torch.__version__}, SDPA backend {args.backend}"
                f"{', quick' if args.quick else ''}{', sustained' if args.sustained else ''})")
        write_samples_header(out, tool, cudnn=torch.backends.cudnn.version(), torch_cuda=torch.version.cuda)
        n = 0
        wanted = args.dtypes.split(",")
        for dtype_name, dtype in [(n, t) for n, t in (("bf16", torch.bfloat16), ("fp16", torch.float16)) if n in wanted]:
            for (b, h, s, d) in shapes:
                n += 1
                set_bytes = 4 * b * s * h * d * 2  # q, k, v, out
                sets = max(1, min(8, math.ceil(3 * l2 / set_bytes)))
                qs = [rand_nonzero((b, s, h, d), gen, dtype).transpose(1, 2) for _ in range(3 * sets)]
                for t in qs:
                    t.requires_grad_(True)
                for direction in ("fwd", "bwd"):
                    with sdpa_kernel([backend]):
                        if direction == "fwd":
                            def fn(i):
                                j = 3 * (i % sets)
                                with torch.no_grad():
                                    F.scaled_dot_product_attention(qs[j], qs[j + 1], qs[j + 2], is_causal=True)
                        else:
                            outs = [F.scaled_dot_product_attention(qs[3 * j], qs[3 * j + 1], qs[3 * j + 2],
                                                                   is_causal=True) for j in range(sets)]
                            grads = [rand_nonzero((b, s, h, d), gen, dtype).transpose(1, 2) for _ in range(sets)]

                            def fn(i):
                                j = i % sets
                                torch.autograd.grad(outs[j], (qs[3 * j], qs[3 * j + 1], qs[3 * j + 2]), grads[j],
                                                    retain_graph=True)
                        med, p10, p90, reps, t0, t1 = time_launches(fn, budget, busy=busy)
                    write_sample(out, "attention", direction, dtype_name, (med, p10, p90, reps), nvml.window(t0, t1),
                                 batch=b, heads=h, seq=s, head_dim=d, algo=args.backend, clocks=clocks)
                    fl = 4.0 * b * h * s * s * d / 2 * (2.5 if direction == "bwd" else 1.0)
                    if n % 10 == 0 or direction == "bwd" and n == len(shapes):
                        print(f"[{time.time() - start:7.1f} s] attention {n}/{2 * len(shapes)} {direction} {dtype_name} "
                              f"b={b} h={h} s={s} d={d} {med * 1e3:.3f} ms {fl / med * 1e-12:.0f} TFLOP/s",
                              file=sys.stderr, flush=True)
                del qs
                outs = grads = None
    nvml.close()
    print(f"attention_bench: done in {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
