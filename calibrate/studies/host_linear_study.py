#!/usr/bin/env python3
"""How fast this host issues PyTorch work, on the yardstick Transformer Engine issue #2053 published for three
hosts: the host time of one torch.nn.Linear forward (bf16, hidden 2,048, 8,192 tokens). That issue measured
13.48 us on a DGX H100 (Xeon Platinum 8480C), 33.17 us on a GH200 and 37.08 us on a GB200 (Grace), so this
host's figure places the host costs calibrated here (pytorch-eager.yaml: host_launch_cost and the native-loop costs, measured on
this project's device hosts) against the hosts of DGX H100 and Grace-based systems (docs/validation.md).

For each case the host time per call is taken with the GPU kept busy by a sleep queued first, so the host never
waits for the GPU (the calls queue behind it; 200 calls stay far below the launch queue's depth), the median of
several repetitions; the GPU time per call is taken the same way from CUDA events. NVML clock, power and
temperature are recorded over each case, and the host CPU's model with the result.
"""
import argparse
import json
import os
import platform
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, host_time_queued  # noqa: E402


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def measure(name, fn, calls, reps, nvml):
    host, gpu, (t0, t1) = host_time_queued(fn, calls, reps, sleep_ms=60.0)
    r = dict(name=name, calls=calls, repetitions=reps,
             host_us_per_call_median=statistics.median(host), host_us_per_call_min=min(host),
             gpu_us_per_call_median=statistics.median(gpu), nvml=nvml.summary(t0, t1))
    print(f"host_linear_study: {name}: host {r['host_us_per_call_median']:.2f} us/call (min "
          f"{r['host_us_per_call_min']:.2f}), GPU {r['gpu_us_per_call_median']:.1f} us/call, "
          f"{r['nvml']['sm_mhz_median']:.0f} MHz {r['nvml']['watts_median']:.0f} W", file=sys.stderr, flush=True)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    nvml = NvmlWindow()
    env = environment(nvml, cpu=cpu_model(), python=platform.python_version())
    hidden, tokens = 2048, 8192
    layer = torch.nn.Linear(hidden, hidden, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)
    xg = x.clone().requires_grad_(True)
    dy = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)

    def forward_grad():  # a training forward: autograd records the op
        layer(x)

    def forward_no_grad():
        with torch.no_grad():
            layer(x)

    def forward_backward():  # forward and its backward (dgrad, wgrad, bias grad)
        layer(xg).backward(dy)

    results = [measure("linear_forward_autograd", forward_grad, args.calls, args.reps, nvml),
               measure("linear_forward_no_grad", forward_no_grad, args.calls, args.reps, nvml),
               measure("linear_forward_backward", forward_backward, args.calls // 4, args.reps, nvml)]
    published = {"DGX H100 (Xeon Platinum 8480C)": 13.48, "GH200 (Grace)": 33.17, "GB200 (Grace)": 37.08}
    out = dict(study="host_linear", reference="NVIDIA/TransformerEngine issue #2053 (torch.nn.Linear forward, "
               "bf16, hidden 2048, 8192 tokens: host us per call)", published_host_us=published, env=env,
               shape=dict(hidden=hidden, tokens=tokens, dtype="bf16"), results=results, nvml_why=nvml.why)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
