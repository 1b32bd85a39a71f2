#!/usr/bin/env python3
"""A real single-GPU GPT training step in PyTorch, timed, for checking the simulator's prediction.

Model (written out so the simulator can enumerate the same kernels): token + learned position embedding;
`layers` pre-LayerNorm blocks of causal self-attention (QKV and output projections without bias,
scaled_dot_product_attention with the flash backend) and a 4h GELU(tanh) MLP without bias; final LayerNorm;
untied LM head without bias; cross-entropy on bf16 logits. All parameters and AdamW states in bf16
(fused AdamW). The step is zero_grad(set_to_none) + forward + backward + optimizer step; the median over
timed steps after warm-up is reported, with forward+backward alone timed separately.
"""
import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn as nn

from nvml_window import NvmlWindow
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h, bias=False)
        self.proj = nn.Linear(h, h, bias=False)
        self.ln2 = nn.LayerNorm(h)
        self.fc1 = nn.Linear(h, 4 * h, bias=False)
        self.fc2 = nn.Linear(4 * h, h, bias=False)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, h // self.heads).unbind(2)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, h))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab, seq, h, layers, heads):
        super().__init__()
        self.tok = nn.Embedding(vocab, h)
        self.pos = nn.Embedding(seq, h)
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(h)
        self.head = nn.Linear(h, vocab, bias=False)

    def forward(self, idx, targets):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def category(name):
    n = name.lower()
    if "flash" in n or "fmha" in n or "attention" in n:
        return "attention"
    if any(t in n for t in ("gemm", "cutlass", "xmma", "nvjet", "cublas", "matmul")):
        return "gemm"
    if "adam" in n or "multi_tensor" in n:
        return "optimizer"
    return "other"


def profile_step(model, opt, idx, tgt):
    """GPU kernel time of one step by category (gemm, attention, optimizer, other) and the top kernels."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        opt.zero_grad(set_to_none=True)
        model(idx, tgt).backward()
        opt.step()
        torch.cuda.synchronize()
    cats, kernels = {}, []
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", 0.0) / 1e3
        if t <= 0:
            continue
        cats[category(e.key)] = cats.get(category(e.key), 0.0) + t
        kernels.append((t, e.key[:90], e.count))
    kernels.sort(reverse=True)
    return dict(by_category_ms=cats, top_kernels=[dict(ms=t, name=n, count=c) for t, n, c in kernels[:25]])


def run(cfg, steps, warmup, nvml):
    torch.manual_seed(0)
    model = GPT(cfg["vocab"], cfg["seq"], cfg["hidden"], cfg["layers"], cfg["heads"]).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    params = sum(p.numel() for p in model.parameters())
    idx = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device="cuda")
    tgt = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device="cuda")
    step_ms, fb_ms = [], []
    t_timed = None
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        for i in range(warmup + steps):
            if i == warmup:
                t_timed = time.monotonic()
            a, b, c = (torch.cuda.Event(enable_timing=True) for _ in range(3))
            a.record()
            opt.zero_grad(set_to_none=True)
            loss = model(idx, tgt)
            loss.backward()
            b.record()
            opt.step()
            c.record()
            c.synchronize()
            if i >= warmup:
                step_ms.append(a.elapsed_time(c))
                fb_ms.append(a.elapsed_time(b))
        t_end = time.monotonic()
        breakdown = profile_step(model, opt, idx, tgt)
    mhz, watts, temp, reasons = nvml.window(t_timed, t_end)
    res = dict(cfg, params=params, kernel_ms_by_category=breakdown, sdpa_backend="flash", dtype="bf16 params, bf16 AdamW states (fused)",
               step_ms_median=statistics.median(step_ms), step_ms_min=min(step_ms), step_ms_max=max(step_ms),
               fwd_bwd_ms_median=statistics.median(fb_ms), steps=steps, warmup=warmup, loss=float(loss),
               timed_steps_nvml=dict(sm_mhz_median=mhz, watts_median=watts, temp_c_max=temp,
                                     clock_event_reasons=reasons))
    del model, opt
    torch.cuda.empty_cache()
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    configs = [
        dict(name="gpt-1.3b", hidden=2048, layers=24, heads=16, seq=2048, batch=4, vocab=50304),
        dict(name="gpt-2.4b", hidden=3072, layers=20, heads=24, seq=2048, batch=2, vocab=50304),
        dict(name="gpt-3.4b", hidden=4096, layers=16, heads=32, seq=2048, batch=2, vocab=50304),
    ]
    if args.quick:
        configs = configs[:1]
    results = []
    env = dict(torch=torch.__version__, cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
               gpu=torch.cuda.get_device_name(0))
    nvml = NvmlWindow()
    env["power_limit_w"] = nvml.power_limit_w
    for cfg in configs:
        t0 = time.time()
        r = run(cfg, steps=5 if args.quick else 10, warmup=3, nvml=nvml)
        n = r["timed_steps_nvml"]
        print(f"gpt_step: {r['name']} {r['params'] / 1e9:.2f} B params: step {r['step_ms_median']:.1f} ms "
              f"(fwd+bwd {r['fwd_bwd_ms_median']:.1f} ms) {n['sm_mhz_median']:.0f} MHz {n['watts_median']:.0f} W "
              f"{n['temp_c_max']:.0f} C [{time.time() - t0:.0f} s]", file=sys.stderr, flush=True)
        results.append(r)
        with open(args.out, "w") as f:
            json.dump(dict(environment=env, results=results), f, indent=1)


if __name__ == "__main__":
    main()
