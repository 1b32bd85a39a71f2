"""GPU time of a call with the host's launches never starving the GPU: calls queued behind a sleep long enough for
the host to queue them all, timed with CUDA events, with NVML's clock and power over the timing; and the kernels a
call launches (torch.profiler). Shared by the studies that price a chain of small PyTorch operators
(gpt_oss_extras_study.py, ssd_triton_study.py, native_launch_study.py)."""
import time

import torch
from torch.profiler import ProfilerActivity, profile


def sleep_cycles(ms):
    """GPU clock cycles for a torch.cuda._sleep of about `ms` milliseconds."""
    khz = getattr(torch.cuda.get_device_properties(0), "clock_rate", 1_980_000)  # kHz
    return int(ms * khz)


def kernels(fn):
    """CUDA kernels one call of `fn` launches."""
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)


def gpu_time(fn, reps, nvml):
    """(seconds per call, NVML summary) for `reps` calls queued behind a 50 ms sleep, after three warm-up calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(sleep_cycles(50.0))
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    w0 = time.monotonic()
    b.synchronize()
    w1 = time.monotonic()
    mhz, watts, temp, reasons = nvml.window(w0 - 0.05, w1)
    return a.elapsed_time(b) * 1e-3 / reps, {"sm_clock_mhz": mhz, "power_w": watts, "temp_c": temp, "reasons": reasons}
