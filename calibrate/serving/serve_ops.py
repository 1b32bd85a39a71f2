#!/usr/bin/env python3
"""The small operators of a serving step at decode batch sizes (and a few prefill token counts), per model shape
(shapes.py: Llama 3.2 1B, 3 8B, 3 70B), each exactly as llama_decoder.py runs it:

| op | what (T tokens) |
|---|---|
| embedding | F.embedding of T random ids from the 128,256 x hidden table |
| rmsnorm | llama_decoder.rms_norm: fp32 upcast, mean of squares, rsqrt, scale (several kernels) |
| rmsnorm_fused | F.rms_norm, for comparison |
| residual_add | x + y, (T, hidden) |
| rope | llama_decoder.rope on q (T, heads, d) and k (T, kv_heads, d) with cos/sin gathered at T positions |
| swiglu | llama_decoder.swiglu on the gate+up output (T, 2 ffn) |
| kv_write_slice | llama_decoder.write_cache, K and V: decode (T sequences, one token each, cache of 2,048
  slots) for T <= 512; prefill (one sequence of T tokens) above |
| kv_write_index_copy | K and V rows into a slot cache (slots, kv_heads, d) by index_copy_ at T random slots,
  as a paged engine's cache write |
| fp8_quant | per-tensor dynamic e4m3 quantisation of (T, hidden): amax, scale, divide, cast |
| lm_head_argmax | F.linear to 128,256 logits and argmax (greedy sampling), T <= 512 |
| argmax | argmax alone over (T, 128,256) bf16 logits, T <= 512 |
| copy | one 1 GiB device-to-device copy (the HBM reference; bytes read + written) |

Timing as serve_common.time_graph (CUDA-graph replay, inputs rotating over 3x L2). kernels: GPU kernels one call
launches (torch.profiler), recorded at T = 1, 512 and 8192.

    python3 calibrate/serving/serve_ops.py --out ops.csv [--max-s 60]
"""
import argparse

import torch
import torch.nn.functional as F

from llama_decoder import rms_norm, rope, rope_tables, swiglu, write_cache
from serve_common import Deadline, NvmlWindow, RowWriter, copies_for, free, kernel_info, log, rand, time_graph
from shapes import MODELS, VOCAB, head_dim

TOKENS = (1, 8, 32, 64, 128, 256, 512, 2048, 8192)
DECODE_MAX = 512
KERNEL_T = (1, 512, 8192)
FP8 = torch.float8_e4m3fn


def fp8_quant(x):
    scale = x.abs().amax().float().clamp(min=1e-12) / 448.0
    return (x.float() / scale).to(FP8), scale


