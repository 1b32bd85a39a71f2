// The committed H200 profile against the PyTorch check set: random GEMM shapes (their own seed, apart from
// every calibration draw) run back to back in PyTorch on the H200 at sustained clocks, bf16 in the TN, NN
// and NT layouts and fp8 in TN (calibrate/pytorch/gemm_check.py; profiles/h200-calibration/run4-sustained/
// gemm-check.csv and run5-align16/gemm-check-2.csv). The profile prices each kernel as the simulator does: the fitted time at the highest
// clock, at the clock the power-cap model gives a GPU kept busy (docs/calibration.md, "Sustained clocks").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

// What the committed profile achieves on the two check sets (run 4's, seed 20261210, and run 5's, seed
// 20261203, drawn after the profile of run 4 was fixed), held so it cannot silently get worse. The issue's
// target is a median error of at most 5%; the profile reaches 6.2% and 6.3% (docs/calibration.md, "The PyTorch
// check set", says where the rest is: kernels under 20 us are priced at the clock of a GPU kept busy while
// the check's own reading is higher, and PyTorch picks other kernels for some shapes). The bounds sit just
// above what it reaches: overall median <= 6.5%, no bias (median signed error within +-3%), each variant's
// median <= 9% (bf16 TN is the worst: 7.8% and 8.3%).
void expect_check_set(const std::string& file) {
  const SamplesFile check = read_samples_file(std::string(CS_SOURCE_DIR) + "/profiles/h200-calibration/" + file);
  const auto predictions = fit::predict_samples(find_device_profile("h200"), check);
  std::vector<double> all, signed_all;
  std::map<std::string, std::vector<double>> by_variant;
  for (const auto& p : predictions) {
    const double e = p.predicted_s / p.sample.median.value() - 1;  // +: predicted too slow
    all.push_back(std::abs(e));
    signed_all.push_back(e);
    by_variant[p.sample.dtype + " " + p.sample.layout].push_back(std::abs(e));
  }
  // 150 shapes x (bf16 TN, NN, NT; fp8 TN).
  ASSERT_EQ(all.size(), 600u) << file;
  std::printf("%s: median error %.1f%%, median signed %+.1f%%\n", file.c_str(), 100 * median(all),
              100 * median(signed_all));
  EXPECT_LE(median(all), 0.065) << file;
  EXPECT_LE(std::abs(median(signed_all)), 0.03) << file;
  for (const auto& [variant, e] : by_variant) {
    std::printf("  %s: median error %.1f%%\n", variant.c_str(), 100 * median(e));
    EXPECT_EQ(e.size(), 150u) << file << " " << variant;
    EXPECT_LE(median(e), 0.09) << file << " " << variant;
  }
}

TEST(ShippedProfiles, H200PredictsThePyTorchCheckSetAtSustainedClocks) {
  expect_check_set("run4-sustained/gemm-check.csv");
  expect_check_set("run5-align16/gemm-check-2.csv");
}

}  // namespace
}  // namespace cs
