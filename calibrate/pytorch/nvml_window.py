"""NVML readings (SM clock, instantaneous board power, temperature, clock-event reasons) polled every few
milliseconds by a background thread, summarised over any time window: the Python side of
calibrate/gpu/nvml_sampler.hpp. Works without NVML (every summary is then zero)."""
import bisect
import statistics
import threading
import time

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
