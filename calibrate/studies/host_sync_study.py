#!/usr/bin/env python3
"""What a per-layer device-to-host synchronisation costs an eager MoE training step, and what the host spends per
kernel launch: the data behind the simulator's host-issue model (docs/validation.md, "Host-bound eager steps").

The model is moe_step.py's Qwen3-MoE-shaped stack. Each configuration runs with two routings that give the GPU
exactly the same kernels (every expert receives the same number of token copies, as Megatron-Core's
moe_router_force_load_balancing does):
  balanced  the per-expert counts are copied to the host before the expert GEMMs (the dropless alltoall
            dispatcher's synchronisation): the host cannot queue work past that point until the GPU reaches it;
  static    the host knows the splits in advance (a padded capacity): no synchronisation.
Per step it records the GPU time of forward+backward (CUDA events), the host time until backward() returns
(the host issue time; with `static` and a GPU that keeps up, the host's own cost), and the kernel count
(profiler). Tiny configurations (256 tokens) make the GPU work negligible, so their time is the host's.
"""
import argparse
import os
import statistics
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from moe_step import MoE, Model

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, kernel_count, write_results  # noqa: E402


# moe_step.py's model at full size (2 x 4,096 tokens) and tiny (256 tokens: the GPU's work is negligible), also
# host_phase_study.py's.
BASE = dict(hidden=2048, heads=32, kv_heads=4, head_dim=128, layers=6, vocab=151936)
CONFIGS = [
    dict(BASE, name="moe-e128-k8", seq=4096, batch=2, experts=128, top_k=8, expert_ffn=768),
    dict(BASE, name="moe-e32-k2", seq=4096, batch=2, experts=32, top_k=2, expert_ffn=3072),
    dict(BASE, name="moe-e128-k8-tiny", seq=256, batch=1, experts=128, top_k=8, expert_ffn=768),
    dict(BASE, name="moe-e32-k2-tiny", seq=256, batch=1, experts=32, top_k=2, expert_ffn=3072),
    dict(BASE, name="dense-tiny", seq=256, batch=1, experts=0, top_k=1, expert_ffn=6144, vocab=2048),
]


def routings(cfg):
    """The routings a configuration runs with: both for MoE layers, `static` alone (no routing) for a dense FFN."""
    return ("static",) if cfg["experts"] == 0 else ("balanced", "static")


def setup(cfg, routing):
    """moe_step.py's model of `cfg` in bf16 with every MoE layer routing as `routing`, and one batch of tokens and
    targets (also host_phase_study.py's)."""
    torch.manual_seed(0)
    model = Model(cfg).cuda().to(torch.bfloat16)
    for m in model.modules():
        if isinstance(m, MoE):
            m.routing = routing
    idx = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device="cuda")
    tgt = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device="cuda")
    return model, idx, tgt


def select(ap, configs, only):
    """The configurations `--only` names (comma-separated; all where empty); an unknown name is an argparse error."""
    if not only:
        return configs
    names = only.split(",")
    unknown = sorted(set(names) - {c["name"] for c in configs})
    if unknown:
        ap.error(f"unknown configuration(s) {', '.join(unknown)}; known: {', '.join(c['name'] for c in configs)}")
    return [c for c in configs if c["name"] in names]


def time_eager_steps(model, idx, tgt, steps, warmup, split=False):
    """Forward and backward of `model` on one batch, `steps` times after `warmup`, each started with the gradients
    cleared and the GPU idle. Per timed step: the host's time until backward() returns (`host_ms`) and the GPU's
    between CUDA events (`gpu_step_ms`); with `split`, an event where the forward returns splits both into
    `host_fwd_ms` / `host_bwd_ms` and `gpu_fwd_ms` / `gpu_bwd_ms` (host_phase_study.py). Returns the lists by
    name and the monotonic window of the timed steps."""
    rec = {k: [] for k in ("host_ms", "gpu_step_ms") + (("host_fwd_ms", "host_bwd_ms", "gpu_fwd_ms", "gpu_bwd_ms")
                                                         if split else ())}
    t_timed = None
    for i in range(warmup + steps):
        if i == warmup:
            t_timed = time.monotonic()
        for p in model.parameters():
            p.grad = None
        torch.cuda.synchronize()
        a, m, b = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        h0 = time.perf_counter()
        a.record()
        loss = model(idx, tgt)
        if split:
            m.record()
        h1 = time.perf_counter()
        loss.backward()
        b.record()
        h2 = time.perf_counter()
        b.synchronize()
        if i >= warmup:
            rec["host_ms"].append((h2 - h0) * 1e3)
            rec["gpu_step_ms"].append(a.elapsed_time(b))
            if split:
                rec["host_fwd_ms"].append((h1 - h0) * 1e3)
                rec["host_bwd_ms"].append((h2 - h1) * 1e3)
                rec["gpu_fwd_ms"].append(a.elapsed_time(m))
                rec["gpu_bwd_ms"].append(m.elapsed_time(b))
    return rec, (t_timed, time.monotonic())


def run(cfg, routing, steps, warmup, nvml):
    model, idx, tgt = setup(cfg, routing)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        rec, window = time_eager_steps(model, idx, tgt, steps, warmup)
        kernels = kernel_count(lambda: model(idx, tgt).backward())
    del model
    torch.cuda.empty_cache()
    gpu_ms, host_ms = rec["gpu_step_ms"], rec["host_ms"]
    return dict(cfg, routing=routing, fwd_bwd_ms_median=statistics.median(gpu_ms), fwd_bwd_ms_min=min(gpu_ms),
                host_issue_ms_median=statistics.median(host_ms), kernels=kernels, steps=steps, warmup=warmup,
                nvml=nvml.summary(*window))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated configuration names to run (default: all)")
    args = ap.parse_args()
    configs = select(ap, CONFIGS, args.only)
    nvml = NvmlWindow()
    env = environment(nvml)
    results = []
    for cfg in configs:
        for routing in routings(cfg):
            t0 = time.time()
            r = run(cfg, routing, steps=10, warmup=4, nvml=nvml)
            print(f"host_sync_study: {r['name']} {routing}: fwd+bwd {r['fwd_bwd_ms_median']:.2f} ms (GPU events), "
                  f"host issue {r['host_issue_ms_median']:.2f} ms, {r['kernels']} kernels, "
                  f"{r['nvml']['sm_mhz_median']:.0f} MHz {r['nvml']['watts_median']:.0f} W [{time.time() - t0:.0f} s]",
                  file=sys.stderr, flush=True)
            results.append(r)
            write_results(args.out, env, results)


if __name__ == "__main__":
    main()
