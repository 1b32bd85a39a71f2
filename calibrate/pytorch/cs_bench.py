"""What every PyTorch benchmark of clustersim's calibration shares: the kit's (attention_bench.py, gemm_check.py,
gpt_step.py, beside this file) and the studies' (calibrate/studies/, which put this folder on sys.path).

- NVML readings (SM clock, instantaneous board power, temperature, clock-event reasons) polled every few
  milliseconds by a background thread and summarised over any time window: the Python side of
  calibrate/gpu/nvml_sampler.hpp. Works without NVML (every summary is then zero).
- The samples file (format v2, sim/store/calibration_sample.hpp): its header, its columns, one row per sample,
  and the quantiles kept with each sample.
- Inputs and load: random non-zero inputs (zeros run faster) and the filler GEMMs that keep the GPU busy, so its
  clock and power settle where sustained work runs them.
- Timing loops: back-to-back launches between CUDA events; calls queued behind a GPU sleep (the host's launches
  never starve the GPU); the host's own time per call; timed training steps; kernel counts from the profiler.
- A study's JSON output: the environment and the results, rewritten after each result so a run cut short keeps
  what it measured.

PyTorch is imported when present, so that `--help` and syntax checks work on a machine without it.
"""
import bisect
import datetime
import json
import math
import socket
import statistics
import sys
import threading
import time

try:
    import torch
except ImportError:  # only the functions that run on the GPU need it
    torch = None

try:
    import pynvml
except ImportError:  # the summaries stay zero
    pynvml = None

FIELD_POWER_INSTANT = 186  # NVML_FI_DEV_POWER_INSTANT, milliwatts


class NvmlWindow:
    def __init__(self, device=0, period_s=0.005):
        self.ok = False
        self.times, self.rows = [], []
        self.why = ""
        self.power_limit_w = 0.0
        if pynvml is None:
            self.why = "pynvml not installed"
            return
        try:
            pynvml.nvmlInit()
            self.h = pynvml.nvmlDeviceGetHandleByIndex(device)
            self.power_limit_w = pynvml.nvmlDeviceGetEnforcedPowerLimit(self.h) / 1000.0
            self.instant = self._instant() is not None
        except Exception as e:  # noqa: BLE001 - any NVML failure only disables the readings
            self.why = f"NVML unavailable: {e}"
            return
        self.ok = True
        self.period = period_s
        self.stop = False
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _instant(self):
        try:
            fv = pynvml.nvmlDeviceGetFieldValues(self.h, [FIELD_POWER_INSTANT])[0]
            return fv.value.uiVal / 1000.0 if fv.nvmlReturn == 0 and fv.value.uiVal > 0 else None
        except Exception:  # noqa: BLE001
            return None

    def _run(self):
        while not self.stop:
            t = time.monotonic()
            mhz = pynvml.nvmlDeviceGetClockInfo(self.h, pynvml.NVML_CLOCK_SM)
            w = self._instant() if self.instant else None
            if w is None:
                w = pynvml.nvmlDeviceGetPowerUsage(self.h) / 1000.0
            temp = pynvml.nvmlDeviceGetTemperature(self.h, pynvml.NVML_TEMPERATURE_GPU)
            try:
                reasons = pynvml.nvmlDeviceGetCurrentClocksEventReasons(self.h)
            except Exception:  # noqa: BLE001 - older bindings
                reasons = pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(self.h)
            with self.lock:
                self.times.append(t)
                self.rows.append((mhz, w, temp, reasons))
            time.sleep(self.period)

    def window(self, t0, t1):
        """(median SM MHz, median W, max degC, reasons OR'ed) over monotonic times [t0, t1]."""
        if not self.ok:
            return 0.0, 0.0, 0.0, 0
        with self.lock:
            lo = bisect.bisect_left(self.times, t0)
            hi = bisect.bisect_right(self.times, t1)
            rows = self.rows[lo:hi] or self.rows[min(lo, len(self.rows) - 1):][:1]
        if not rows:
            return 0.0, 0.0, 0.0, 0
        reasons = 0
        for r in rows:
            reasons |= r[3]
        return (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows),
                max(r[2] for r in rows), reasons)

    def summary(self, t0, t1):
        """window(t0, t1) as the studies' JSON records it."""
        return dict(zip(("sm_mhz_median", "watts_median", "temp_c_max", "clock_event_reasons"), self.window(t0, t1)))

    def trace(self, path, origin, every=0.1):
        with self.lock, open(path, "w") as f:
            f.write("t_s,sm_mhz,watts,temp_c,reasons\n")
            nxt = -1e9
            for t, r in zip(self.times, self.rows):
                if t - origin < nxt:
                    continue
                nxt = t - origin + every
                f.write(f"{t - origin:.3f},{r[0]:.0f},{r[1]:.1f},{r[2]:.0f},{r[3]:#x}\n")

    def close(self):
        if self.ok:
            self.stop = True
            self.thread.join()


