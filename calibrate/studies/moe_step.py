#!/usr/bin/env python3
"""A real single-GPU mixture-of-experts training step in PyTorch, timed, for checking the simulator's MoE layer.

Model (Qwen3-MoE-shaped, written out so the simulator can enumerate the same kernels): token embedding; `layers`
pre-RMSNorm blocks of causal grouped-query attention (fused QKV and output projections without bias, heads of
`head_dim`, scaled_dot_product_attention with the flash backend) and a routed MoE FFN as Megatron-Core's alltoall
dispatcher runs it on one rank: a bf16 router GEMM, softmax in fp32, top-k with renormalised weights, the token
counts copied to the host (the dispatcher's device-to-host synchronisation), a permutation of the top_k copies of
each token into expert order, the expert GEMMs as Transformer Engine's GroupedLinear runs them (one GEMM per
expert from a host loop, fc1 = gate+up fused, then SwiGLU over all rows at once, then fc2; in the backward one
dgrad and one wgrad GEMM per expert), the router weights applied and the copies summed back into token order.
Final RMSNorm, untied LM head, cross-entropy. bf16 parameters and fused AdamW states (as gpt_step.py).

Several configurations keep the FLOPs of the experts fixed (top_k x expert_ffn constant) while the expert count,
hence the number of kernel launches, changes; a dense SwiGLU FFN of the same width is the baseline.
"""
import argparse
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, time_training_steps, write_results  # noqa: E402


class RMSNorm(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, 1e-6)


class GroupedLinearFn(torch.autograd.Function):
    """y[rows of expert e] = x[rows of e] @ w[e]^T, one cuBLAS GEMM per expert (TE GroupedLinear's host loop)."""

    @staticmethod
    def forward(ctx, x, w, splits):
        out = torch.empty(x.shape[0], w.shape[1], dtype=x.dtype, device=x.device)
        start = 0
        for e, n in enumerate(splits):
            if n:
                torch.mm(x[start:start + n], w[e].t(), out=out[start:start + n])
            start += n
        ctx.save_for_backward(x, w)
        ctx.splits = splits
        return out

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        dx = torch.empty_like(x)
        dw = torch.zeros_like(w)
        start = 0
        for e, n in enumerate(ctx.splits):
            if n:
                torch.mm(dy[start:start + n], w[e], out=dx[start:start + n])
                torch.mm(dy[start:start + n].t(), x[start:start + n], out=dw[e])
            start += n
        return dx, dw, None


