// Board power through NVML while the GPU idles, runs a compute-bound bf16 GEMM loop, and runs a
// memory-bound copy loop. A sampler thread reads NVML every 20 ms; the sample's watts is the median of the
// readings in the second half of the window (NVML's reading lags the load by up to a second).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "calibrate/gpu/gpu_check.hpp"
#include "calibrate/gpu/gpu_context.hpp"
#include "calibrate/gpu/nvml_power.hpp"
#include "kernels/kernels.cuh"

namespace cs::calib {

void run_gemm_load(const GpuContext& ctx, double seconds);  // gemm_sweep.cpp

namespace {

template <class Load>
double measure(const Nvml& nvml, double seconds, Load&& load) {
  std::atomic<bool> stop{false};
  std::vector<double> readings;
  std::string error;
  std::thread sampler([&] {
    try {
      while (!stop.load()) {
        readings.push_back(nvml.power_watts());
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  try {
    load(seconds);
  } catch (...) {
    stop = true;
    sampler.join();
    throw;
  }
  stop = true;
  sampler.join();
  if (!error.empty()) throw GpuError(error);
  if (readings.size() < 4) throw GpuError("too few NVML power readings");
  std::vector<double> tail(readings.begin() + static_cast<std::ptrdiff_t>(readings.size() / 2), readings.end());
  std::sort(tail.begin(), tail.end());
  return tail[tail.size() / 2];
}

}  // namespace

void run_power_sweep(const GpuContext& ctx, const Nvml& nvml) {
  const double window = ctx.quick ? 2.0 : 4.0;
  const auto emit = [&](const char* op, double watts) {
    CalibrationSample s;
    s.kind = "power";
    s.op = op;
    s.dtype = op == std::string("compute") ? "bf16" : "none";
    s.median = MeasuredTime{window};
    s.watts = Watts{watts};
    ctx.emit(s);
    ctx.progress("power", 1, 1, std::string(op) + " " + std::to_string(watts) + " W");
  };
  CS_CUDA(cudaStreamSynchronize(ctx.stream));
  emit("idle", measure(nvml, window, [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }));
  emit("compute", measure(nvml, window, [&](double s) { run_gemm_load(ctx, s); }));

  const std::size_t n = std::size_t{1} << 29;  // 2 GiB of floats each way
  float* buf = nullptr;
  CS_CUDA(cudaMalloc(&buf, 2 * n * sizeof(float)));
  CS_CUDA(kernels::fill_random(buf, static_cast<std::int64_t>(2 * n), kernels::FillType::f32, 5, 1.0f, ctx.stream));
  emit("memory", measure(nvml, window, [&](double s) {
         const auto t0 = std::chrono::steady_clock::now();
         while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < s) {
           for (int i = 0; i < 20; ++i) CS_CUDA(kernels::copy(buf + n, buf, static_cast<std::int64_t>(n), ctx.stream));
           CS_CUDA(cudaStreamSynchronize(ctx.stream));
         }
       }));
  CS_CUDA(cudaFree(buf));
}

}  // namespace cs::calib
