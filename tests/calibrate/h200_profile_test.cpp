// The committed measured H200 profile against the committed raw samples of its calibration run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "calibrate/fit/calibration_fitter.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/store/calibration_sample.hpp"

namespace cs {
namespace {

// The committed measured profile against run 2's burst-clock raw samples (TN, at the highest clock, which is
// what the profile's surfaces describe): bf16 GEMMs of at least 100 us (where launch jitter is negligible),
// 90% within 10% and their median within 4%. Since run 5 the bf16 TN surface is fitted on the sustained
// samples alone, each brought to the highest clock by the power-cap model and the clock-reading correction
// (docs/calibration.md): run 2's burst timings are then an independent check, reproduced to 3.6% (median).
TEST(ShippedProfiles, H200PredictsItsOwnLargeBf16Samples) {
  const auto model = make_cost_model(find_device_profile("h200"));
  const SamplesFile f = read_samples_file(std::string(CS_SOURCE_DIR) + "/profiles/h200-calibration/samples-gpu.csv");
  std::vector<double> err;
  for (const auto& s : f.samples) {
    if (s.kind != "gemm" || s.dtype != "bf16" || s.median < MeasuredTime{100e-6} || (s.k % 8) != 0 || (s.m % 8) != 0)
      continue;
    err.push_back(
        std::abs(model->gemm_load({s.m, s.n, s.k, DType::bf16, 1}).at_max_clock.seconds() / s.median.value() - 1));
  }
  ASSERT_GT(err.size(), 100u);
  std::sort(err.begin(), err.end());
  EXPECT_LT(err[err.size() / 2], 0.04);
  EXPECT_LT(err[err.size() * 9 / 10], 0.10);
}

// The accuracy target, reproduced from the committed raw samples by the fitter's default split: a
// random quarter of the GEMM and attention samples held out, median error <= 5% on each and p90 <= 15% for
// attention and for GEMMs of at least 20 us; and the committed profile records exactly what this fit gives
// (it was made by this code from these files, in this order: run 4's sustained and burst samples, run 5's
// sustained samples in multiples of 16, run 2's burst samples, run 2's attention, then the steady PyTorch GEMMs
// of runs 7 and 8, which also fit the power model's active/tensor split). Since run 5 a format and
// layout with enough sustained samples is fitted (and held out) on those alone, so graph-replayed and
// stream-launched timings of the same small shapes are no longer mixed (docs/calibration.md, "Holdout").
TEST(ShippedProfiles, H200HoldoutMeetsTheTargetAndMatchesTheCommittedProfile) {
  const std::string dir = std::string(CS_SOURCE_DIR) + "/profiles/h200-calibration/";
  SamplesFile samples = read_samples_file(dir + "run4-sustained/samples-gpu.csv");
  for (const char* more : {"run4-sustained/samples-burst.csv", "run5-align16/samples-align16.csv", "samples-gpu.csv",
                           "samples-attention.csv", "run7-steady/gemm-check-steady.csv",
                           "run8-clock-pairs/pairs-steady.csv"}) {
    const SamplesFile f = read_samples_file(dir + more);
    samples.samples.insert(samples.samples.end(), f.samples.begin(), f.samples.end());
  }
  fit::FitOptions opt;
  opt.profile_name = "h200";
  const fit::FitResult r = fit::fit_calibration(find_device_profile("h200-datasheet"), samples, opt);
  EXPECT_GT(r.gemm_holdout.count, 2000);
  EXPECT_GT(r.attention_holdout.count, 100);
  EXPECT_LE(r.gemm_holdout.median, 0.05);
  EXPECT_LE(r.gemm_holdout.p90, 0.15);
  EXPECT_LE(r.attention_holdout.median, 0.05);
  EXPECT_LE(r.attention_holdout.p90, 0.15);
  std::vector<double> pred, meas;
  for (const auto& h : r.holdout) {
    if (h.sample.kind == "gemm" && h.sample.median >= MeasuredTime{20e-6}) {
      pred.push_back(h.predicted_s);
      meas.push_back(h.sample.median.value());
    }
  }
  const fit::ErrorStats long_kernels = fit::error_stats(pred, meas);
  EXPECT_GT(long_kernels.count, 1500);
  EXPECT_LE(long_kernels.median, 0.05);
  EXPECT_LE(long_kernels.p90, 0.15);
  const auto committed = find_device_profile("h200").fits.calibration;
  ASSERT_TRUE(committed.has_value());
  EXPECT_EQ(committed->gemm_holdout_count, r.gemm_holdout.count);
  EXPECT_NEAR(committed->gemm_holdout_p90, r.gemm_holdout.p90, 1e-9);
  EXPECT_NEAR(committed->attention_holdout_p90, r.attention_holdout.p90, 1e-9);
  // The capacity is the memory CUDA reported on the calibrated H200, as the fit writes it.
  EXPECT_EQ(find_device_profile("h200").gpu.memory, r.profile.gpu.memory);
  EXPECT_NEAR(r.profile.gpu.memory.value() / 1.5010988e11, 1.0, 1e-6);
}

// The borrowed H100 profile carries the memory CUDA reported on the real H100 of calibration run 1 (79.2 GiB), not
// the datasheet's "80GB" read as 80e9 bytes (74.5 GiB); the H800 (same board, less NVLink) the same.
TEST(ShippedProfiles, H100CapacityIsWhatTheRealH100Reported) {
  const SamplesFile run1 = read_samples_file(std::string(CS_SOURCE_DIR) +
                                             "/profiles/h100-calibration/run1-sustained/samples-burst.csv");
  ASSERT_GT(run1.run.memory.value(), 0.0);
  EXPECT_NEAR(find_device_profile("h100-sxm").gpu.memory.value() / run1.run.memory.value(), 1.0, 1e-6);
  EXPECT_EQ(find_device_profile("h800-sxm").gpu.memory, find_device_profile("h100-sxm").gpu.memory);
}

}  // namespace
}  // namespace cs
