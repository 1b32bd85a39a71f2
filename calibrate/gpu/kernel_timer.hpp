// Times a kernel the way the issue asks: warm-up launches, then repetitions of `inner` back-to-back launches
// between two CUDA events, per-launch time = elapsed / inner, and the median and 10th/90th percentiles of the
// repetitions kept. `launch(i)` enqueues launch number i on the stream; callers rotate input buffers on i so
// inputs do not sit in L2 between launches.
//
// Burst timing (time_kernel): each repetition is enqueued behind a blocking kernel (kernels::block_stream) that the host releases only
// after the last launch of the repetition is queued: the launches then run back to back at GPU speed even
// when one takes the host longer to issue than the GPU to run (cuBLASLt's host path costs ~5-10 us a call,
// more than a small GEMM runs). Without the block, small kernels are timed at the host's issue rate. The GPU
// idles between repetitions, so they run at burst clocks (~1.98 GHz on an H200), which training never sees.
//
// Sustained timing (time_kernel_sustained): the launches of one repetition are captured once in a CUDA graph
// (so the host issues them faster than the GPU runs them), the graph is replayed back to back for a settle
// time and then for the timed repetitions, and a filler (caller's large GEMMs) is queued behind them so the
// GPU stays busy while the host prepares the next measurement: the GPU never idles, its power and SM clock
// sit where the power limit holds them, as in a training step. The host-time window of the timed
// repetitions is returned so NVML's readings over it can be attached to the sample.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <vector>

#include "sim/store/calibration_sample.hpp"

namespace cs::calib {

struct TimingPlan {
  int warmup = 3;
  double target_rep_s = 1.0e-3;  ///< a repetition lasts at least this long (more launches for short kernels)
  double budget_s = 0.03;        ///< total timed time per measurement, split over repetitions
  int min_reps = 5;
  int max_reps = 25;
  int max_inner = 256;            ///< launches queued behind one block (the launch queue holds ~1000)
  double block_timeout_s = 0.25;  ///< the block gives up after this; the repetition is then retried smaller
  double settle_s = 0.015;        ///< sustained: back-to-back time of the kernel itself before the timed part
};

struct Timing {
  double median_s = 0, p10_s = 0, p90_s = 0;
  int reps = 0;
  // Host-time window of the timed repetitions, and what NVML read over it (filled by GpuContext::time).
  std::chrono::steady_clock::time_point from, to;
  const char* clocks = "";  ///< "burst" or "sustained"
  double sm_mhz = 0, watts = 0, temp_c = 0;
  unsigned long long reasons = 0;
};

/// Copies the median, spread and repetition count of `t` into a sample.
inline void record_timing(const Timing& t, CalibrationSample& s) {
  s.median = MeasuredTime{t.median_s};
  s.p10 = MeasuredTime{t.p10_s};
  s.p90 = MeasuredTime{t.p90_s};
  s.reps = t.reps;
  s.clocks = t.clocks;
  s.sm_mhz = t.sm_mhz;
  s.watts = Watts{t.watts};
  s.temp_c = t.temp_c;
  s.throttle = static_cast<std::int64_t>(t.reasons);
}

/// Median and spread of a list of per-launch times.
[[nodiscard]] Timing summarize(std::vector<double> per_launch_s);

[[nodiscard]] Timing time_kernel(cudaStream_t stream, const std::function<void(int)>& launch, const TimingPlan& plan);

/// Back-to-back timing at steady state (see the file comment). `filler` enqueues a few milliseconds of work
/// on `stream`; it may be empty.
[[nodiscard]] Timing time_kernel_sustained(cudaStream_t stream, const std::function<void(int)>& launch,
                                           const TimingPlan& plan, const std::function<void()>& filler);

}  // namespace cs::calib
