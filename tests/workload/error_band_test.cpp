// Error bands from residuals of comparable rows.
#include "sim/workload/error_band.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace cs {
namespace {

TEST(ErrorBand, CentralIntervalOfComparableRatios) {
  // Five dense bf16 rows at 64-512 GPUs with measured/predicted time 0.9, 0.95, 1.0, 1.05, 1.1, plus an fp8 row
  // and an MoE row that are not comparable. 90% central interval by linear interpolation over 5 sorted logs:
  // p = 0.05 -> x = 0.2 between ln 0.9 and ln 0.95; p = 0.95 -> x = 3.8 between ln 1.05 and ln 1.1. Median ln 1.
  std::vector<Residual> r{{"a", 0.9, false, false, 64},  {"b", 0.95, false, false, 128}, {"c", 1.0, false, false, 256},
                          {"d", 1.05, false, false, 512}, {"e", 1.1, false, false, 64},  {"f", 2.0, true, false, 64},
                          {"g", 3.0, false, true, 64}};
  const ErrorBand b = error_band(10.0, BandQuery{false, false, 128}, r);
  ASSERT_TRUE(b.valid());
  EXPECT_EQ(b.samples, 5);
  const double lo = std::exp(0.8 * std::log(0.9) + 0.2 * std::log(0.95));
  const double hi = std::exp(0.2 * std::log(1.05) + 0.8 * std::log(1.1));
  EXPECT_NEAR(b.low, 10.0 * lo, 1e-9);
  EXPECT_NEAR(b.high, 10.0 * hi, 1e-9);
  EXPECT_NE(b.basis.find("5 validation rows (dense, 16-bit, 16-1024 GPUs)"), std::string::npos) << b.basis;
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
