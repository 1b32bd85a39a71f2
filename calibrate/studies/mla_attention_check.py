#!/usr/bin/env python3
"""Multi-head latent attention's core on the GPU: causal attention with 192-wide query/key heads and 128-wide value
heads (DeepSeek-V3), against the FLOP-equivalent 160-wide heads the simulator prices it as (docs/workload.md).
Forward and forward+backward, back to back, timed with CUDA events; every SDPA backend that accepts the shapes."""
import argparse
import json
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def time_attention(dq, dv, heads, seq, batch, backend, reps=20):
    q = torch.randn(batch, heads, seq, dq, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(batch, heads, seq, dq, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(batch, heads, seq, dv, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    g = torch.randn(batch, heads, seq, dv, device="cuda", dtype=torch.bfloat16)
    with sdpa_kernel([backend]):
        for _ in range(5):
            F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)
        fwd, both = [], []
        for _ in range(reps):
            a, b, c = (torch.cuda.Event(enable_timing=True) for _ in range(3))
            a.record()
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            b.record()
            y.backward(g)
            c.record()
            c.synchronize()
            fwd.append(a.elapsed_time(b))
            both.append(a.elapsed_time(c))
    return statistics.median(fwd), statistics.median(both)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows = []
    for backend in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION):
        for heads, seq, batch in ((64, 4096, 1), (128, 4096, 1)):
            for dq, dv in ((192, 128), (160, 160), (128, 128)):
                try:
                    f, fb = time_attention(dq, dv, heads, seq, batch, backend)
                except RuntimeError as e:
                    rows.append(dict(backend=str(backend), heads=heads, seq=seq, batch=batch, dq=dq, dv=dv,
                                     error=str(e).splitlines()[0][:200]))
                    continue
                # Causal: half the score matrix; forward 2*b*h*s*s*(dq+dv)/2, backward 2.5x that.
                flops = batch * heads * seq * seq * (dq + dv)
                rows.append(dict(backend=str(backend), heads=heads, seq=seq, batch=batch, dq=dq, dv=dv,
                                 fwd_ms=f, fwd_bwd_ms=fb, fwd_tflops=flops / f / 1e9))
                print(f"mla_attention: {backend} h{heads} s{seq} dq{dq} dv{dv}: fwd {f:.3f} ms, fwd+bwd {fb:.3f} ms",
                      file=sys.stderr, flush=True)
    with open(args.out, "w") as fh:
        json.dump(dict(torch=torch.__version__, gpu=torch.cuda.get_device_name(0), rows=rows), fh, indent=1)


if __name__ == "__main__":
    main()
