// The committed measured H200 profile against the committed raw samples of its calibration run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/hardware/device_profile.hpp"
#include "sim/store/calibration_sample.hpp"

namespace cs {
namespace {

// The committed measured profile reproduces the committed raw samples it was fitted on: every bf16 GEMM of
// at least 100 us (where launch jitter is negligible) within 10%, and their median within 3%.
TEST(ShippedProfiles, H200PredictsItsOwnLargeBf16Samples) {
  const auto model = make_cost_model(find_device_profile("h200"));
  const SamplesFile f = read_samples_file(std::string(CS_SOURCE_DIR) + "/profiles/h200-calibration/samples-gpu.csv");
  std::vector<double> err;
  for (const auto& s : f.samples) {
    if (s.kind != "gemm" || s.dtype != "bf16" || s.median_s < 100e-6 || (s.k % 8) != 0 || (s.m % 8) != 0) continue;
    err.push_back(std::abs(model->gemm({s.m, s.n, s.k, DType::bf16, 1}).seconds() / s.median_s - 1));
  }
  ASSERT_GT(err.size(), 100u);
  std::sort(err.begin(), err.end());
  EXPECT_LT(err[err.size() / 2], 0.03);
  EXPECT_LT(err[err.size() * 9 / 10], 0.10);
}

}  // namespace
}  // namespace cs