# The samples file.

COLUMNS = ("kind,op,dtype,m,n,k,batch,heads,seq,head_dim,bytes,ranks,algo,median_s,p10_s,p90_s,reps,watts,"
           "layout,clocks,sm_mhz,temp_c,throttle")


def quantile(v, q):
    """Linear-interpolated quantile q (0..1) of the values v."""
    v = sorted(v)
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def write_samples_header(out, tool, **provenance):
    """The samples file's version line, GPU 0 and this run (`# key: value`: `tool`, then `provenance` in order),
    and the column line."""
    props = torch.cuda.get_device_properties(0)
    out.write("# clustersim calibration samples v2\n")
    out.write(f"# gpu: {props.name}\n# sm_count: {props.multi_processor_count}\n")
    out.write(f"# memory_bytes: {props.total_memory}\n# host: {socket.gethostname()}\n")
    out.write(f"# date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}\n")
    out.write(f"# tool: {tool}\n")
    for key, value in provenance.items():
        out.write(f"# {key}: {value}\n")
    out.write(COLUMNS + "\n")


def write_sample(out, kind, op, dtype, timing, reading, *, m=0, n=0, k=0, batch=1, heads=0, seq=0, head_dim=0,
                 nbytes=0, ranks=1, algo="", layout="", clocks=""):
    """One sample row, flushed: `timing` is (median s, p10 s, p90 s, repetitions), `reading` an NVML window."""
    med, p10, p90, reps = timing
    mhz, watts, temp, reasons = reading
    out.write(f"{kind},{op},{dtype},{m},{n},{k},{batch},{heads},{seq},{head_dim},{nbytes},{ranks},{algo},"
              f"{med:.9g},{p10:.9g},{p90:.9g},{reps},{watts:.1f},{layout},{clocks},{mhz:.0f},{temp:.0f},{reasons}\n")
    out.flush()


# Inputs and load.

def rand_nonzero(shape, gen, dtype=None):
    """Values in +-[0.5, 1) on the GPU (fp32, or `dtype`): random and non-zero, since zeros run faster."""
    x = torch.rand(shape, device="cuda", dtype=torch.float32, generator=gen) * 0.5 + 0.5
    sign = torch.randint(0, 2, shape, device="cuda", generator=gen) * 2 - 1
    return (x * sign).to(dtype or torch.float32)


class Filler:
    """bf16 8192^3 GEMMs queued to keep the GPU busy: the warm-up's load, and work ahead of a measurement so the
    GPU never idles while the host prepares it."""

    def __init__(self, gen):
        self.a = rand_nonzero((8192, 8192), gen).to(torch.bfloat16)
        self.b = rand_nonzero((8192, 8192), gen).to(torch.bfloat16)
        self.c = torch.empty((8192, 8192), device="cuda", dtype=torch.bfloat16)

    def run(self, n):
        for _ in range(n):
            torch.mm(self.a, self.b, out=self.c)


