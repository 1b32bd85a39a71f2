#!/usr/bin/env python3
"""Where a training step's host and GPU wait for each other, from one profiled call (a Chrome trace of CUDA
runtime calls and kernels, as torch.profiler writes it with ProfilerActivity.CUDA alone: no per-operator CPU
instrumentation, so the host runs at its own speed).

The forward launches from the Python thread, autograd's backward from its device thread, so each maximal run of
launches from one thread is a phase: one micro-batch's forward or backward. Per phase it reports the wall time
(from its first launch to the next phase's first launch), the host's launch calls, the GPU's busy time over the
kernels it launched, and the calls that made the host wait for the GPU (stream / device / event
synchronisations, device-to-host copies; a device-to-device copy and a GPU-side event wait are not): how many and
how long. Summed by kind of phase, divided by micro-batches. Over the whole call, `host_waits` lists every CUDA
call that held the host 50 us or more by name (allocator calls too), with the kernels that most often ended last
before such a call returned: what the host waited for.

Usage: trace_phases.py TRACE.json[.gz] [--micro-batches N]   (or import summarise())
"""
import argparse
import bisect
import gzip
import json

SYNC_WORDS = ("Synchronize", "cudaMemcpy")
LAUNCH_WORDS = ("LaunchKernel", "cudaLaunchCooperativeKernel", "cuLaunchKernel", "cudaGraphLaunch",
                "cudaMemsetAsync", "cudaMemcpyAsync")


def _union_us(intervals):
    total, end = 0.0, float("-inf")
    for s, e in sorted(intervals):
        if e <= end:
            continue
        total += e - max(s, end)
        end = e
    return total


def is_host_sync(call, by_corr):
    """Whether a CUDA runtime call makes the host wait for the GPU: a synchronisation, or a copy whose GPU side
    is device-to-host (an asynchronous device-to-device copy returns at once)."""
    name = call["name"]
    if "Synchronize" in name:
        return True
    if "cudaMemcpy" not in name:
        return False
    copies = by_corr.get(call.get("args", {}).get("correlation"), [])
    return any("DtoH" in k["name"] for k in copies) or (not copies and "Async" not in name)


def host_waits(runtime, kernels, micro_batches, floor_us=50.0, top=8):
    """Every CUDA call of `floor_us` or more, by name (count and ms per micro-batch), each with the kernels that
    most often ended last before it returned."""
    ends = sorted((k["ts"] + k["dur"], k["name"][:80]) for k in kernels if k.get("cat") == "kernel")
    end_times = [t for t, _ in ends]
    out = {}
    for e in runtime:
        if e["dur"] < floor_us:
            continue
        w = out.setdefault(e["name"], {"count": 0, "ms": 0.0, "waited_for": {}})
        w["count"] += 1
        w["ms"] += e["dur"] / 1e3
        i = bisect.bisect_right(end_times, e["ts"] + e["dur"]) - 1
        if i >= 0 and end_times[i] > e["ts"]:  # a kernel ended while the call held the host
            name = ends[i][1]
            w["waited_for"][name] = w["waited_for"].get(name, 0) + 1
    result = {}
    for name, w in sorted(out.items(), key=lambda kv: -kv[1]["ms"]):
        result[name] = {"per_micro_batch": w["count"] / micro_batches, "ms_per_micro_batch": w["ms"] / micro_batches,
                        "waited_for": dict(sorted(w["waited_for"].items(), key=lambda kv: -kv[1])[:top])}
    return result


def summarise(events, micro_batches=1, sync_floor_us=20.0):
    runtime = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver")]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    by_corr = {}
    for k in kernels:
        c = k.get("args", {}).get("correlation")
        if c is not None:
            by_corr.setdefault(c, []).append(k)
    runtime.sort(key=lambda e: e["ts"])
    if not runtime:
        return {"error": "no CUDA runtime events in the trace"}
    main_tid = runtime[0]["tid"]
    phases, cur = [], None
    for e in runtime:
        if not any(w in e["name"] for w in LAUNCH_WORDS + SYNC_WORDS):
            continue
        if cur is None or e["tid"] != cur["tid"]:
            cur = {"tid": e["tid"], "t0": e["ts"], "launches": 0, "launch_us": 0.0, "syncs": [], "kernels": []}
            phases.append(cur)
        if any(w in e["name"] for w in LAUNCH_WORDS):
            cur["launches"] += 1
            cur["launch_us"] += e["dur"]
        if is_host_sync(e, by_corr) and e["dur"] >= sync_floor_us:
            cur["syncs"].append((e["name"], e["dur"]))
        cur["kernels"] += by_corr.get(e.get("args", {}).get("correlation"), [])
    end_all = max([k["ts"] + k["dur"] for k in kernels] + [runtime[-1]["ts"] + runtime[-1]["dur"]])
    out = {}
    for i, p in enumerate(phases):
        kind = "forward" if p["tid"] == main_tid else "backward"
        t1 = phases[i + 1]["t0"] if i + 1 < len(phases) else end_all
        busy = _union_us([(k["ts"], k["ts"] + k["dur"]) for k in p["kernels"]])
        s = out.setdefault(kind, {"phases": 0, "wall_ms": 0.0, "gpu_busy_ms": 0.0, "kernels": 0, "launches": 0,
                                  "launch_call_ms": 0.0, "syncs": 0, "sync_wait_ms": 0.0, "sync_by_name": {}})
        s["phases"] += 1
        s["wall_ms"] += (t1 - p["t0"]) / 1e3
        s["gpu_busy_ms"] += busy / 1e3
        s["kernels"] += len(p["kernels"])
        s["launches"] += p["launches"]
        s["launch_call_ms"] += p["launch_us"] / 1e3
        for name, dur in p["syncs"]:
            s["syncs"] += 1
            s["sync_wait_ms"] += dur / 1e3
            n = s["sync_by_name"].setdefault(name, [0, 0.0])
            n[0] += 1
            n[1] += dur / 1e3
    for s in out.values():
        for key in ("wall_ms", "gpu_busy_ms", "kernels", "launches", "launch_call_ms", "syncs", "sync_wait_ms"):
            s[key + "_per_micro_batch"] = s.pop(key) / micro_batches
        s["sync_by_name"] = {n: {"per_micro_batch": c / micro_batches, "ms_per_micro_batch": t / micro_batches}
                             for n, (c, t) in s["sync_by_name"].items()}
    span = (end_all - runtime[0]["ts"]) / 1e3
    busy_all = _union_us([(k["ts"], k["ts"] + k["dur"]) for k in kernels]) / 1e3
    out["call"] = {"wall_ms_per_micro_batch": span / micro_batches,
                   "gpu_busy_ms_per_micro_batch": busy_all / micro_batches,
                   "gpu_idle_ms_per_micro_batch": (span - busy_all) / micro_batches}
    out["host_waits"] = host_waits(runtime, kernels, micro_batches)
    return out


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    return data["traceEvents"] if isinstance(data, dict) else data


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--micro-batches", type=int, default=1)
    args = ap.parse_args()
    print(json.dumps(summarise(load(args.trace), args.micro_batches), indent=1))


if __name__ == "__main__":
    main()
