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
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from cs_bench import NvmlWindow, environment, time_training_steps, write_results


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
    nvml = NvmlWindow()
    env = environment(nvml, cudnn=torch.backends.cudnn.version())
    for cfg in configs:
        t0 = time.time()
        r = time_training_steps(lambda: GPT(cfg["vocab"], cfg["seq"], cfg["hidden"], cfg["layers"], cfg["heads"]),
                                cfg, steps=5 if args.quick else 10, warmup=3, nvml=nvml)
        n = r["timed_steps_nvml"]
        print(f"gpt_step: {r['name']} {r['params'] / 1e9:.2f} B params: step {r['step_ms_median']:.1f} ms "
              f"(fwd+bwd {r['fwd_bwd_ms_median']:.1f} ms) {n['sm_mhz_median']:.0f} MHz {n['watts_median']:.0f} W "
              f"{n['temp_c_max']:.0f} C [{time.time() - t0:.0f} s]", file=sys.stderr, flush=True)
        results.append(r)
        write_results(args.out, env, results)


if __name__ == "__main__":
    main()