class MoE(nn.Module):
    def __init__(self, h, experts, top_k, f):
        super().__init__()
        self.experts, self.top_k = experts, top_k
        self.router = nn.Linear(h, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, 2 * f, h) * 0.02)
        self.w2 = nn.Parameter(torch.randn(experts, h, f) * 0.02)
        # Routing modes (host_sync_study.py): "learned" (top-k of the router, counts copied to the host), "balanced"
        # (Megatron-Core's moe_router_force_load_balancing: every expert gets the same number of copies; the
        # counts are still copied to the host, as the dropless alltoall dispatcher does), "static" (balanced, with
        # the splits known to the host in advance, as with a padded capacity: no device-to-host synchronisation).
        self.routing = "learned"

    def forward(self, x):
        b, s, h = x.shape
        x = x.reshape(-1, h)
        scores = self.router(x).float().softmax(dim=-1)
        probs, idx = scores.topk(self.top_k, dim=-1)
        probs = (probs / probs.sum(dim=-1, keepdim=True)).to(x.dtype)
        if self.routing != "learned":
            copies = torch.arange(idx.numel(), device=x.device)
            idx = ((copies * 7919) % self.experts).view_as(idx)  # balanced, distinct experts per token
        flat = idx.reshape(-1)
        order = flat.argsort(stable=True)
        if self.routing == "static":
            splits = [idx.numel() // self.experts] * self.experts  # known on the host: no synchronisation
        else:
            counts = torch.bincount(flat, minlength=self.experts).cpu()  # the dispatcher's host sync
            splits = counts.tolist()
        token_of_copy = order // self.top_k
        xp = x.index_select(0, token_of_copy)  # permutation into expert order
        a, g = GroupedLinearFn.apply(xp, self.w1, splits).chunk(2, dim=-1)
        y = GroupedLinearFn.apply(F.silu(a) * g, self.w2, splits)
        y = y * probs.reshape(-1, 1).index_select(0, order)
        out = torch.zeros_like(x).index_add_(0, token_of_copy, y)  # unpermutation and sum of the copies
        return out.view(b, s, h)


class DenseFFN(nn.Module):
    def __init__(self, h, f):
        super().__init__()
        self.fc1 = nn.Linear(h, 2 * f, bias=False)
        self.fc2 = nn.Linear(f, h, bias=False)

    def forward(self, x):
        a, g = self.fc1(x).chunk(2, dim=-1)
        return self.fc2(F.silu(a) * g)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, self.heads, self.kv, self.hd = cfg["hidden"], cfg["heads"], cfg["kv_heads"], cfg["head_dim"]
        self.n1, self.n2 = RMSNorm(h), RMSNorm(h)
        self.qkv = nn.Linear(h, (self.heads + 2 * self.kv) * self.hd, bias=False)
        self.proj = nn.Linear(self.heads * self.hd, h, bias=False)
        f = cfg["expert_ffn"]
        self.ffn = MoE(h, cfg["experts"], cfg["top_k"], f) if cfg["experts"] > 0 else DenseFFN(h, f * cfg["top_k"])

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).split([self.heads * self.hd, self.kv * self.hd, self.kv * self.hd], dim=-1)
        q = q.view(b, s, self.heads, self.hd).transpose(1, 2)
        k = k.view(b, s, self.kv, self.hd).transpose(1, 2)
        v = v.view(b, s, self.kv, self.hd).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, -1))
        return x + self.ffn(self.n2(x))


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok = nn.Embedding(cfg["vocab"], cfg["hidden"])
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg["layers"]))
        self.norm = RMSNorm(cfg["hidden"])
        self.head = nn.Linear(cfg["hidden"], cfg["vocab"], bias=False)

    def forward(self, idx, targets):
        x = self.tok(idx)
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.norm(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    base = dict(hidden=2048, heads=32, kv_heads=4, head_dim=128, layers=6, seq=4096, batch=2, vocab=151936)
    configs = [
        dict(base, name="moe-e128-k8", experts=128, top_k=8, expert_ffn=768),  # Qwen3-30B-A3B's layer
        dict(base, name="moe-e32-k2", experts=32, top_k=2, expert_ffn=3072),
        dict(base, name="moe-e8-k1", experts=8, top_k=1, expert_ffn=6144),
        dict(base, name="dense-ffn6144", experts=0, top_k=1, expert_ffn=6144),
    ]
    if args.quick:
        configs = configs[:1]
    results = []
    nvml = NvmlWindow()
    env = environment(nvml, cudnn=torch.backends.cudnn.version())
    for cfg in configs:
        t0 = time.time()
        r = time_training_steps(lambda: Model(cfg), cfg, steps=4 if args.quick else 8, warmup=3, nvml=nvml)
        n = r["timed_steps_nvml"]
        k = r["kernel_ms_by_category"]
        print(f"moe_step: {r['name']} {r['params'] / 1e9:.2f} B params: step {r['step_ms_median']:.1f} ms "
              f"(fwd+bwd {r['fwd_bwd_ms_median']:.1f} ms; kernels {sum(k['by_category_ms'].values()):.1f} ms in "
              f"{sum(k['kernels_by_category'].values())}) {n['sm_mhz_median']:.0f} MHz {n['watts_median']:.0f} W "
              f"[{time.time() - t0:.0f} s]", file=sys.stderr, flush=True)
        results.append(r)
        write_results(args.out, env, results)


if __name__ == "__main__":
    main()