def warm_up(filler, seconds, nvml=None, who=""):
    """Back-to-back filler GEMMs for `seconds`, so clock and power settle at the board's limit; with `who`, prints
    the last 2 s of NVML readings under that name."""
    t = time.monotonic()
    while time.monotonic() - t < seconds:
        filler.run(20)
        torch.cuda.synchronize()
    if who:
        mhz, w, temp, _ = nvml.window(time.monotonic() - 2, time.monotonic())
        print(f"{who}: warm-up {seconds:.0f} s: {mhz:.0f} MHz {w:.0f} W {temp:.0f} C", file=sys.stderr, flush=True)


# Timing loops.

def time_launches(fn, budget_s, target_rep_s=1e-3, warmup=3, min_reps=5, max_reps=25, busy=None):
    """Per-launch time of fn(i) (i counts the launches): warm-up, a probe of 3 back-to-back launches, then
    repetitions of `inner` back-to-back launches between CUDA events (one repetition lasting about `target_rep_s`)
    within `budget_s`. `busy` queues work ahead of the warm-up and of the timed launches. Returns (median, p10,
    p90, repetitions, t0, t1): seconds per launch, and the monotonic window the timed launches ran in."""
    i = 0
    if busy:
        busy()
    for _ in range(warmup):
        fn(i)
        i += 1
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(3):
        fn(i)
        i += 1
    b.record()
    b.synchronize()
    t1 = max(a.elapsed_time(b) * 1e-3 / 3, 1e-7)
    inner = max(1, min(200, math.ceil(target_rep_s / t1)))
    reps = max(min_reps, min(max_reps, int(budget_s / (t1 * inner))))
    if busy:
        busy()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for s, e in ev:
        s.record()
        for _ in range(inner):
            fn(i)
            i += 1
        e.record()
    ev[0][0].synchronize()
    t0 = time.monotonic()
    torch.cuda.synchronize()
    t1 = time.monotonic()
    per = [s.elapsed_time(e) * 1e-3 / inner for s, e in ev]
    return quantile(per, 0.5), quantile(per, 0.1), quantile(per, 0.9), len(per), t0, t1


def sleep_cycles(ms):
    """GPU clock cycles for a torch.cuda._sleep of about `ms` milliseconds."""
    khz = getattr(torch.cuda.get_device_properties(0), "clock_rate", 1_980_000)  # kHz
    return int(ms * khz)


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


def host_time_queued(fn, calls, reps, sleep_ms):
    """The host's time per call with the GPU kept busy: after 10 warm-up calls, `reps` times `calls` calls queued
    behind a GPU sleep of `sleep_ms` (long enough for the host to queue them all, so it never waits). Returns (host
    us per call, GPU us per call), one value per repetition, and the monotonic window of the repetitions."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t0 = time.monotonic()
    host, gpu = [], []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(sleep_cycles(sleep_ms))
        a.record()
        h0 = time.perf_counter()
        for _ in range(calls):
            fn()
        h1 = time.perf_counter()
        b.record()
        b.synchronize()
        host.append((h1 - h0) / calls * 1e6)
        gpu.append(a.elapsed_time(b) * 1e3 / calls)
    return host, gpu, (t0, time.monotonic())


def host_times_idle(fn, calls, warmup):
    """Seconds of host time of each of `calls` calls of `fn`, each started with the GPU idle (host-bound), after
    `warmup` calls."""
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(calls):
        torch.cuda.synchronize()
        h0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - h0)
    torch.cuda.synchronize()
    return ts


def profiled(fn):
    """The profiler (CUDA activity alone: runtime calls and kernels) over one call of `fn`."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return prof


def kernel_count(fn):
    """Kernels one call of `fn` runs: the profiler's per-name counts of entries with device time (as
    host_sync_study, host_phase_study and native_launch_study count them)."""
    return sum(e.count for e in profiled(fn).key_averages() if getattr(e, "self_device_time_total", 0.0) > 0)


