#!/usr/bin/env python3
"""Sliding-window attention against full causal attention, forward and backward, at sustained clocks.

GPT-OSS (every other layer attends to the last 128 tokens), Mistral 7B (4,096) and Gemma 3 (1,024 in five of
six layers) restrict each query to the last `w` keys. A flash kernel then visits only the key tiles inside the
band. clustersim prices such an attention as full causal attention over sequences of length 2w, s / 2w times
as many of them (the same query-key pairs, w per query, at the tile granularity of a short causal sequence;
sim/hardware/compute_cost_model.hpp). This study measures whether that holds, on one kernel family:

  windowed(s, w)        the band mask at sequence s                    (what a windowed layer runs)
  blocks(s, w)          causal at sequence 2w, batch x s / 2w          (what the simulator prices)
  causal(s)             causal at sequence s                           (a full layer)

all three through torch's flex_attention (compiled Triton kernels: the only PyTorch kernel that takes an
arbitrary block mask), and `blocks` and `causal` also through SDPA's FlashAttention-2 (the kernel the H200
calibration fitted), so the flex kernel's own efficiency can be told apart.

Shapes: GPT-OSS 120B's attention (64 query heads, 8 key/value heads of width 64) at 4,096 and 8,192 tokens,
windows 128 to 2,048; a Mistral-like 32/8 x 128 at 8,192-16,384 with window 4,096. Timing as attention_bench.py
--sustained: a 15 s warm-up of back-to-back bf16 GEMMs, filler GEMMs ahead of every shape, CUDA events around
back-to-back launches, NVML clock and power over each window. Output: one JSON list of results.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import Filler, NvmlWindow, rand_nonzero, time_launches, warm_up  # noqa: E402


def pairs(s, w):
    """Query-key pairs a causal band of width w (w keys per query, itself included) covers at sequence s."""
    w = min(w, s)
    return w * (w + 1) // 2 + (s - w) * w


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup-s", type=float, default=15.0)
    ap.add_argument("--budget-s", type=float, default=0.05)
    args = ap.parse_args()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(20261205)
    nvml = NvmlWindow()
    filler = Filler(gen)
    warm_up(filler, args.warmup_s)
    busy = lambda: filler.run(4)
    # Every shape compiles its own kernels: past dynamo's default limit of 8 it would fall back to the eager
    # reference implementation, which materialises the score matrix.
    torch._dynamo.config.cache_size_limit = 512
    if hasattr(torch._dynamo.config, "recompile_limit"):
        torch._dynamo.config.recompile_limit = 512
    flex = torch.compile(flex_attention, dynamic=False)

    cases = []
    for s in (4096, 8192):
        for w in (128, 256, 512, 1024, 2048):
            cases.append((1, 64, 8, s, 64, w))
    for s in (8192, 16384):
        cases.append((1, 32, 8, s, 128, 4096))
    def measure(row, name, fwd, fwdbwd, watts=False):
        """Times `fwd` and `fwdbwd` back to back into row[name_fwd_s], row[name_fwdbwd_s], with the SM clock
        (and the board power, with `watts`) over each timed window."""
        for label, fn in (("fwd", fwd), ("fwdbwd", fwdbwd)):
            fn(0)
            torch.cuda.synchronize()
            med, _p10, _p90, _n, t0, t1 = time_launches(fn, args.budget_s, busy=busy)
            mhz, power, _temp, _ = nvml.window(t0 - (t1 - t0), t1)
            row[f"{name}_{label}_s"] = med
            row[f"{name}_{label}_mhz"] = mhz
            if watts:
                row[f"{name}_{label}_w"] = power

    results = []
    for (b, hq, hkv, s, d, w) in cases:
        row = {"batch": b, "heads": hq, "kv_heads": hkv, "seq": s, "head_dim": d, "window": w,
               "band_pairs": pairs(s, w), "causal_pairs": pairs(s, s)}

        def make(batch, seq):
            q = rand_nonzero((batch, hq, seq, d), gen, torch.bfloat16).requires_grad_(True)
            k = rand_nonzero((batch, hkv, seq, d), gen, torch.bfloat16).requires_grad_(True)
            v = rand_nonzero((batch, hkv, seq, d), gen, torch.bfloat16).requires_grad_(True)
            o = torch.empty((batch, hq, seq, d), device="cuda", dtype=torch.bfloat16)
            return q, k, v, o

        def mask_of(seq, window):
            def band(bi, h, qi, ki):
                return (qi >= ki) & (qi - ki < window)
            return create_block_mask(band, B=None, H=None, Q_LEN=seq, KV_LEN=seq, device="cuda")

        nb = max(1, s // (2 * w))
        variants = {
            "flex_windowed": (b, s, mask_of(s, w)),
            "flex_blocks": (b * nb, min(s, 2 * w), mask_of(min(s, 2 * w), min(s, 2 * w))),
            "flex_causal": (b, s, mask_of(s, s)),
        }
        for name, (batch, seq, mask) in variants.items():
            q, k, v, _ = make(batch, seq)
            go = torch.ones((batch, hq, seq, d), device="cuda", dtype=torch.bfloat16)

            def fwd(_i, q=q, k=k, v=v, mask=mask):
                with torch.no_grad():
                    return flex(q, k, v, block_mask=mask, enable_gqa=True)

            def fwdbwd(_i, q=q, k=k, v=v, mask=mask, go=go):
                out = flex(q, k, v, block_mask=mask, enable_gqa=True)
                torch.autograd.grad(out, (q, k, v), go)

            measure(row, name, fwd, fwdbwd, watts=True)
        for name, (batch, seq) in {"flash_blocks": (b * nb, min(s, 2 * w)), "flash_causal": (b, s)}.items():
            # FlashAttention-2 through SDPA takes no GQA: the key/value heads repeated, as the calibration ran it.
            q, k, v, _ = make(batch, seq)
            k = k.detach().repeat_interleave(hq // hkv, dim=1).requires_grad_(True)
            v = v.detach().repeat_interleave(hq // hkv, dim=1).requires_grad_(True)
            go = torch.ones((batch, hq, seq, d), device="cuda", dtype=torch.bfloat16)

            def ffwd(_i, q=q, k=k, v=v):
                with torch.no_grad(), sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=True)

            def ffwdbwd(_i, q=q, k=k, v=v, go=go):
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                torch.autograd.grad(out, (q, k, v), go)

            measure(row, name, ffwd, ffwdbwd)
        results.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