def ops_for(m, T):
    """(op, make_set() -> tuple of tensors, call(*set), bytes moved, extra columns) for one shape and T."""
    h, hq, hkv, d, f = m["hidden"], m["heads"], m["kv_heads"], head_dim(m), m["ffn"]
    b2 = 2
    ops = []
    table = rand((VOCAB, h))
    ops.append(("embedding", lambda: (torch.randint(0, VOCAB, (T,), device="cuda"),),
                lambda ids: F.embedding(ids, table), 2 * T * h * b2, {}))
    ops.append(("rmsnorm", lambda: (rand((T, h)), rand((h,))), rms_norm, 2 * T * h * b2, {}))
    ops.append(("rmsnorm_fused", lambda: (rand((T, h)), rand((h,))),
                lambda x, w: F.rms_norm(x, (h,), w, 1e-5), 2 * T * h * b2, {}))
    ops.append(("residual_add", lambda: (rand((T, h)), rand((T, h))), torch.add, 3 * T * h * b2, {}))
    cos_t, sin_t = rope_tables(32768, d)

    def rope_call(q, k, pos):
        return rope(q, k, cos_t[pos].unsqueeze(1), sin_t[pos].unsqueeze(1))
    ops.append(("rope", lambda: (rand((T, hq, d)), rand((T, hkv, d)), torch.randint(0, 32768, (T,), device="cuda")),
                rope_call, 2 * T * (hq + hkv) * d * b2, {"heads": hq, "kv_heads": hkv, "head_dim": d}))
    ops.append(("swiglu", lambda: (rand((T, 2 * f)),), swiglu, 3 * T * f * b2, {"n": f}))
    # The caches are shared by all input sets (only the new K/V rotate): a write touches a few rows of them.
    if T <= DECODE_MAX:
        L = 2048
        kc, vc = rand((T, hkv, L, d)), rand((T, hkv, L, d))
        ops.append(("kv_write_slice", lambda: (rand((T, 1, hkv, d)), rand((T, 1, hkv, d))),
                    lambda k, v: write_cache(kc, vc, k, v, 1000), 2 * 2 * T * hkv * d * b2,
                    {"layout": "decode", "batch": T, "ctx": L, "kv_heads": hkv, "head_dim": d}))
    else:
        kc, vc = rand((1, hkv, T, d)), rand((1, hkv, T, d))
        ops.append(("kv_write_slice", lambda: (rand((1, T, hkv, d)), rand((1, T, hkv, d))),
                    lambda k, v: write_cache(kc, vc, k, v, 0), 2 * 2 * T * hkv * d * b2,
                    {"layout": "prefill", "batch": 1, "seq": T, "kv_heads": hkv, "head_dim": d}))
    slots = max(65536, 4 * T)
    ks, vs = rand((slots, hkv, d)), rand((slots, hkv, d))

    def slot_write(k, v, idx):
        ks.index_copy_(0, idx, k)
        vs.index_copy_(0, idx, v)
    ops.append(("kv_write_index_copy",
                lambda: (rand((T, hkv, d)), rand((T, hkv, d)), torch.randperm(slots, device="cuda")[:T]),
                slot_write, 2 * 2 * T * hkv * d * b2, {"layout": "slots", "ctx": slots, "kv_heads": hkv,
                                                        "head_dim": d}))
    ops.append(("fp8_quant", lambda: (rand((T, h)),), fp8_quant, 2 * T * h * b2 + T * h, {"dtype": "bf16->fp8"}))
    if T <= DECODE_MAX:
        ops.append(("lm_head_argmax", lambda: (rand((T, h)), rand((VOCAB, h), scale=h ** -0.5)),
                    lambda x, w: F.linear(x, w).argmax(dim=-1), (VOCAB * h + T * h + T * VOCAB) * b2,
                    {"m": T, "n": VOCAB, "k": h, "flops": 2 * T * VOCAB * h}))
        ops.append(("argmax", lambda: (rand((T, VOCAB)),), lambda z: z.argmax(dim=-1), T * VOCAB * b2,
                    {"n": VOCAB}))
    return ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-s", type=float, default=60.0)
    ap.add_argument("--no-kernels", action="store_true")
    args = ap.parse_args()
    dl = Deadline(args.max_s)
    nvml = NvmlWindow()
    out = RowWriter(args.out, nvml)
    x, y = rand((1 << 29,)), rand((1 << 29,))
    t = time_graph(lambda i: y.copy_(x), budget_s=0.05)
    out.write(t, kind="serve_op", op="copy", dtype="bf16", bytes=2 << 30, tokens=0, note="HBM reference: 1 GiB")
    log(f"copy 1 GiB: {t['median_s'] * 1e3:.3f} ms = {(2 << 30) / t['median_s'] * 1e-9:.0f} GB/s")
    del x, y
    n = 0
    stop = False
    for model, m in MODELS.items():
        for T in TOKENS:
            if stop:
                break
            for op, make_set, call, nbytes, extra in ops_for(m, T):
                if dl.over():
                    log(f"serve_ops: time cap {args.max_s:.0f} s reached at {model} T={T} {op}")
                    stop = True
                    break
                cols = dict(kind="serve_op", op=op, dtype="bf16", m=T, k=m["hidden"], tokens=T, model=model,
                            bytes=nbytes)
                cols.update(extra)
                try:
                    sets = [make_set() for _ in range(copies_for(nbytes))]
                    fn = (lambda sets, call: lambda i: call(*sets[i % len(sets)]))(sets, call)
                    t = time_graph(fn)
                    kern = ("", "") if args.no_kernels or T not in KERNEL_T else kernel_info(fn)
                    out.write(t, kernels=kern[0], kernel=kern[1], **cols)
                    n += 1
                    if T in (1, 512):
                        log(f"[{dl.elapsed():6.1f} s] op {n}: {model} {op} T={T} {t['median_s'] * 1e6:.1f} us "
                            f"({kern[0]} kernels)")
                except Exception as e:  # noqa: BLE001
                    out.write(None, note=f"failed: {e}", **cols)
                    log(f"op {model} {op} T={T}: failed: {e}")
                sets = fn = None
                free()
    out.close()
    nvml.close()
    log(f"serve_ops: {n} samples in {dl.elapsed():.0f} s")


if __name__ == "__main__":
    main()
