#include "calibrate/gpu/kernel_timer.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "calibrate/gpu/gpu_check.hpp"

namespace cs::calib {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

struct EventPair {
  cudaEvent_t start{}, stop{};
  EventPair() {
    CS_CUDA(cudaEventCreate(&start));
    CS_CUDA(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  [[nodiscard]] double seconds() const {
    float ms = 0;
    CS_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms) * 1e-3;
  }
};

}  // namespace

Timing summarize(std::vector<double> v) {
  Timing t;
  if (v.empty()) return t;
  std::sort(v.begin(), v.end());
  t.median_s = quantile(v, 0.5);
  t.p10_s = quantile(v, 0.1);
  t.p90_s = quantile(v, 0.9);
  t.reps = static_cast<int>(v.size());
  return t;
}

Timing time_kernel(cudaStream_t stream, const std::function<void(int)>& launch, const TimingPlan& plan) {
  int i = 0;
  for (int w = 0; w < plan.warmup; ++w) launch(i++);
  CS_CUDA(cudaStreamSynchronize(stream));

  // Estimate one launch from three back-to-back ones.
  EventPair probe;
  CS_CUDA(cudaEventRecord(probe.start, stream));
  for (int w = 0; w < 3; ++w) launch(i++);
  CS_CUDA(cudaEventRecord(probe.stop, stream));
  CS_CUDA(cudaEventSynchronize(probe.stop));
  const double t1 = std::max(probe.seconds() / 3.0, 1e-7);

  const int inner = std::clamp(static_cast<int>(std::ceil(plan.target_rep_s / t1)), 1, plan.max_inner);
  const int reps =
      std::clamp(static_cast<int>(plan.budget_s / (t1 * inner)), plan.min_reps, plan.max_reps);
  std::vector<EventPair> events(static_cast<std::size_t>(reps));
  for (auto& e : events) {
    CS_CUDA(cudaEventRecord(e.start, stream));
    for (int j = 0; j < inner; ++j) launch(i++);
    CS_CUDA(cudaEventRecord(e.stop, stream));
  }
  CS_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> per_launch;
  per_launch.reserve(events.size());
  for (const auto& e : events) per_launch.push_back(e.seconds() / inner);
  return summarize(std::move(per_launch));
}

}  // namespace cs::calib
