// Sustained runs only: the time-based warm-up, and the duty-cycle sweep the power-cap model is fitted on.
//
// Duty cycle: one bf16 8192^3 GEMM, then c copies of 512 MiB (1 GiB of traffic each, ~0.25 ms), repeated
// for a few seconds at each c (0, 2, 4, 8, 16, 32, and copies alone). The more of each cycle the copies take,
// the lower the board's average power at a given clock, so the power limit lets the SM clock rise: each point
// gives the GEMM's time at another clock (its clock follows from its time, since a large GEMM's time scales
// as 1/f) and, after subtracting the copies' energy, the GEMM's power at that clock. The model's exponent
// (dynamic power ~ f^gamma) is fitted on these points by clustersim-fit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "calibrate/gpu/gpu_check.hpp"
#include "calibrate/gpu/gpu_context.hpp"
#include "kernels/kernels.cuh"

namespace cs::calib {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

double warm_up(const GpuContext& ctx, const NvmlSampler& sampler, double min_s, double max_s) {
  const BusyGemm load(ctx.stream);
  const auto t0 = Clock::now();
  double last_report = 0;
  for (;;) {
    load.enqueue(10);
    CS_CUDA(cudaStreamSynchronize(ctx.stream));
    const double el = since(t0);
    if (!sampler.active()) {
      if (el >= min_s) return el;
      continue;
    }
    if (el - last_report < 1.0) continue;
    last_report = el;
    sampler.check();
    // Settled: the last two 2-second windows agree within 1% in clock and 1.5% in power.
    const auto now = Clock::now();
    const NvmlWindow a = sampler.window(now - std::chrono::seconds(4), now - std::chrono::seconds(2));
    const NvmlWindow b = sampler.window(now - std::chrono::seconds(2), now);
    char line[160];
    std::snprintf(line, sizeof line, "%.0f MHz %.0f W %.0f C reasons 0x%llx", b.sm_mhz, b.watts, b.temp_c, b.reasons);
    ctx.progress("warm-up", static_cast<std::size_t>(el), static_cast<std::size_t>(max_s), line);
    const bool settled = a.sm_mhz > 0 && std::abs(b.sm_mhz - a.sm_mhz) <= 0.01 * a.sm_mhz &&
                         std::abs(b.watts - a.watts) <= 0.015 * a.watts;
    if ((el >= min_s && settled) || el >= max_s) return el;
  }
}

void run_power_mix(const GpuContext& ctx, const NvmlSampler& sampler) {
  const BusyGemm gemm(ctx.stream);
  const std::int64_t n = std::int64_t{1} << 27;  // 512 MiB of floats each way
  float* buf = nullptr;
  CS_CUDA(cudaMalloc(&buf, 2 * static_cast<std::size_t>(n) * sizeof(float)));
  CS_CUDA(kernels::fill_random(buf, 2 * n, kernels::FillType::f32, 7, 1.0f, ctx.stream));
  const double hold_s = ctx.quick ? 1.5 : 3.0;
  const int copies[] = {0, 2, 4, 8, 16, 32, -1};  // -1: copies alone
  for (const int c : copies) {
    const bool with_gemm = c >= 0;
    const int nc = with_gemm ? c : 8;
    // Per cycle: e0 GEMM e1 copies e2. Cycles are queued in batches; the previous batch is read while the
    // current one runs, so the GPU never waits for the host.
    struct Cycle {
      cudaEvent_t e[3];
    };
    const int batch = 8;
    std::vector<Cycle> ring(2 * batch);
    for (auto& cy : ring) {
      for (auto& e : cy.e) CS_CUDA(cudaEventCreate(&e));
    }
    std::vector<double> gemm_s, copy_s;
    const auto t0 = Clock::now();
    Clock::time_point from{};
    bool measuring = false;
    int b = 0;
    const auto read = [&](int which) {
      for (int j = 0; j < batch; ++j) {
        Cycle& cy = ring[static_cast<std::size_t>(which * batch + j)];
        float ms = 0;
        if (with_gemm) {
          CS_CUDA(cudaEventElapsedTime(&ms, cy.e[0], cy.e[1]));
          gemm_s.push_back(ms * 1e-3);
        }
        if (nc > 0) {
          CS_CUDA(cudaEventElapsedTime(&ms, cy.e[1], cy.e[2]));
          copy_s.push_back(ms * 1e-3);
        }
      }
    };
    for (;; ++b) {
      const int cur = b % 2;
      for (int j = 0; j < batch; ++j) {
        Cycle& cy = ring[static_cast<std::size_t>(cur * batch + j)];
        CS_CUDA(cudaEventRecord(cy.e[0], ctx.stream));
        if (with_gemm) gemm.enqueue(1);
        CS_CUDA(cudaEventRecord(cy.e[1], ctx.stream));
        for (int k = 0; k < nc; ++k) CS_CUDA(kernels::copy(buf + n, buf, n, ctx.stream));
        CS_CUDA(cudaEventRecord(cy.e[2], ctx.stream));
      }
      if (b == 0) continue;
      const int prev = 1 - cur;
      CS_CUDA(cudaEventSynchronize(ring[static_cast<std::size_t>(prev * batch + batch - 1)].e[2]));
      if (measuring) read(prev);
      if (!measuring && since(t0) >= hold_s / 2) {
        measuring = true;
        from = Clock::now();
      }
      if (measuring && since(t0) >= hold_s) break;
    }
    CS_CUDA(cudaEventSynchronize(ring[static_cast<std::size_t>((b % 2) * batch + batch - 1)].e[2]));
    const auto to = Clock::now();
    for (auto& cy : ring) {
      for (auto& e : cy.e) cudaEventDestroy(e);
    }
    sampler.check();
    const NvmlWindow w = sampler.window(from, to);
    const auto emit = [&](const char* op, std::vector<double> v, bool shape) {
      Timing t = summarize(std::move(v));
      CalibrationSample s;
      s.kind = "power";
      s.op = op;
      s.dtype = "bf16";
      if (shape) s.m = s.n = s.k = BusyGemm::kSize;
      s.bytes = Bytes{8.0 * static_cast<double>(n) * nc};
      record_timing(t, s);
      s.clocks = "sustained";
      s.watts = Watts{w.watts};
      s.sm_mhz = w.sm_mhz;
      s.temp_c = w.temp_c;
      s.throttle = static_cast<std::int64_t>(w.reasons);
      ctx.emit(s);
    };
    if (with_gemm) emit("mix_gemm", gemm_s, true);
    if (nc > 0) emit("mix_copy", copy_s, with_gemm);
    char line[200];
    std::snprintf(line, sizeof line, "%s %d copies: gemm %.3f ms, copies %.3f ms, %.0f MHz, %.0f W, %.0f C",
                  with_gemm ? "gemm +" : "alone:", nc, gemm_s.empty() ? 0.0 : summarize(gemm_s).median_s * 1e3,
                  copy_s.empty() ? 0.0 : summarize(copy_s).median_s * 1e3, w.sm_mhz, w.watts, w.temp_c);
    ctx.progress("power-mix", 1, 1, line);
  }
  CS_CUDA(cudaFree(buf));
}

}  // namespace cs::calib
