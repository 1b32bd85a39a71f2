#!/usr/bin/env python3
"""Decode attention: one query token per sequence against a KV cache of `ctx` tokens, batch 1..256, context
128..32K, grouped-query heads 32/8 and 64/8 at head size 128 (Llama 3 8B, 70B) and 32/8 at 64 (Llama 3.2 1B).

- `decode_attn_sdpa`: F.scaled_dot_product_attention(enable_gqa=True) on a contiguous cache (batch, kv_heads,
  ctx, head_dim), query (batch, heads, 1, head_dim), no mask; the math backend is disabled so that a shape no
  fused kernel takes fails (recorded) instead of materialising the scores. The kernel column names the kernel
  PyTorch picked (at ctx 512, 4096 and 32K).
- `decode_attn_paged_flash`: flash_attn.flash_attn_with_kvcache on a paged cache (blocks of 256 tokens,
  shuffled block table), when the flash_attn package imports; otherwise one row says why it was skipped.

Caches rotate over copies covering 3x L2; batch x ctx is capped at 1M tokens (4 GiB of K+V at 8 x 128).
bytes counts K and V read once plus q and the output; flops = 4 * batch * heads * ctx * head_dim.

    python3 calibrate/serving/decode_attention.py --out decode_attention.csv [--max-s 100]
"""
import argparse

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from serve_common import Deadline, NvmlWindow, RowWriter, copies_for, free, kernel_info, log, rand, time_graph

HEADS = ((32, 8, 128), (32, 8, 64), (64, 8, 128))
KERNEL_CTX = (512, 4096, 32768)  # contexts at which the profiler names the kernel
BATCHES = (1, 8, 32, 64, 128, 256)
CTXS = (128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
MAX_TOKENS = 1 << 20
FUSED = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]
PAGE = 256


def flash_attn_kvcache():
    try:
        from flash_attn import flash_attn_with_kvcache
        import flash_attn
        return flash_attn_with_kvcache, f"flash_attn {getattr(flash_attn, '__version__', '?')}"
    except Exception as e:  # noqa: BLE001 - any import failure is a reason to skip
        return None, f"flash_attn not importable: {type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-s", type=float, default=100.0)
    ap.add_argument("--no-kernels", action="store_true")
    args = ap.parse_args()
    dl = Deadline(args.max_s)
    nvml = NvmlWindow()
    out = RowWriter(args.out, nvml)
    fa, fa_why = flash_attn_kvcache()
    log(f"decode_attention: paged cache: {fa_why}")
    if fa is None:
        out.write(None, kind="serve_attention", op="decode_attn_paged_flash", dtype="bf16", layout="paged",
                  note=f"skipped: {fa_why}")
    n = 0
    grid = [(hq, hkv, d, b, L) for hq, hkv, d in HEADS for b in BATCHES for L in CTXS if b * L <= MAX_TOKENS]
    for hq, hkv, d, b, L in grid:
        if dl.over():
            log(f"decode_attention: time cap {args.max_s:.0f} s reached at {hq}/{hkv}x{d} b={b} ctx={L}")
            break
        kv_bytes = 2 * b * hkv * L * d * 2
        nbytes = kv_bytes + 2 * b * hq * d * 2
        common = dict(kind="serve_attention", dtype="bf16", batch=b, heads=hq, kv_heads=hkv, head_dim=d,
                      seq=1, ctx=L, tokens=b, bytes=nbytes, flops=4 * b * hq * L * d)
        sets = copies_for(kv_bytes)
        try:
            qs = [rand((b, hq, 1, d)) for _ in range(sets)]
            ks = [rand((b, hkv, L, d)) for _ in range(sets)]
            vs = [rand((b, hkv, L, d)) for _ in range(sets)]

            def fn(i):
                j = i % sets
                with sdpa_kernel(FUSED):
                    return F.scaled_dot_product_attention(qs[j], ks[j], vs[j], enable_gqa=True)

            t = time_graph(fn)
            kern = ("", "") if args.no_kernels or L not in KERNEL_CTX else kernel_info(fn)
            out.write(t, op="decode_attn_sdpa", layout="contiguous", algo="sdpa", kernels=kern[0],
                      kernel=kern[1], **common)
            n += 1
            if n % 10 == 1:
                log(f"[{dl.elapsed():6.1f} s] decode {n}: {hq}/{hkv}x{d} b={b} ctx={L} "
                    f"{t['median_s'] * 1e6:.1f} us {nbytes / t['median_s'] * 1e-9:.0f} GB/s {kern[1][:60]}")
        except Exception as e:  # noqa: BLE001
            out.write(None, op="decode_attn_sdpa", layout="contiguous", algo="sdpa", note=f"failed: {e}",
                      **common)
            log(f"decode sdpa {hq}/{hkv}x{d} b={b} ctx={L}: failed: {e}")
        qs = ks = vs = None
        free()
        if fa is None:
            continue
        try:
            pages = -(-L // PAGE)
            blocks = b * pages
            psets = copies_for(2 * blocks * PAGE * hkv * d * 2)
            kc = [rand((blocks, PAGE, hkv, d)) for _ in range(psets)]
            vc = [rand((blocks, PAGE, hkv, d)) for _ in range(psets)]
            table = torch.randperm(blocks, device="cuda", dtype=torch.int32).view(b, pages)
            lens = torch.full((b,), L, device="cuda", dtype=torch.int32)
            qp = [rand((b, 1, hq, d)) for _ in range(psets)]

            def fp(i):
                j = i % psets
                return fa(qp[j], kc[j], vc[j], cache_seqlens=lens, block_table=table)

            t = time_graph(fp)
            kern = ("", "") if args.no_kernels else kernel_info(fp)
            out.write(t, op="decode_attn_paged_flash", layout=f"paged{PAGE}", algo="flash_attn_with_kvcache",
                      kernels=kern[0], kernel=kern[1], note=fa_why, **common)
        except Exception as e:  # noqa: BLE001
            out.write(None, op="decode_attn_paged_flash", layout=f"paged{PAGE}",
                      algo="flash_attn_with_kvcache", note=f"failed: {e}", **common)
        kc = vc = qp = None
        free()
    out.close()
    nvml.close()
    log(f"decode_attention: {n} sdpa samples in {dl.elapsed():.0f} s")


if __name__ == "__main__":
    main()
