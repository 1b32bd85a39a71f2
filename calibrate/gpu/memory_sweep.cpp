// Bandwidth-bound kernels (kernels/: copy, add, layernorm, rmsnorm, softmax, Adam) over total traffic from
// 1 MiB to 4 GiB, and host-device copies from pinned memory. `bytes` in a sample is the traffic the kernel
// must move (reads plus writes), so bytes / time is the achieved bandwidth.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "calibrate/gpu/gpu_check.hpp"
#include "calibrate/gpu/gpu_context.hpp"
#include "kernels/kernels.cuh"

namespace cs::calib {
namespace {

constexpr int kCols = 4096;  // row length of the norm and softmax kernels: a typical hidden size

struct OpDesc {
  const char* name;
  double bytes_per_unit;  ///< traffic per element (per row element for the row kernels)
};

const OpDesc kOps[] = {{"copy", 8}, {"add", 12}, {"layernorm", 4}, {"rmsnorm", 4}, {"softmax", 4}, {"adam", 28}};

void emit(const GpuContext& ctx, const char* op, const char* dtype, double bytes, const Timing& t) {
  CalibrationSample s;
  s.kind = "memory";
  s.op = op;
  s.dtype = dtype;
  s.bytes = Bytes{bytes};
  record_timing(t, s);
  ctx.emit(s);
}

}  // namespace

void run_memory_sweep(const GpuContext& ctx) {
  const double max_traffic = 4.0 * (1u << 30);
  const double arena_bytes = 12.0 * (1u << 30);
  float* arena = nullptr;
  CS_CUDA(cudaMalloc(&arena, static_cast<std::size_t>(arena_bytes)));
  CS_CUDA(kernels::fill_random(arena, static_cast<std::int64_t>(arena_bytes / 4), kernels::FillType::f32, 77, 1.0f,
                               ctx.stream));
  float* weights = nullptr;  // norm weight and bias: kCols each
  CS_CUDA(cudaMalloc(&weights, 2 * kCols * sizeof(float)));
  CS_CUDA(kernels::fill_random(weights, 2 * kCols, kernels::FillType::f32, 78, 1.0f, ctx.stream));
  CS_CUDA(cudaStreamSynchronize(ctx.stream));

  std::vector<double> sizes;
  for (double b = 1u << 20; b <= max_traffic; b *= ctx.quick ? 4.0 : 2.0) sizes.push_back(b);
  std::size_t done = 0;
  const std::size_t total = sizes.size() * std::size(kOps);
  for (const OpDesc& op : kOps) {
    for (const double traffic : sizes) {
      ++done;
      const std::string name = op.name;
      const bool row_op = name == "layernorm" || name == "rmsnorm" || name == "softmax";
      // Footprint = traffic for every kernel here (each byte is read or written once).
      std::int64_t units = static_cast<std::int64_t>(traffic / op.bytes_per_unit);
      if (row_op) units = std::max<std::int64_t>(kCols, units / kCols * kCols);
      else units = std::max<std::int64_t>(4, units / 4 * 4);
      const double moved = static_cast<double>(units) * op.bytes_per_unit;
      const int sets = ctx.rotations(moved, arena_bytes);
      const std::size_t stride = static_cast<std::size_t>((moved + 255) / 256) * 256 / sizeof(float);
      const auto at = [&](int i, std::size_t offset_floats) { return arena + static_cast<std::size_t>(i % sets) * stride + offset_floats; };
      const auto n = static_cast<std::size_t>(units);
      const int rows = static_cast<int>(units / kCols);
      const auto launch = [&](int i) {
        if (name == "copy") CS_CUDA(kernels::copy(at(i, n), at(i, 0), units, ctx.stream));
        else if (name == "add") CS_CUDA(kernels::add(at(i, 2 * n), at(i, 0), at(i, n), units, ctx.stream));
        else if (name == "adam") CS_CUDA(kernels::adam(at(i, 0), at(i, n), at(i, 2 * n), at(i, 3 * n), units, 1e-4f, 0.9f, 0.95f, 1e-8f, 1 + i % 100, ctx.stream));
        else {
          auto* x = reinterpret_cast<std::uint16_t*>(at(i, 0));
          auto* y = reinterpret_cast<std::uint16_t*>(at(i, n / 2));
          if (name == "layernorm") CS_CUDA(kernels::layernorm(y, x, weights, weights + kCols, rows, kCols, ctx.stream));
          else if (name == "rmsnorm") CS_CUDA(kernels::rmsnorm(y, x, weights, rows, kCols, ctx.stream));
          else CS_CUDA(kernels::softmax(y, x, rows, kCols, ctx.stream));
        }
      };
      const Timing t = ctx.time(launch);
      emit(ctx, op.name, row_op ? "bf16" : "fp32", moved, t);
      char line[128];
      std::snprintf(line, sizeof line, "%s %.1f MiB  %.2f us  %.0f GB/s", op.name, moved / 1048576.0,
                    t.median_s * 1e6, moved / t.median_s * 1e-9);
      if (done % 6 == 0) ctx.progress("memory", done, total, line);
    }
  }

  // Host-device copies from pinned memory.
  const std::size_t max_copy = ctx.quick ? (256u << 20) : (1u << 30);
  void* host = nullptr;
  CS_CUDA(cudaMallocHost(&host, max_copy));
  std::memset(host, 0x3c, max_copy);  // a non-zero pattern (copies do not depend on values)
  TimingPlan copy_plan = ctx.plan;
  copy_plan.max_reps = 10;
  for (const bool h2d : {true, false}) {
    for (std::size_t b = 64u << 10; b <= max_copy; b *= ctx.quick ? 8 : 4) {
      const auto launch = [&](int) {
        if (h2d) CS_CUDA(cudaMemcpyAsync(arena, host, b, cudaMemcpyHostToDevice, ctx.stream));
        else CS_CUDA(cudaMemcpyAsync(host, arena, b, cudaMemcpyDeviceToHost, ctx.stream));
      };
      const Timing t = ctx.time(launch, copy_plan);
      emit(ctx, h2d ? "h2d" : "d2h", "none", static_cast<double>(b), t);
    }
    ctx.progress("memory", total, total, std::string(h2d ? "h2d" : "d2h") + " copies done");
  }
  CS_CUDA(cudaFreeHost(host));
  CS_CUDA(cudaFree(weights));
  CS_CUDA(cudaFree(arena));
}

}  // namespace cs::calib
