// Grouped expert GEMMs (one GEMM per local expert, as Transformer Engine's GroupedLinear runs them) against H200
// run 13 (calibrate/studies/grouped_gemm_study.py; profiles/h200-calibration/run13-grouped-gemm): MoE layers'
// real shapes (Qwen3-30B-A3B, Qwen3-235B-A22B, DeepSeek-V3), bf16 and fp8, one after another on one stream, on
// four streams, or as one batched GEMM, back to back after a warm-up. The simulator prices them as one batched
// GEMM at the clock its power model gives (layer_ops.cpp). Where the GPU was the bottleneck - it held the board
// at its power limit, so the SM clock fell below 1,900 MHz - the measurement is the GPU's; where the clock
// stayed at 1,980 MHz the Python loop that launched them was (host_sync_step_test.cpp measures that cost).
// Predicted 2026-12-04: 21 GPU-bound per-expert entries, median |error| 1.4%, largest +6.5% (Qwen3-235B fc2 fp8 on
// four streams). One torch.bmm over all experts, which Transformer Engine does not run, is not bounded: the
// price of 16 small experts' GEMMs is 17% above that single kernel's time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "measured_steps.hpp"
#include "sim/hardware/device_profile.hpp"

namespace cs {
namespace {

TEST(GroupedGemm, OneBatchedGemmPricesTheExpertsWhereTheGpuIsTheBottleneck) {
  const auto results = testing::h200_results("run13-grouped-gemm/grouped_gemm.json");
  const DeviceProfile profile = find_device_profile("h200");
  const auto model = make_cost_model(profile);
  std::vector<double> errors;
  for (const auto& r : results) {
    if (r["nvml"]["sm_mhz_median"].get<double>() >= 1900.0) continue;  // launch-bound: the host's time
    if (r["mode"] == "batched") continue;  // torch.bmm: one kernel, not what Transformer Engine runs (printed below)
    const GemmShape s{r["rows"].get<std::int64_t>(), r["n"].get<std::int64_t>(), r["k"].get<std::int64_t>(),
                      r["dtype"] == "fp8" ? DType::fp8 : DType::bf16, r["experts"].get<std::int64_t>()};
    const KernelLoad load = model->gemm_load(s);
    const double predicted = load.at(model->sustained_clock(std::span<const KernelLoad>(&load, 1))).seconds() * 1e6;
    const double measured = r["us_median"].get<double>();
    const double e = predicted / measured - 1.0;
    std::printf("%s %s %s: predicted %.0f us, measured %.0f us (%+.1f%%)\n", r["name"].get<std::string>().c_str(),
                r["dtype"].get<std::string>().c_str(), r["mode"].get<std::string>().c_str(), predicted, measured, e * 100);
    EXPECT_LT(std::fabs(e), 0.10) << r["name"] << " " << r["dtype"] << " " << r["mode"];
    errors.push_back(std::fabs(e));
  }
  ASSERT_GE(errors.size(), 15u);
  std::nth_element(errors.begin(), errors.begin() + static_cast<long>(errors.size() / 2), errors.end());
  EXPECT_LT(errors[errors.size() / 2], 0.05) << "median |error|";
}

}  // namespace
}  // namespace cs
