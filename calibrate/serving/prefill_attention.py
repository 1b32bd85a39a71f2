#!/usr/bin/env python3
"""Prefill attention, forward only, bf16, through F.scaled_dot_product_attention(enable_gqa=True) with the math
backend disabled; heads 32/8 and 64/8 at head size 128 and 32/8 at 64 (shapes.py's models).

- `prefill_attn_sdpa`: causal self-attention over `seq` new tokens, batch 1..8, seq 128..8192 (batch x seq at
  most 32K tokens); q, k, v laid out (batch, seq, heads, head_dim) and viewed head-major, as a QKV projection
  produces them.
- `chunk_prefill_attn_sdpa`: a chunked-prefill step (Sarathi-Serve): `seq` new tokens of one sequence against
  the `ctx` tokens already cached plus themselves, causal aligned to the bottom right
  (torch.nn.attention.bias.causal_lower_right); chunk 256..2048, cached 1K..16K. Where SDPA's causal bias does
  not take grouped K/V, K and V are expanded to every head (the note says so).

flops count the causal half: 4 * batch * heads * head_dim * (seq * ctx + seq^2 / 2). The profiler names the
kernel at seq 512, 2048 and 8192.

    python3 calibrate/serving/prefill_attention.py --out prefill_attention.csv [--max-s 70]
"""
import argparse

import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.bias import causal_lower_right

from serve_common import Deadline, NvmlWindow, RowWriter, copies_for, free, kernel_info, log, rand, time_graph

HEADS = ((32, 8, 128), (64, 8, 128), (32, 8, 64))
SEQS = (128, 256, 512, 1024, 2048, 4096, 8192)
BATCHES = (1, 2, 4, 8)
MAX_TOKENS = 32768
CHUNKS = (256, 512, 1024, 2048)
CACHED = (1024, 4096, 16384)
FUSED = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]


def head_major(b, s, h, d):
    return rand((b, s, h, d)).transpose(1, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-s", type=float, default=70.0)
    ap.add_argument("--no-kernels", action="store_true")
    args = ap.parse_args()
    dl = Deadline(args.max_s)
    nvml = NvmlWindow()
    out = RowWriter(args.out, nvml)
    grid = [("prefill_attn_sdpa", hq, hkv, d, b, s, 0) for hq, hkv, d in HEADS for b in BATCHES for s in SEQS
            if b * s <= MAX_TOKENS]
    grid += [("chunk_prefill_attn_sdpa", hq, hkv, d, 1, c, p) for hq, hkv, d in HEADS for p in CACHED
             for c in CHUNKS]
    n = 0
    for op, hq, hkv, d, b, s, p in grid:
        if dl.over():
            log(f"prefill_attention: time cap {args.max_s:.0f} s reached at {op} {hq}/{hkv}x{d} b={b} s={s}")
            break
        kv = p + s
        nbytes = b * (2 * s * hq + 2 * kv * hkv) * d * 2
        flops = 4 * b * hq * d * (s * p + s * s / 2)
        common = dict(kind="serve_attention", op=op, dtype="bf16", batch=b, heads=hq, kv_heads=hkv, head_dim=d,
                      seq=s, ctx=p, tokens=b * s, bytes=nbytes, flops=int(flops), layout="bshd", algo="sdpa")
        sets = copies_for(nbytes)
        note = ""
        try:
            qs = [head_major(b, s, hq, d) for _ in range(sets)]
            ks = [head_major(b, kv, hkv, d) for _ in range(sets)]
            vs = [head_major(b, kv, hkv, d) for _ in range(sets)]
            if p == 0:
                def fn(i):
                    j = i % sets
                    with sdpa_kernel(FUSED):
                        return F.scaled_dot_product_attention(qs[j], ks[j], vs[j], is_causal=True, enable_gqa=True)
                fn(0)
            else:
                mask = causal_lower_right(s, kv)

                def fn(i):
                    j = i % sets
                    with sdpa_kernel(FUSED):
                        return F.scaled_dot_product_attention(qs[j], ks[j], vs[j], attn_mask=mask,
                                                              enable_gqa=True)
                try:
                    fn(0)
                except Exception as e:  # noqa: BLE001 - retry with K/V expanded to every query head
                    note = f"grouped K/V refused with the causal bias ({str(e)[:80]}): K and V expanded"
                    ks = [k.repeat_interleave(hq // hkv, dim=1) for k in ks]
                    vs = [v.repeat_interleave(hq // hkv, dim=1) for v in vs]

                    def fn(i):
                        j = i % sets
                        with sdpa_kernel(FUSED):
                            return F.scaled_dot_product_attention(qs[j], ks[j], vs[j], attn_mask=mask)
                    fn(0)
            t = time_graph(fn)
            kern = ("", "") if args.no_kernels or s not in (512, 2048, 8192) else kernel_info(fn)
            out.write(t, kernels=kern[0], kernel=kern[1], note=note, **common)
            n += 1
            if n % 10 == 1:
                log(f"[{dl.elapsed():6.1f} s] prefill {n}: {op} {hq}/{hkv}x{d} b={b} s={s} ctx={p} "
                    f"{t['median_s'] * 1e3:.3f} ms {flops / t['median_s'] * 1e-12:.0f} TFLOP/s {kern[1][:50]}")
        except Exception as e:  # noqa: BLE001
            out.write(None, note=f"failed: {e}", **common)
            log(f"prefill {op} {hq}/{hkv}x{d} b={b} s={s} ctx={p}: failed: {e}")
        qs = ks = vs = None
        free()
    out.close()
    nvml.close()
    log(f"prefill_attention: {n} samples in {dl.elapsed():.0f} s")


if __name__ == "__main__":
    main()
