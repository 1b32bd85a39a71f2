// What every measurement runner gets: the device, a stream, cache size, the timing plan, a sink for samples
// and a progress line printer.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/gpu/kernel_timer.hpp"
#include "calibrate/gpu/nvml_sampler.hpp"
#include "sim/store/calibration_sample.hpp"

namespace cs::calib {

/// Seed of the random GEMM shapes of the measured H200 profile's run (docs/calibration.md).
inline constexpr std::uint64_t kDefaultShapeSeed = 20261203;

struct GpuContext {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::size_t l2_bytes = 0;
  int sm_count = 0;
  bool quick = false;
  std::uint64_t shape_seed = kDefaultShapeSeed;  ///< of the random GEMM shapes
  TimingPlan plan;
  bool sustained = false;                  ///< time back to back at steady state (kernel_timer.hpp)
  std::function<void()> filler;            ///< sustained: keeps the GPU busy between measurements
  const NvmlSampler* sampler = nullptr;    ///< clocks and power of each sample's window, when NVML works
  std::vector<std::string> gemm_layouts{"tn"};  ///< layouts timed for bf16 (other formats: TN only)
  int random_shapes = -1;                  ///< random GEMM shapes per format (-1: the default, 480 / 24 quick)
  std::int64_t random_align = 0;           ///< random shapes' sizes a multiple of this (0: alternately 64 and 1)
  std::function<void(const CalibrationSample&)> emit;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  /// "[  12.3 s] section i/n: text" on stderr.
  void progress(const std::string& section, std::size_t i, std::size_t n, const std::string& text) const {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "[%7.1f s] %s %zu/%zu: %s\n", el, section.c_str(), i, n, text.c_str());
  }
  /// Times `launch` as the run's mode says and attaches NVML's clock, power and temperature over the timed
  /// window.
  [[nodiscard]] Timing time(const std::function<void(int)>& launch, const TimingPlan& p) const {
    Timing t = sustained ? time_kernel_sustained(stream, launch, p, filler) : time_kernel(stream, launch, p);
    if (sampler != nullptr && sampler->active()) {
      sampler->check();
      const NvmlWindow w = sampler->window(t.from, t.to);
      t.sm_mhz = w.sm_mhz;
      t.watts = w.watts;
      t.temp_c = w.temp_c;
      t.reasons = w.reasons;
    }
    return t;
  }
  [[nodiscard]] Timing time(const std::function<void(int)>& launch) const { return time(launch, plan); }
  /// Rotating copies of an input of `bytes` so that consecutive launches miss L2: enough to cover 3x L2.
  [[nodiscard]] int rotations(double bytes, double arena_bytes, int cap = 16) const {
    int r = static_cast<int>(3.0 * static_cast<double>(l2_bytes) / bytes) + 1;
    const int fit = static_cast<int>(arena_bytes / bytes);
    if (r > fit) r = fit;
    if (r > cap) r = cap;
    return r < 1 ? 1 : r;
  }
};

void run_gemm_sweep(const GpuContext& ctx);

/// A bf16 8192^3 GEMM on its own buffers (random data), enqueued on demand: the load of the power sweep,
/// the warm-up and the filler of sustained runs. One launch takes ~1.4-1.7 ms on an H200.
class BusyGemm {
 public:
  static constexpr std::int64_t kSize = 8192;
  explicit BusyGemm(cudaStream_t stream);
  ~BusyGemm();
  BusyGemm(const BusyGemm&) = delete;
  BusyGemm& operator=(const BusyGemm&) = delete;
  void enqueue(int launches) const;

 private:
  static constexpr std::size_t kWorkspace = 32u << 20;
  struct Impl;
  cudaStream_t stream_;
  std::unique_ptr<Impl> impl_;
};
void run_memory_sweep(const GpuContext& ctx);
/// NCCL collectives over `gpus` devices (0..gpus-1), one thread per GPU.
void run_nccl_sweep(const GpuContext& ctx, int gpus);
/// Board power while idle, in a compute-bound GEMM loop and in a memory-bound copy loop (needs NVML).
void run_power_sweep(const GpuContext& ctx, const class Nvml& nvml);
/// Sustained runs: a bf16 GEMM alternating with a copy at several duty cycles, each held for seconds, with
/// power, clock and both kernels' times recorded (the power-cap model's clock exponent comes from these).
void run_power_mix(const GpuContext& ctx, const NvmlSampler& sampler);
/// Back-to-back bf16 GEMMs until the SM clock and board power settle (at least `min_s`, at most `max_s`);
/// returns the seconds it took.
double warm_up(const GpuContext& ctx, const NvmlSampler& sampler, double min_s, double max_s);

}  // namespace cs::calib
