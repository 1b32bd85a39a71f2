#!/usr/bin/env python3
"""Where an eager step's host time goes, forward against backward: the data behind the host-issue model's single
cost per launch (docs/validation.md, "Host time by phase").

The model is moe_step.py's Qwen3-MoE-shaped stack, run as host_sync_study.py runs it (routings `balanced`, with
the per-expert counts copied to the host, and `static`, with the splits known in advance; both give the GPU the
same kernels). Per step it records, on the host, the time until the forward returns and the time the backward
call then takes (autograd launches the backward's kernels from its C++ engine thread; Python launches the
forward's), and on the GPU, CUDA events at the step's start, the forward's end and the backward's end. The
profiler counts the forward's kernels and the whole step's. Tiny configurations (256 tokens) leave the GPU
nearly idle, so their phases' times are the host's own.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from host_sync_study import BASE, CONFIGS, routings, select, setup, time_eager_steps

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, kernel_count, profiled, write_results  # noqa: E402


def trace_kernels(fn, path):
    """(start, duration) in us of every GPU kernel of one call of `fn`, from the profiler's trace."""
    profiled(fn).export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    return sorted((e["ts"], e["dur"]) for e in events if e.get("cat") == "kernel" and e.get("ph") == "X")


def kernel_timeline(forward, step, path):
    """GPU kernels of one `step` from the profiler's trace, split where a `forward` alone ends (counted in its own
    trace: the profiler's per-kernel totals also count memsets and copies, run 11's split used those): per phase
    the kernels' busy time, the idle time between them, and the median and 10th-percentile gap."""
    fwd_kernels = len(trace_kernels(forward, path))
    ks = trace_kernels(step, path)
    out = {}
    for phase, part in (("fwd", ks[:fwd_kernels]), ("bwd", ks[fwd_kernels:])):
        gaps = [max(0.0, b[0] - (a[0] + a[1])) for a, b in zip(part, part[1:])]
        gaps_sorted = sorted(gaps) or [0.0]
        out[phase] = dict(kernels=len(part), busy_ms=sum(d for _, d in part) / 1e3, idle_ms=sum(gaps) / 1e3,
                          gap_median_us=statistics.median(gaps_sorted),
                          gap_p10_us=gaps_sorted[len(gaps_sorted) // 10])
    return out


def summary(xs):
    return dict(median=statistics.median(xs), min=min(xs), max=max(xs))


def run(cfg, routing, steps, warmup, nvml, trace_path=None):
    model, idx, tgt = setup(cfg, routing)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        rec, window = time_eager_steps(model, idx, tgt, steps, warmup, split=True)
        del rec["host_ms"]  # host_fwd_ms + host_bwd_ms
        fwd_kernels = kernel_count(lambda: model(idx, tgt))
        step_kernels = kernel_count(lambda: model(idx, tgt).backward())
        timeline = (kernel_timeline(lambda: model(idx, tgt), lambda: model(idx, tgt).backward(), trace_path)
                    if trace_path else None)
    reading = nvml.summary(*window)
    del model
    torch.cuda.empty_cache()
    out = dict(cfg, routing=routing, steps=steps, warmup=warmup, fwd_kernels=fwd_kernels,
               bwd_kernels=step_kernels - fwd_kernels, nvml=reading)
    for k, xs in rec.items():
        out[k] = summary(xs)
    if timeline:
        out["timeline"] = timeline
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--only", default="", help="comma-separated configuration names to run (default: all)")
    ap.add_argument("--timeline", default="", help="directory for one profiled step's trace per run: adds each "
                    "phase's kernel busy and idle time (default: none)")
    args = ap.parse_args()
    # host_sync_study.py's configurations and a full-size dense one.
    configs = CONFIGS[:2] + [dict(BASE, name="dense-ffn6144", seq=4096, batch=2, experts=0, top_k=1,
                                  expert_ffn=6144)] + CONFIGS[2:]
    configs = select(ap, configs, args.only)
    if args.timeline:
        os.makedirs(args.timeline, exist_ok=True)
    nvml = NvmlWindow()
    env = environment(nvml)
    results = []
    for cfg in configs:
        for routing in routings(cfg):
            t0 = time.time()
            trace = f"{args.timeline}/{cfg['name']}-{routing}.json" if args.timeline else None
            r = run(cfg, routing, steps=args.steps, warmup=4, nvml=nvml, trace_path=trace)
            print(f"host_phase_study: {r['name']} {routing}: host fwd {r['host_fwd_ms']['median']:.2f} / bwd "
                  f"{r['host_bwd_ms']['median']:.2f} ms, GPU fwd {r['gpu_fwd_ms']['median']:.2f} / bwd "
                  f"{r['gpu_bwd_ms']['median']:.2f} ms (step min {r['gpu_step_ms']['min']:.2f}), kernels "
                  f"{r['fwd_kernels']} / {r['bwd_kernels']}, {r['nvml']['sm_mhz_median']:.0f} MHz "
                  f"{r['nvml']['watts_median']:.0f} W [{time.time() - t0:.0f} s]", file=sys.stderr, flush=True)
            for phase, t in r.get("timeline", {}).items():
                print(f"  {phase}: {t['kernels']} kernels busy {t['busy_ms']:.2f} ms, idle {t['idle_ms']:.2f} ms, "
                      f"gap median {t['gap_median_us']:.1f} us, p10 {t['gap_p10_us']:.1f} us", file=sys.stderr, flush=True)
            results.append(r)
            write_results(args.out, env, results)


if __name__ == "__main__":
    main()
