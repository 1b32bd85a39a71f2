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
import json
import statistics
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from moe_step import MoE, Model
from nvml_window import NvmlWindow


def kernel_count(model, idx, tgt):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        model(idx, tgt).backward()
        torch.cuda.synchronize()
    return sum(e.count for e in prof.key_averages() if getattr(e, "self_device_time_total", 0.0) > 0)


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


def run(cfg, routing, steps, warmup, nvml):
    model, idx, tgt = setup(cfg, routing)
    gpu_ms, host_ms = [], []
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        t_timed = None
        for i in range(warmup + steps):
            if i == warmup:
                t_timed = time.monotonic()
            for p in model.parameters():
                p.grad = None
            torch.cuda.synchronize()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            h0 = time.perf_counter()
            a.record()
            model(idx, tgt).backward()
            b.record()
            h1 = time.perf_counter()
            b.synchronize()
            if i >= warmup:
                gpu_ms.append(a.elapsed_time(b))
                host_ms.append((h1 - h0) * 1e3)
        t_end = time.monotonic()
        kernels = kernel_count(model, idx, tgt)
    mhz, watts, temp, reasons = nvml.window(t_timed, t_end)
    del model
    torch.cuda.empty_cache()
    return dict(cfg, routing=routing, fwd_bwd_ms_median=statistics.median(gpu_ms), fwd_bwd_ms_min=min(gpu_ms),
                host_issue_ms_median=statistics.median(host_ms), kernels=kernels, steps=steps, warmup=warmup,
                nvml=dict(sm_mhz_median=mhz, watts_median=watts, temp_c_max=temp, clock_event_reasons=reasons))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated configuration names to run (default: all)")
    args = ap.parse_args()
    base = dict(hidden=2048, heads=32, kv_heads=4, head_dim=128, layers=6, vocab=151936)
    configs = [
        dict(base, name="moe-e128-k8", seq=4096, batch=2, experts=128, top_k=8, expert_ffn=768),
        dict(base, name="moe-e32-k2", seq=4096, batch=2, experts=32, top_k=2, expert_ffn=3072),
        dict(base, name="moe-e128-k8-tiny", seq=256, batch=1, experts=128, top_k=8, expert_ffn=768),
        dict(base, name="moe-e32-k2-tiny", seq=256, batch=1, experts=32, top_k=2, expert_ffn=3072),
        dict(base, name="dense-tiny", seq=256, batch=1, experts=0, top_k=1, expert_ffn=6144, vocab=2048),
    ]
    env = dict(torch=torch.__version__, cuda=torch.version.cuda, gpu=torch.cuda.get_device_name(0))
    nvml = NvmlWindow()
    env["power_limit_w"] = nvml.power_limit_w
    results = []
    configs = select(ap, configs, args.only)
    for cfg in configs:
        for routing in (("static",) if cfg["experts"] == 0 else ("balanced", "static")):
            t0 = time.time()
            r = run(cfg, routing, steps=10, warmup=4, nvml=nvml)
            print(f"host_sync_study: {r['name']} {routing}: fwd+bwd {r['fwd_bwd_ms_median']:.2f} ms (GPU events), "
                  f"host issue {r['host_issue_ms_median']:.2f} ms, {r['kernels']} kernels, "
                  f"{r['nvml']['sm_mhz_median']:.0f} MHz {r['nvml']['watts_median']:.0f} W [{time.time() - t0:.0f} s]",
                  file=sys.stderr, flush=True)
            results.append(r)
            with open(args.out, "w") as f:
                json.dump(dict(environment=env, results=results), f, indent=1)


if __name__ == "__main__":
    main()
