"""What the serving measurements share: the CSV they write, the provenance every row carries, random non-zero
inputs, and timing as a serving engine's decode loop runs (calls replayed from a CUDA graph, GPU never waiting
on the host).

Rows start with the columns of clustersim's samples file (format v2, sim/store/calibration_sample.hpp) and add
the serving ones after them (kv_heads, ctx, tokens, model, method, ...) and, on every row, the GPU, driver,
torch and CUDA versions and the date, so that each file stands alone. NVML's SM clock and board power are the
medians over each sample's own timed window (NvmlWindow of calibrate/pytorch's shared helpers).
"""
import csv
import datetime
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))

import torch  # noqa: E402

# The shared PyTorch helpers (calibrate/pytorch/cs_bench.py), re-exported to the serving scripts.
from cs_bench import COLUMNS, NvmlWindow, pynvml, quantile, sleep_cycles, time_launches  # noqa: E402

EXTRA = ("kv_heads,ctx,tokens,model,method,inner,flops,gb_per_s,tflop_per_s,host_s,kernels,kernel,note,"
         "power_limit_w,gpu,driver,torch,cuda,date")
HEADER = (COLUMNS + "," + EXTRA).split(",")


def driver_version():
    try:
        pynvml.nvmlInit()
        v = pynvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:  # noqa: BLE001 - no NVML: the column stays empty
        return ""


class RowWriter:
    """One CSV file of samples; every row gets the provenance columns. Rows are flushed as written, so a run
    stopped by its time cap keeps what it measured."""

    def __init__(self, path, nvml, clocks="burst"):
        self.f = open(path, "w", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=HEADER, extrasaction="raise")
        self.w.writeheader()
        self.nvml = nvml
        self.base = {
            "ranks": 1, "clocks": clocks, "gpu": torch.cuda.get_device_name(0), "driver": driver_version(),
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "power_limit_w": f"{nvml.power_limit_w:.0f}" if nvml.ok else "",
        }

    def write(self, timing=None, **cols):
        """One row: the timing dict of time_graph/time_steps (median, quantiles, window) and any columns."""
        row = {k: "" for k in HEADER}
        row.update(self.base)
        if timing:
            mhz, watts, temp, reasons = self.nvml.window(timing["t0"], timing["t1"])
            row.update(median_s=f"{timing['median_s']:.9g}", p10_s=f"{timing['p10_s']:.9g}",
                       p90_s=f"{timing['p90_s']:.9g}", reps=timing["reps"], inner=timing.get("inner", 1),
                       method=timing["method"], sm_mhz=f"{mhz:.0f}", watts=f"{watts:.1f}", temp_c=f"{temp:.0f}",
                       throttle=reasons)
            med = timing["median_s"]
            if cols.get("bytes"):
                row["gb_per_s"] = f"{cols['bytes'] / med * 1e-9:.1f}"
            if cols.get("flops"):
                row["tflop_per_s"] = f"{cols['flops'] / med * 1e-12:.2f}"
        for k, v in cols.items():
            row[k] = clean(v) if isinstance(v, str) else v
        if timing and timing.get("why"):
            row["note"] = clean((row["note"] + "; " if row["note"] else "") + timing["why"])
        self.w.writerow(row)
        self.f.flush()
        return row

    def close(self):
        self.f.close()


def clean(s, limit=160):
    """A free-text cell kept to one line with no commas (kernel names carry template arguments)."""
    return s.replace("\n", " ").replace(",", ";").replace("\r", " ")[:limit]


def fill_(t, lo=-1.0, hi=1.0):
    """Random non-zero values in place (zeros run faster than real data); works on bf16 without an fp32 copy."""
    return t.uniform_(lo, hi)


def rand(shape, dtype=torch.bfloat16, scale=1.0):
    return fill_(torch.empty(shape, device="cuda", dtype=dtype), -scale, scale)


def copies_for(set_bytes, l2_bytes=None, cap=256):
    """Input sets to rotate over so that 3x the L2 cache is touched between reuses (as attention_bench.py)."""
    l2 = l2_bytes or getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    return max(1, min(cap, math.ceil(3 * l2 / max(set_bytes, 1))))


def _summary(per, inner, method, t0, t1):
    return {"median_s": quantile(per, 0.5), "p10_s": quantile(per, 0.1), "p90_s": quantile(per, 0.9),
            "reps": len(per), "inner": inner, "method": method, "t0": t0, "t1": t1}


def _capture(fn, inner):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(inner):
            fn(i)
    return g


def _replay_once(g):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    g.replay()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e-3


def time_graph(fn, budget_s=0.03, target_rep_s=1e-3, max_inner=400, min_reps=5, max_reps=25):
    """GPU time of one call of fn(i) (i selects the rotating input set), as a CUDA-graph decode loop runs it:
    `inner` calls captured into one graph, replays back to back between CUDA events, the median, 10th and 90th
    percentile per call over the repetitions. A call that cannot be captured is timed with the shared helpers'
    back-to-back eager launches (time_launches) instead, method 'eager'. t0/t1: the monotonic window of the timed
    replays."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(3):
            fn(i)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for i in range(5):
        fn(i)
    b.record()
    b.synchronize()
    est = max(a.elapsed_time(b) * 1e-3 / 5, 1e-7)  # an upper bound: eager launches may be host-bound
    inner = max(1, min(max_inner, math.ceil(target_rep_s / est)))
    try:
        g = _capture(fn, inner)
        rep = _replay_once(g)
        if rep < 0.5 * target_rep_s and inner < max_inner:
            inner = max(1, min(max_inner, math.ceil(inner * target_rep_s / max(rep, 1e-7))))
            del g
            g = _capture(fn, inner)
            rep = _replay_once(g)
        _replay_once(g)
    except Exception as e:  # noqa: BLE001 - fall back to eager timing, with the reason kept
        torch.cuda.synchronize()
        med, p10, p90, reps, t0, t1 = time_launches(fn, budget_s)
        out = {"median_s": med, "p10_s": p10, "p90_s": p90, "reps": reps, "inner": 0, "method": "eager",
               "t0": t0, "t1": t1, "why": f"graph capture failed: {e}"}
        return out
    reps = max(min_reps, min(max_reps, int(budget_s / max(rep, 1e-7))))
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    t0 = time.monotonic()
    for x, y in ev:
        x.record()
        g.replay()
        y.record()
    torch.cuda.synchronize()
    t1 = time.monotonic()
    per = [x.elapsed_time(y) * 1e-3 / inner for x, y in ev]
    del g
    return _summary(per, inner, "graph", t0, t1)


def kernel_info(fn):
    """(number of GPU kernels one call launches, name of the longest one), from torch.profiler."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(0)
        torch.cuda.synchronize()
    evs = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    if not evs:
        return 0, ""

    def dur(e):
        try:
            return e.time_range.elapsed_us()
        except Exception:  # noqa: BLE001
            return 0

    top = max(evs, key=dur)
    return len(evs), top.name.split("(")[0]


class Deadline:
    """A script's own time cap: sweeps stop cleanly (and say so) before the shell's `timeout` would kill them."""

    def __init__(self, max_s):
        self.start = time.monotonic()
        self.max_s = max_s

    def elapsed(self):
        return time.monotonic() - self.start

    def over(self):
        return self.max_s > 0 and self.elapsed() > self.max_s


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def free():
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


__all__ = ["NvmlWindow", "RowWriter", "time_graph", "kernel_info", "rand", "fill_", "copies_for", "Deadline",
           "log", "free", "quantile", "sleep_cycles"]
