// Error bands from residuals of comparable rows.
#include "sim/workload/error_band.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace cs {
namespace {

TEST(ErrorBand, CentralIntervalOfComparableRatios) {
  // Five dense bf16 rows at 64-512 GPUs with measured/predicted time 0.9, 0.95, 1.0, 1.05, 1.1, plus an fp8 row
  // and an MoE row that are not comparable. The quantiles sit at the plotting positions p (n + 1): 0.3 and 5.7 of
  // 5 values lie outside the sample, so the 90% interval is its extremes (one more row falls between the least
  // and the greatest of five with probability 4/6). The median is the third value, ln 1.
  std::vector<Residual> r{{"a", 0.9, false, false, 64},  {"b", 0.95, false, false, 128}, {"c", 1.0, false, false, 256},
                          {"d", 1.05, false, false, 512}, {"e", 1.1, false, false, 64},  {"f", 2.0, true, false, 64},
                          {"g", 3.0, false, true, 64}};
  const ErrorBand b = error_band(10.0, BandQuery{false, false, 128}, r);
  ASSERT_TRUE(b.valid());
  EXPECT_EQ(b.samples, 5);
  EXPECT_NEAR(b.low, 10.0 * 0.9, 1e-9);
  EXPECT_NEAR(b.high, 10.0 * 1.1, 1e-9);
  EXPECT_NE(b.basis.find("5 validation rows (dense, 16-bit, 16-1024 GPUs)"), std::string::npos) << b.basis;
}

// With 39 rows the 5% and 95% plotting positions are the 2nd and the 38th values exactly.
TEST(ErrorBand, TailsAtThePlottingPositions) {
  std::vector<Residual> r;
  for (int k = 1; k <= 39; ++k) r.push_back(Residual{"r" + std::to_string(k), 1.0 + 0.01 * k, false, false, 64});
  const ErrorBand b = error_band(1.0, BandQuery{false, false, 64}, r);
  EXPECT_EQ(b.samples, 39);
  EXPECT_NEAR(b.low, 1.02, 1e-9);
  EXPECT_NEAR(b.high, 1.38, 1e-9);
}

TEST(ErrorBand, CalibrationSpreadWidensInQuadrature) {
  std::vector<Residual> r(5, Residual{"x", 1.0, false, false, 8});
  // All ratios 1: the validation rows alone give a zero-width band; a 10% p90 kernel error widens each side by ln 1.1.
  const ErrorBand b = error_band(2.0, BandQuery{false, false, 8}, r, 0.10);
  EXPECT_NEAR(b.low, 2.0 / 1.1, 1e-9);
  EXPECT_NEAR(b.high, 2.0 * 1.1, 1e-9);
}

TEST(ErrorBand, LoosensComparabilityWhenTooFewRows) {
  // Only two MoE rows exist: the MoE query falls back to all rows (the basis says "dense" is not required).
  std::vector<Residual> r{{"a", 1.0, false, false, 8}, {"b", 1.0, false, false, 8}, {"c", 1.2, false, true, 8},
                          {"d", 1.2, false, true, 8},  {"e", 1.0, true, false, 8}};
  const ErrorBand b = error_band(1.0, BandQuery{false, true, 8}, r);
  EXPECT_EQ(b.samples, 5);
  EXPECT_FALSE(error_band(1.0, BandQuery{}, {}).valid());
}

}  // namespace
}  // namespace cs
