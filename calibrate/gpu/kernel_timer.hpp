// Times a kernel the way the issue asks: warm-up launches, then repetitions of `inner` back-to-back launches
// between two CUDA events, per-launch time = elapsed / inner, and the median and 10th/90th percentiles of the
// repetitions kept. `launch(i)` enqueues launch number i on the stream; callers rotate input buffers on i so
// inputs do not sit in L2 between launches.
//
// Each repetition is enqueued behind a blocking kernel (kernels::block_stream) that the host releases only
// after the last launch of the repetition is queued: the launches then run back to back at GPU speed even
// when one takes the host longer to issue than the GPU to run (cuBLASLt's host path costs ~5-10 us a call,
// more than a small GEMM runs). Without the block, small kernels are timed at the host's issue rate.
#pragma once

#include <cuda_runtime.h>

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
};

struct Timing {
  double median_s = 0, p10_s = 0, p90_s = 0;
  int reps = 0;
};

/// Copies the median, spread and repetition count of `t` into a sample.
inline void record_timing(const Timing& t, CalibrationSample& s) {
  s.median_s = t.median_s;
  s.p10_s = t.p10_s;
  s.p90_s = t.p90_s;
  s.reps = t.reps;
}

/// Median and spread of a list of per-launch times.
[[nodiscard]] Timing summarize(std::vector<double> per_launch_s);

[[nodiscard]] Timing time_kernel(cudaStream_t stream, const std::function<void(int)>& launch, const TimingPlan& plan);

}  // namespace cs::calib
