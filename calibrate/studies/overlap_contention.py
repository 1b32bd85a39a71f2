#!/usr/bin/env python3
"""What a communication kernel running beside a GEMM costs the GEMM, on one GPU: the data behind the SM share the
simulator charges an overlapped collective (training.overlap.tp_comm_sms, docs/validation.md "Overlap contention").

A collective overlapped with compute (Transformer Engine userbuffers, NCCL on a side stream) is a kernel of a few
CTAs that stays resident while the GEMMs run. Two stand-ins, each launched first on a high-priority stream with
`ctas` CTAs of 512 threads (NCCL's CTA size) and long enough to outlast the timed GEMMs:
  spin  arithmetic in registers: SMs occupied, no memory traffic (the pure SM-share effect);
  copy  a strided HBM copy (SMs occupied and memory bandwidth taken, more than an NVLink-bound collective moves).
For each, a back-to-back run of bf16 GEMMs is timed alone and beside it (CUDA events), in steady state (a time-based
warm-up first), with the SM clock and power recorded by NVML. The copy's own bandwidth alone and beside the GEMMs is
recorded too.
"""
import argparse
import os
import sys
import time

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, write_results  # noqa: E402


@triton.jit
def spin_kernel(out_ptr, iters):
    pid = tl.program_id(0)
    x = pid.to(tl.float32) + tl.zeros([128], dtype=tl.float32)
    for _ in range(iters):
        x = x * 0.9999999 + 1e-7
    tl.store(out_ptr + pid * 128 + tl.arange(0, 128), x)


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, rounds, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    progs = tl.num_programs(0)
    for _ in range(rounds):
        for start in range(pid * BLOCK, n, progs * BLOCK):
            offs = start + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


def gemm_run(a, b, reps):
    """Mean ms of `reps` back-to-back GEMMs on the current stream (which it then waits for)."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps):
        torch.mm(a, b)
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / reps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.manual_seed(0)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    flops = 2.0 * n ** 3
    side = torch.cuda.Stream(priority=-1)
    out = torch.empty(sms * 128, device="cuda", dtype=torch.float32)
    elems = 256 * 1024 * 1024  # 512 MiB of bf16 each way: far larger than the L2
    src = torch.randn(elems, device="cuda", dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    nvml = NvmlWindow()
    # Time-based warm-up until the board settles at its power limit (GEMMs back to back for 3 s).
    t0 = time.monotonic()
    while time.monotonic() - t0 < 3.0:
        gemm_run(a, b, 20)
    gemm_ms0 = gemm_run(a, b, 50)
    warm = max(1, int(400 / gemm_ms0))   # 0.4 s of GEMMs before every timed segment: no idle before it
    reps = max(1, int(600 / gemm_ms0))   # the timed 0.6 s
    side_ms = 1300.0                     # the side kernel outlasts warm-up and timed segment
    results = []

    def timed(kind, ctas, extra=None):
        gemm_run(a, b, warm)
        t_start = time.monotonic()
        g = gemm_run(a, b, reps)
        reading = nvml.summary(t_start, time.monotonic())
        mhz = reading["sm_mhz_median"]
        r = dict(kind=kind, ctas=ctas, sms=sms, gemm_ms=g, gemm_tflops=flops / g / 1e9, **reading,
                 gemm_kilocycles=g * mhz, **(extra or {}))
        results.append(r)
        print(f"overlap_contention: {kind:5s} ctas {ctas:3d}: GEMM {g:.3f} ms ({r['gemm_tflops']:.0f} TFLOP/s, "
              f"{g * mhz:.0f} kcycles) {mhz:.0f} MHz {reading['watts_median']:.0f} W" + (f" {extra}" if extra else ""),
              file=sys.stderr, flush=True)
        return r

    for ctas in (8, 16, 32, 66):
        # Calibrate the side kernels' lengths alone (short runs).
        with torch.cuda.stream(side):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); spin_kernel[(ctas,)](out, 1 << 16, num_warps=16); e.record()
        e.synchronize()
        spin_iters = int(side_ms / (s.elapsed_time(e) / (1 << 16)))
        with torch.cuda.stream(side):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); copy_kernel[(ctas,)](src, dst, elems, 1, BLOCK=4096, num_warps=16); e.record()
        e.synchronize()
        copy_alone_gbs = 2 * elems * 2 / s.elapsed_time(e) / 1e6
        rounds = max(1, int(side_ms / s.elapsed_time(e)))
        for _ in range(2):
            timed("alone", 0)
            with torch.cuda.stream(side):
                spin_kernel[(ctas,)](out, spin_iters, num_warps=16)
            timed("spin", ctas)
            side.synchronize()
            with torch.cuda.stream(side):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record(); copy_kernel[(ctas,)](src, dst, elems, rounds, BLOCK=4096, num_warps=16); e.record()
            timed("copy", ctas, dict(copy_alone_gb_per_s=copy_alone_gbs))
            e.synchronize()
            results[-1]["copy_whole_run_gb_per_s"] = 2 * elems * 2 * rounds / s.elapsed_time(e) / 1e6
    env = environment(nvml, triton=triton.__version__,
                      gemm=f"bf16 {n}x{n}x{n} torch.mm: {warm} untimed then {reps} timed, back to back")
    write_results(args.out, env, results)


if __name__ == "__main__":
    main()
