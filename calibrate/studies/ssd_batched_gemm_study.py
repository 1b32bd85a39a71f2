"""Times the small matrix products of a Mamba-2 chunked scan (SSD) as cuBLAS strided-batched GEMMs.

The simulator prices each SSD kernel (one Triton launch whose thread blocks each multiply one chunk's small
matrices) as one GEMM with the chunks and heads stacked along its rows. This study measures what a GPU does
with the same products issued as one batched cuBLAS call (torch.bmm, bf16), back to back after a warm-up at
load, with the SM clock and board power read after each shape. It is not mamba_ssm's kernels (not installed on
the device machine); it bounds what one launch of those shapes can reach.

Usage: python ssd_batched_gemm_study.py OUT.csv
"""
import csv
import subprocess
import sys
import time

import torch


def smi():
    q = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                        "--format=csv,noheader,nounits"], capture_output=True, text=True).stdout.strip()
    return [float(x) for x in q.split(",")]


def shapes():
    # (model, op, batch, m, n, k): the forward SSD products of one micro-batch of one layer, as layer_ops.cpp
    # builds them. Nemotron-H 56B at TP 8 (32 heads of 64, one group, state 256) and Nemotron-H 8B at TP 1
    # (128 heads of 64, 8 groups, state 128), sequence 8,192 in chunks of 128 (64 chunks).
    for model, heads, groups, p, n in (("nemotron-h-56b tp8", 32, 1, 64, 256), ("nemotron-h-8b tp1", 128, 8, 64, 128)):
        chunks, L = 64, 128
        yield model, "C B^T", chunks * groups, L, L, n
        yield model, "chunk states", chunks * heads, p, n, L
        yield model, "chunk scan (within)", chunks * heads, L, p, L // 2
        yield model, "chunk scan (from state)", chunks * heads, L, p, n


def main():
    out = sys.argv[1]
    dev = torch.device("cuda")
    # Warm-up at load: a large GEMM back to back for 20 s so the clock settles where sustained work runs.
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    t_end = time.time() + 20
    while time.time() < t_end:
        for _ in range(20):
            a @ a
        torch.cuda.synchronize()
    rows = []
    for model, op, batch, m, n, k in shapes():
        x = torch.randn(batch, m, k, device=dev, dtype=torch.bfloat16)
        y = torch.randn(batch, k, n, device=dev, dtype=torch.bfloat16)
        for _ in range(20):
            torch.bmm(x, y)
        torch.cuda.synchronize()
        reps = 200
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            torch.bmm(x, y)
        stop.record()
        stop.synchronize()
        us = start.elapsed_time(stop) * 1e3 / reps
        clock, power, temp = smi()
        flops = 2.0 * batch * m * n * k
        rows.append(dict(model=model, op=op, batch=batch, m=m, n=n, k=k, time_us=round(us, 2),
                         tflops=round(flops / us / 1e6, 1), sm_clock_mhz=clock, power_w=power, temp_c=temp))
        print(rows[-1], flush=True)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print("gpu", torch.cuda.get_device_name(), "torch", torch.__version__, "cuda", torch.version.cuda)


if __name__ == "__main__":
    main()
