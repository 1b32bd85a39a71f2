// The committed H200 profile against the PyTorch check set: random GEMM shapes (their own seed, apart from
// every calibration draw) run back to back in PyTorch on the H200 at sustained clocks, bf16 in the TN, NN
// and NT layouts and fp8 in TN (calibrate/pytorch/gemm_check.py; profiles/h200-calibration/run4-sustained/
// gemm-check.csv). The profile prices each kernel as the simulator does: the fitted time at the highest
// clock, at the clock the power-cap model gives a GPU kept busy (docs/calibration.md, "Sustained clocks").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "calibrate/fit/calibration_fitter.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/store/calibration_sample.hpp"

namespace cs {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(ShippedProfiles, H200PredictsThePyTorchCheckSetAtSustainedClocks) {
  const SamplesFile check = read_samples_file(std::string(CS_SOURCE_DIR) +
                                              "/profiles/h200-calibration/run4-sustained/gemm-check.csv");
  const auto predictions = fit::predict_samples(find_device_profile("h200"), check);
  std::vector<double> all;
  std::map<std::string, std::vector<double>> by_variant;
  for (const auto& p : predictions) {
    const double e = std::abs(p.predicted_s / p.sample.median_s - 1);
    all.push_back(e);
    by_variant[p.sample.dtype + " " + p.sample.layout].push_back(e);
  }
  // 150 shapes x (bf16 TN, NN, NT; fp8 TN).
  ASSERT_EQ(all.size(), 600u);
  EXPECT_LE(median(all), 0.05);  // the target: median error <= 5%
  for (const auto& [variant, e] : by_variant) {
    EXPECT_EQ(e.size(), 150u) << variant;
    EXPECT_LE(median(e), 0.08) << variant;
  }
}

}  // namespace
}  // namespace cs