def device_event_count(fn):
    """CUDA events (kernels, copies, memsets) one call of `fn` runs, from the profiler's event list (as
    gpt_oss_extras_study and ssd_triton_study count them)."""
    return sum(1 for e in profiled(fn).events() if e.device_type == torch.autograd.DeviceType.CUDA)


# Training steps.

def kernel_category(name):
    n = name.lower()
    if "flash" in n or "fmha" in n or "attention" in n:
        return "attention"
    if any(t in n for t in ("gemm", "cutlass", "xmma", "nvjet", "cublas", "matmul")):
        return "gemm"
    if "adam" in n or "multi_tensor" in n:
        return "optimizer"
    return "other"


def profile_step(model, opt, idx, tgt):
    """GPU kernel time and kernel count of one step by category (gemm, attention, optimizer, other), and the top
    kernels."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        opt.zero_grad(set_to_none=True)
        model(idx, tgt).backward()
        opt.step()
        torch.cuda.synchronize()
    cats, counts, kernels = {}, {}, []
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", 0.0) / 1e3
        if t <= 0:
            continue
        c = kernel_category(e.key)
        cats[c] = cats.get(c, 0.0) + t
        counts[c] = counts.get(c, 0) + e.count
        kernels.append((t, e.key[:90], e.count))
    kernels.sort(reverse=True)
    return dict(by_category_ms=cats, kernels_by_category=counts,
                top_kernels=[dict(ms=t, name=n, count=c) for t, n, c in kernels[:25]])


def time_training_steps(make_model, cfg, steps, warmup, nvml):
    """A single-GPU training step of the model `make_model()` builds (seed 0; bf16 parameters and fused AdamW
    states), on one batch of cfg["batch"] x cfg["seq"] random tokens below cfg["vocab"], through the flash SDPA
    backend: zero_grad(set_to_none) + forward + backward + optimizer step, timed with CUDA events over `steps`
    steps after `warmup`, forward+backward alone beside it, one more step profiled, NVML over the timed steps."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    torch.manual_seed(0)
    model = make_model().cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    params = sum(p.numel() for p in model.parameters())
    idx = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device="cuda")
    tgt = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device="cuda")
    step_ms, fb_ms = [], []
    t_timed = None
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        for i in range(warmup + steps):
            if i == warmup:
                t_timed = time.monotonic()
            a, b, c = (torch.cuda.Event(enable_timing=True) for _ in range(3))
            a.record()
            opt.zero_grad(set_to_none=True)
            loss = model(idx, tgt)
            loss.backward()
            b.record()
            opt.step()
            c.record()
            c.synchronize()
            if i >= warmup:
                step_ms.append(a.elapsed_time(c))
                fb_ms.append(a.elapsed_time(b))
        t_end = time.monotonic()
        breakdown = profile_step(model, opt, idx, tgt)
    res = dict(cfg, params=params, kernel_ms_by_category=breakdown, sdpa_backend="flash",
               dtype="bf16 params, bf16 AdamW states (fused)",
               step_ms_median=statistics.median(step_ms), step_ms_min=min(step_ms), step_ms_max=max(step_ms),
               fwd_bwd_ms_median=statistics.median(fb_ms), steps=steps, warmup=warmup, loss=float(loss),
               timed_steps_nvml=nvml.summary(t_timed, t_end))
    del model, opt
    torch.cuda.empty_cache()
    return res


# A study's JSON output.

def environment(nvml, **extra):
    """PyTorch, CUDA and GPU 0 as a result file records them, with the board's power limit and `extra`."""
    return dict(torch=torch.__version__, cuda=torch.version.cuda, gpu=torch.cuda.get_device_name(0), **extra,
                power_limit_w=nvml.power_limit_w)


def write_results(path, env, results):
    """{"environment": env, "results": results} to `path`, rewritten after every result."""
    with open(path, "w") as f:
        json.dump(dict(environment=env, results=results), f, indent=1)
