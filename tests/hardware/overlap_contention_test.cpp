// The GEMM slowdown beside a resident communication kernel, against the H200 measurements it interpolates
// (profiles/h200-calibration/run11-overlap-contention).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/hardware/overlap_contention.hpp"

namespace cs {
namespace {

TEST(OverlapContention, PassesThroughTheMeasuredCopyKernelPoints) {
  std::ifstream in(std::string(CS_SOURCE_DIR) + "/profiles/h200-calibration/run11-overlap-contention/overlap_contention.json");
  ASSERT_TRUE(in) << "measurement file missing";
  const auto runs = nlohmann::json::parse(in)["results"];
  double alone = 0;
  int n = 0;
  for (const auto& r : runs) {
    if (r["kind"] == "alone") { alone += r["gemm_ms"].get<double>(); ++n; }
  }
  ASSERT_GT(n, 0);
  alone /= n;
  for (const int ctas : {8, 16, 32, 66}) {
    double beside = 0;
    int k = 0;
    for (const auto& r : runs) {
      if (r["kind"] == "copy" && r["ctas"].get<int>() == ctas) { beside += r["gemm_ms"].get<double>(); ++k; }
    }
    ASSERT_GT(k, 0) << ctas;
    const double measured = beside / k / alone - 1.0;
    EXPECT_NEAR(overlap_gemm_slowdown(ctas, 132), measured, 0.002) << ctas << " CTAs";
  }
}

TEST(OverlapContention, ZeroWithoutSmsMonotoneAndScaledBySmCount) {
  EXPECT_EQ(overlap_gemm_slowdown(0, 132), 0.0);
  double last = 0;
  for (int sms = 1; sms <= 100; ++sms) {
    const double s = overlap_gemm_slowdown(sms, 132);
    EXPECT_GE(s, last) << sms;
    last = s;
  }
  // The same share of the SMs costs the same on a GPU with twice as many.
  EXPECT_NEAR(overlap_gemm_slowdown(32, 264), overlap_gemm_slowdown(16, 132), 1e-12);
  // Halfway between the measured 8 and 16 CTAs (9.8% and 24.4%): 12 CTAs, 17.1%.
  EXPECT_NEAR(overlap_gemm_slowdown(12, 132), (0.098 + 0.244) / 2, 1e-9);
}

}  // namespace
}  // namespace cs
