#!/usr/bin/env python3
"""One job of a co-location measurement: a training loop or a decode loop on GPU 0, timed over a window that the
driver (run_on_gpu.sh) gives every job of a pair, so that both are measured while both run.

  colocate_job.py --role train  --start-at EPOCH --window S --out FILE.json
  colocate_job.py --role decode --batch 16 --ctx 1024 [--eager] --start-at EPOCH --window S --out FILE.json

train:  calibrate/pytorch/gpt_step.py's GPT (1.3B: hidden 2048, 24 layers, 16 heads) at batch x seq tokens, bf16
        parameters and fused AdamW; one step = zero_grad + forward + backward + optimizer step, synchronised.
decode: calibrate/serving/llama_decoder.py's Llama decoder (llama3.2-1b shape, the serving rows' 1.5B model), one
        token for each of `batch` sequences holding `ctx` tokens, argmax read back to the host each step (as a
        serving engine samples), replayed from a CUDA graph unless --eager.

Before the window the job warms up, measures its kernel time per step with the profiler (its GPU demand when alone:
busy fraction = kernel time / step time), and records its peak memory. In the window it records every step's wall
time. NVML (SM clock, board power) is summarised over the window. The JSON: role, config, steps, median/p10/p90
step time, kernel time per step, peak memory, the window's clock and power, and the MPS thread percentage if set.
"""
import argparse
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "pytorch"))
sys.path.insert(0, os.path.join(here, "..", "serving"))

import torch  # noqa: E402

from cs_bench import NvmlWindow, quantile  # noqa: E402


def kernel_ms_per_step(step, steps=5):
    """Sum of CUDA kernel (and memcpy/memset) device time per step, from the profiler."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    total_us = 0.0
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            total_us += ev.device_time
    return total_us / 1000.0 / steps


def make_train(args):
    from gpt_step import GPT
    from torch.nn.attention import SDPBackend, sdpa_kernel
    torch.manual_seed(0)
    vocab = 50304
    with torch.device("cuda"):  # initialised on the GPU: a CPU init of 1.3B parameters takes tens of seconds
        model = GPT(vocab, args.seq, 2048, 24, 16).to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    idx = torch.randint(0, vocab, (args.batch, args.seq), device="cuda")
    tgt = torch.randint(0, vocab, (args.batch, args.seq), device="cuda")
    ctx = sdpa_kernel([SDPBackend.FLASH_ATTENTION])
    ctx.__enter__()

    def step():
        opt.zero_grad(set_to_none=True)
        model(idx, tgt).backward()
        opt.step()

    config = dict(model="gpt-1.3b", params=sum(p.numel() for p in model.parameters()), batch=args.batch,
                  seq=args.seq, dtype="bf16, fused AdamW")
    return step, config


def make_decode(args):
    from llama_decoder import LlamaDecoder
    from shapes import MODELS
    torch.manual_seed(0)
    shape = MODELS["llama3.2-1b"]
    model = LlamaDecoder(shape, args.ctx + 8)
    cache = model.new_cache(args.batch, args.ctx + 8)
    tok = torch.randint(0, 1000, (args.batch, 1), device="cuda")
    pos = args.ctx

    def eager():
        return model.forward(tok, pos, cache)

    if args.eager:
        def step():
            eager().cpu()
    else:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                eager()
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = eager()

        def step():
            graph.replay()
            out.cpu()

    config = dict(model="llama3.2-1b", params=model.params(), batch=args.batch, ctx=args.ctx,
                  cuda_graphs=not args.eager, dtype="bf16")
    return step, config


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--role", choices=("train", "decode"), required=True)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--ctx", type=int, default=1024)
    ap.add_argument("--eager", action="store_true")
    ap.add_argument("--start-at", type=float, required=True, help="epoch seconds the timed window starts")
    ap.add_argument("--window", type=float, required=True, help="seconds")
    ap.add_argument("--name", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    nvml = NvmlWindow()
    torch.cuda.reset_peak_memory_stats()
    step, config = (make_train if args.role == "train" else make_decode)(args)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    # Alone-demand probe: only meaningful when nothing else runs yet, which the driver arranges by starting the
    # window late enough; the value is recorded either way with the time it was taken.
    t_probe = time.time()
    kernel_ms = kernel_ms_per_step(step)
    t0 = time.perf_counter()
    n = 0
    while n < 5:
        step()
        n += 1
    torch.cuda.synchronize()
    probe_step_ms = (time.perf_counter() - t0) / n * 1000.0
    late = time.time() > args.start_at
    while time.time() < args.start_at:
        step()  # keep the GPU and its clock where the job runs it
    torch.cuda.synchronize()
    times = []
    # A job that missed the window's start still times `window` seconds (flagged started_late: it overlapped its
    # partner for less than the window).
    end = max(args.start_at, time.time()) + args.window
    m0 = time.monotonic()
    while time.time() < end:
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    m1 = time.monotonic()
    mhz, watts, temp, reasons = nvml.window(m0, m1)
    res = dict(name=args.name, role=args.role, config=config, steps=len(times),
               step_s_median=statistics.median(times), step_s_p10=quantile(times, 0.1),
               step_s_p90=quantile(times, 0.9), step_s_mean=sum(times) / len(times),
               probe_kernel_ms_per_step=kernel_ms, probe_step_ms=probe_step_ms,
               probe_busy_fraction=min(1.0, kernel_ms / probe_step_ms), probe_epoch_s=t_probe,
               started_late=late, window_s=args.window,
               peak_memory_gib=torch.cuda.max_memory_allocated() / 2**30,
               reserved_memory_gib=torch.cuda.memory_reserved() / 2**30,
               mps_active_thread_percentage=os.environ.get("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", ""),
               window_sm_mhz_median=mhz, window_watts_median=watts, window_temp_c_max=temp,
               window_clock_event_reasons=reasons, gpu=torch.cuda.get_device_name(0), torch=torch.__version__)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"{args.name}: {args.role} {len(times)} steps, median {res['step_s_median'] * 1e3:.2f} ms "
          f"(alone probe {probe_step_ms:.2f} ms, kernels {kernel_ms:.2f} ms), {mhz:.0f} MHz {watts:.0f} W"
          f"{' STARTED LATE' if late else ''}", file=sys.stderr, flush=True)
    nvml.close()


if __name__ == "__main__":
    main()
