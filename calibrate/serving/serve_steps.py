#!/usr/bin/env python3
"""Whole serving steps of llama_decoder.LlamaDecoder with random bf16 weights, measured as
../shared/validation/serving_rows.csv was: the serving rows' 1.5B shape (16 layers, hidden 2,048, GQA 32/8,
FFN 8,192, vocabulary 128,256) and a Llama 3 8B shape (32 layers, hidden 4,096, GQA 32/8, FFN 14,336).

- `prefill_step` (method eager): one forward over `batch` prompts of `seq` tokens from an empty cache, K/V
  written to it, logits and argmax of each prompt's last token; median of 10 after 3 warm-up steps, each between
  CUDA events and synchronised.
- `decode_step`: one new token for each of `batch` sequences holding `ctx` tokens in a preallocated cache
  (max_len ctx + 64). Three timings of the same step:
  - `graph`: the step captured as a CUDA graph, 50 replays back to back between events (the rows' figure);
  - `eager`: launched from Python, 20 steps each between events and synchronised (the rows' notes' figure);
  - `eager_queued`: the eager launches queued behind a GPU sleep longer than the host needs to issue them, so
    the GPU runs the eager kernels back to back: their GPU time without host starvation (10 steps).
  host_s is the host's time per step: the Python forward's issue time (eager), g.replay()'s (graph).
  kernels: GPU kernels per step (torch.profiler).

    python3 calibrate/serving/serve_steps.py --out steps.csv [--max-s 170]
"""
import argparse
import statistics
import time

import torch

from llama_decoder import LlamaDecoder
from serve_common import Deadline, NvmlWindow, RowWriter, free, kernel_info, log, quantile, sleep_cycles
from shapes import MODELS, VOCAB

STEP_MODELS = {"llama-1.5b": MODELS["llama3.2-1b"], "llama3-8b": MODELS["llama3-8b"]}
PREFILL = ((1, 128), (1, 512), (1, 2048), (1, 8192), (4, 2048), (16, 512))
# Batch 1/8/64 at ctx 512 and 4096 first (the eager-vs-graph study), then the rest of the serving rows' grid.
DECODE = ((1, 512), (8, 512), (64, 512), (1, 4096), (8, 4096), (64, 4096),
          (32, 512), (128, 512), (256, 512), (1, 2048), (8, 2048), (32, 2048), (64, 2048), (128, 2048),
          (1, 8192), (8, 8192), (32, 8192))


def summary(per, host, method, t0, t1):
    return {"median_s": quantile(per, 0.5), "p10_s": quantile(per, 0.1), "p90_s": quantile(per, 0.9),
            "reps": len(per), "inner": 1, "method": method, "t0": t0, "t1": t1,
            "host_s": statistics.median(host) if host else 0.0}


def time_synced(step, n, warm=3, method="eager"):
    for _ in range(warm):
        step()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    per, host = [], []
    t0 = time.monotonic()
    for _ in range(n):
        a.record()
        h0 = time.perf_counter()
        step()
        host.append(time.perf_counter() - h0)
        b.record()
        b.synchronize()
        per.append(a.elapsed_time(b) * 1e-3)
    return summary(per, host, method, t0, time.monotonic())


def time_queued(step, n, host_s):
    """The step's GPU time with every launch queued ahead: a sleep of 1.5x the host's issue time first."""
    cycles = sleep_cycles(max(1.5 * host_s * 1e3, 1.0))
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    per = []
    torch.cuda.synchronize()
    t0 = time.monotonic()
    for _ in range(n):
        torch.cuda._sleep(cycles)
        a.record()
        step()
        b.record()
        b.synchronize()
        per.append(a.elapsed_time(b) * 1e-3)
    return summary(per, [], "eager_queued", t0, time.monotonic())


