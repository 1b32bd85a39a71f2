#include "calibrate/gpu/kernel_timer.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
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
  const auto from = std::chrono::steady_clock::now();
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
  Timing t = summarize(std::move(per_launch));
  t.from = from;
  t.to = std::chrono::steady_clock::now();
  t.clocks = "burst";
  return t;
}

namespace {

// `inner` launches captured once as a CUDA graph; empty when the launches cannot be captured (then they are
// issued directly).
class LaunchGraph {
 public:
  LaunchGraph(cudaStream_t stream, const std::function<void(int)>& launch, int inner, int& i) {
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    bool ok = true;
    try {
      for (int j = 0; j < inner; ++j) launch(i++);
    } catch (const std::exception&) {
      ok = false;
    }
    cudaGraph_t g = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream, &g);
    if (ok && end == cudaSuccess && g != nullptr && cudaGraphInstantiate(&exec_, g, 0) == cudaSuccess) {
      cudaGraphDestroy(g);
      return;
    }
    if (g != nullptr) cudaGraphDestroy(g);
    exec_ = nullptr;
    (void)cudaGetLastError();
  }
  ~LaunchGraph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;
  [[nodiscard]] bool ok() const noexcept { return exec_ != nullptr; }
  void launch(cudaStream_t stream) const { CS_CUDA(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

Timing time_kernel_sustained(cudaStream_t stream, const std::function<void(int)>& launch, const TimingPlan& plan,
                             const std::function<void()>& filler) {
  // Probe: three launches back to back behind whatever is queued (the GPU is kept busy, so no idle gap).
  int i = 0;
  EventPair probe;
  launch(i++);
  CS_CUDA(cudaEventRecord(probe.start, stream));
  for (int j = 0; j < 3; ++j) launch(i++);
  CS_CUDA(cudaEventRecord(probe.stop, stream));
  if (filler) filler();  // the GPU works on these while the host captures the graph
  CS_CUDA(cudaEventSynchronize(probe.stop));
  const double t1 = std::max(probe.seconds() / 3, 1e-7);

  const int inner = std::clamp(static_cast<int>(std::ceil(plan.target_rep_s / t1)), 1, plan.max_inner);
  const double rep_s = t1 * inner;
  const int reps = std::clamp(static_cast<int>(plan.budget_s / rep_s), plan.min_reps, plan.max_reps);
  const int settle = std::max(1, static_cast<int>(std::ceil(plan.settle_s / rep_s)));
  const LaunchGraph graph(stream, launch, inner, i);
  const auto repetition = [&] {
    if (graph.ok()) {
      graph.launch(stream);
    } else {
      for (int j = 0; j < inner; ++j) launch(i++);
    }
  };
  for (int r = 0; r < settle; ++r) repetition();
  std::vector<cudaEvent_t> marks(static_cast<std::size_t>(reps) + 1);
  for (auto& e : marks) CS_CUDA(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    CS_CUDA(cudaEventRecord(marks[static_cast<std::size_t>(r)], stream));
    repetition();
  }
  CS_CUDA(cudaEventRecord(marks.back(), stream));
  if (filler) filler();
  Timing t;
  CS_CUDA(cudaEventSynchronize(marks.front()));
  t.from = std::chrono::steady_clock::now();
  CS_CUDA(cudaEventSynchronize(marks.back()));
  t.to = std::chrono::steady_clock::now();
  std::vector<double> per_launch;
  for (std::size_t r = 0; r + 1 < marks.size(); ++r) {
    float ms = 0;
    CS_CUDA(cudaEventElapsedTime(&ms, marks[r], marks[r + 1]));
    per_launch.push_back(static_cast<double>(ms) * 1e-3 / inner);
  }
  for (auto& e : marks) cudaEventDestroy(e);
  const auto from = t.from, to = t.to;
  t = summarize(std::move(per_launch));
  t.from = from;
  t.to = to;
  t.clocks = "sustained";
  return t;
}

}  // namespace cs::calib
