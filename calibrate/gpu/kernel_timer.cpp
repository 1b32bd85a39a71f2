#include "calibrate/gpu/kernel_timer.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <vector>

#include "calibrate/gpu/gpu_check.hpp"
#include "kernels/kernels.cuh"

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

// The release and timed-out flags of kernels::block_stream, in mapped pinned host memory.
class StreamBlocker {
 public:
  StreamBlocker() {
    void* host = nullptr;
    void* device = nullptr;
    CS_CUDA(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
    host_ = static_cast<volatile int*>(host);
    CS_CUDA(cudaHostGetDevicePointer(&device, host, 0));
    device_ = static_cast<volatile int*>(device);
  }
  ~StreamBlocker() { cudaFreeHost(const_cast<int*>(host_)); }
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;

  void block(cudaStream_t stream, double timeout_s) {
    host_[0] = 0;
    host_[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    CS_CUDA(kernels::block_stream(device_, device_ + 1, timeout_s, stream));
  }
  void release() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    host_[0] = 1;
  }
  [[nodiscard]] bool timed_out() const { return host_[1] != 0; }

 private:
  volatile int* host_ = nullptr;
  volatile int* device_ = nullptr;
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

  StreamBlocker blocker;
  EventPair events;
  // One repetition of n launches, per-launch seconds; empty when the block timed out before the host had
  // queued them all (the timing would then include the host's issue time).
  const auto repetition = [&](int n) -> std::optional<double> {
    blocker.block(stream, plan.block_timeout_s);
    CS_CUDA(cudaEventRecord(events.start, stream));
    for (int j = 0; j < n; ++j) launch(i++);
    CS_CUDA(cudaEventRecord(events.stop, stream));
    blocker.release();
    CS_CUDA(cudaEventSynchronize(events.stop));
    if (blocker.timed_out()) return std::nullopt;
    return events.seconds() / n;
  };

  // Estimate one launch from three back-to-back ones.
  const auto probe = repetition(3);
  if (!probe) throw std::runtime_error("the stream block timed out while 3 launches were queued");
  const double t1 = std::max(*probe, 1e-7);

  int inner = std::clamp(static_cast<int>(std::ceil(plan.target_rep_s / t1)), 1, plan.max_inner);
  const int reps = std::clamp(static_cast<int>(plan.budget_s / (t1 * inner)), plan.min_reps, plan.max_reps);
  std::vector<double> per_launch;
  per_launch.reserve(static_cast<std::size_t>(reps));
  while (static_cast<int>(per_launch.size()) < reps) {
    if (const auto t = repetition(inner)) {
      per_launch.push_back(*t);
    } else if (inner > 1) {  // the launch queue filled behind the block: fewer launches per repetition
      std::fprintf(stderr, "timer: the stream block timed out with %d launches queued; retrying with %d\n", inner,
                   std::max(1, inner / 2));
      inner = std::max(1, inner / 2);
      per_launch.clear();
    } else {
      throw std::runtime_error("the stream block timed out with a single launch queued");
    }
  }
  return summarize(std::move(per_launch));
}

}  // namespace cs::calib