def time_graph_step(step, n):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        step()
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    host = []
    t0 = time.monotonic()
    for a, b in ev:
        a.record()
        h0 = time.perf_counter()
        g.replay()
        host.append(time.perf_counter() - h0)
        b.record()
    torch.cuda.synchronize()
    t1 = time.monotonic()
    del g
    return summary([a.elapsed_time(b) * 1e-3 for a, b in ev], host, "graph", t0, t1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-s", type=float, default=170.0)
    ap.add_argument("--models", default=",".join(STEP_MODELS))
    args = ap.parse_args()
    dl = Deadline(args.max_s)
    nvml = NvmlWindow()
    out = RowWriter(args.out, nvml)
    for name in args.models.split(","):
        shape = STEP_MODELS[name]
        if dl.over():
            break
        model = LlamaDecoder(shape, max_pos=16384)
        base = dict(kind="serve_step", dtype="bf16", model=name, heads=shape["heads"], kv_heads=shape["kv_heads"],
                    head_dim=shape["hidden"] // shape["heads"], k=shape["hidden"],
                    note=f"{model.params() / 1e9:.2f}B params; {shape['layers']} layers; ffn {shape['ffn']}")
        log(f"serve_steps: {name}: {model.params() / 1e9:.2f}B parameters")
        for b, s in PREFILL:
            if dl.over():
                log(f"serve_steps: time cap reached at {name} prefill b={b} s={s}")
                break
            cols = dict(op="prefill_step", batch=b, seq=s, ctx=0, tokens=b * s, **base)
            try:
                cache = model.new_cache(b, s)
                tok = torch.randint(0, VOCAB, (b, s), device="cuda")
                t = time_synced(lambda: model.forward(tok, 0, cache), 10)
                out.write(t, host_s=f"{t['host_s']:.6g}", **cols)
                log(f"[{dl.elapsed():6.1f} s] {name} prefill b={b} s={s}: {t['median_s'] * 1e3:.3f} ms "
                    f"(host {t['host_s'] * 1e3:.2f} ms)")
            except Exception as e:  # noqa: BLE001
                out.write(None, **dict(cols, note=f"failed: {e}"))
                log(f"{name} prefill b={b} s={s}: failed: {e}")
            cache = tok = None
            free()
        for b, ctx in DECODE:
            if dl.over():
                log(f"serve_steps: time cap reached at {name} decode b={b} ctx={ctx}")
                break
            cols = dict(op="decode_step", batch=b, seq=1, ctx=ctx, tokens=b, **base)
            try:
                cache = model.new_cache(b, ctx + 64)
                tok = torch.randint(0, VOCAB, (b, 1), device="cuda")

                def step():
                    return model.forward(tok, ctx, cache)
                te = time_synced(step, 20)
                kern = kernel_info(lambda i: step())
                tq = time_queued(step, 10, te["host_s"])
                tg = time_graph_step(step, 50)
                for t in (tg, te, tq):
                    out.write(t, host_s=f"{t['host_s']:.6g}" if t["method"] != "eager_queued" else "",
                              kernels=kern[0], kernel=kern[1], **cols)
                log(f"[{dl.elapsed():6.1f} s] {name} decode b={b} ctx={ctx}: graph {tg['median_s'] * 1e3:.3f} ms, "
                    f"eager {te['median_s'] * 1e3:.3f} ms (host {te['host_s'] * 1e3:.2f} ms, "
                    f"{kern[0]} kernels), eager queued {tq['median_s'] * 1e3:.3f} ms, "
                    f"replay host {tg['host_s'] * 1e6:.0f} us")
            except Exception as e:  # noqa: BLE001
                out.write(None, **dict(cols, note=f"failed: {e}"))
                log(f"{name} decode b={b} ctx={ctx}: failed: {e}")
            cache = tok = step = None
            free()
        model = None
        free()
    out.close()
    nvml.close()
    log(f"serve_steps: done in {dl.elapsed():.0f} s")


if __name__ == "__main__":
    main()
