// What every measurement runner gets: the device, a stream, cache size, the timing plan, a sink for samples
// and a progress line printer.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "calibrate/gpu/kernel_timer.hpp"
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
  std::function<void(const CalibrationSample&)> emit;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  /// "[  12.3 s] section i/n: text" on stderr.
  void progress(const std::string& section, std::size_t i, std::size_t n, const std::string& text) const {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "[%7.1f s] %s %zu/%zu: %s\n", el, section.c_str(), i, n, text.c_str());
  }
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
void run_memory_sweep(const GpuContext& ctx);
/// NCCL collectives over `gpus` devices (0..gpus-1), one thread per GPU.
void run_nccl_sweep(const GpuContext& ctx, int gpus);
/// Board power while idle, in a compute-bound GEMM loop and in a memory-bound copy loop (needs NVML).
void run_power_sweep(const GpuContext& ctx, const class Nvml& nvml);

}  // namespace cs::calib
