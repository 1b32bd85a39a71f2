// The committed H200 profile against PyTorch check sets: random GEMM shapes (each set with its own seed, apart
// from every calibration draw) run back to back in PyTorch on the H200, bf16 in the TN, NN and NT layouts and
// fp8 in TN (calibrate/pytorch/gemm_check.py). Two protocols, each priced at the clock it ran at:
//  - steady (run 8's held-out set, seed 20261206, measured before the profile was fitted and looked at once,
//    after): each shape replayed alone for 250 ms until the power regulator settled, priced at the clock the
//    profile's power-cap model gives that kernel alone (SampleClock::own). This is the target.
//  - right after filler GEMMs (runs 4, 5 and 8, 10 ms alone): priced on a GPU kept busy (SampleClock::busy),
//    as `clustersim cost` prices a kernel on its own.
// docs/calibration.md, "Steady state", has the numbers.
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

struct Bounds {
  double median, bias, variant;
};

/// `file` under profiles/, priced by the shipped `profile`.
void expect_check_set(const std::string& file, fit::SampleClock clock, Bounds b, const std::string& profile) {
  const SamplesFile check = read_samples_file(std::string(CS_SOURCE_DIR) + "/profiles/" + file);
  const auto predictions = fit::predict_samples(find_device_profile(profile), check, clock);
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
  EXPECT_LE(median(all), b.median) << file;
  EXPECT_LE(std::abs(median(signed_all)), b.bias) << file;
  for (const auto& [variant, e] : by_variant) {
    std::printf("  %s: median error %.1f%%\n", variant.c_str(), 100 * median(e));
    EXPECT_EQ(e.size(), 150u) << file << " " << variant;
    EXPECT_LE(median(e), b.variant) << file << " " << variant;
  }
}

// The target: a median error of at most 5% on random GEMMs run back to back in PyTorch. The profile
// reaches 3.8% (bias -0.1%; the worst variant, fp8, 4.9%) on run 8's held-out steady set, measured on the
// calibration's machine, and 5.2% (bias +0.1%; fp8 5.9%) on run 9's (seed 20261207), measured on another
// lease whose board held its big GEMMs at 1,575 MHz where run 8's held 1,500 (the model's clocks 60 MHz low
// there): 4.5% over both. Run 9's bound is what it reaches, a guard; the target holds on run 8's and pooled.
TEST(ShippedProfiles, H200PredictsTheHeldOutSteadyCheckSetAtEachKernelsOwnClock) {
  expect_check_set("h200-calibration/run8-clock-pairs/heldout-steady.csv", fit::SampleClock::own, {0.05, 0.02, 0.055},
                   "h200");
  expect_check_set("h200-calibration/run9-heldout/heldout-steady-2.csv", fit::SampleClock::own, {0.055, 0.02, 0.065},
                   "h200");
}

// Timed 10 ms after filler GEMMs the regulator has not settled: the busy GPU's clock is a compromise
// (6.3-6.9% median, +3 to +4.4% slow: the kernels' own settled clocks, which the busy price takes when lower,
// are below what they reach in 10 ms). Held so they cannot silently get worse.
TEST(ShippedProfiles, H200PredictsTheAfterFillerCheckSetsOnABusyGpu) {
  expect_check_set("h200-calibration/run4-sustained/gemm-check.csv", fit::SampleClock::busy, {0.07, 0.05, 0.10},
                   "h200");
  expect_check_set("h200-calibration/run5-align16/gemm-check-2.csv", fit::SampleClock::busy, {0.075, 0.05, 0.10},
                   "h200");
  expect_check_set("h200-calibration/run8-clock-pairs/pairs-after-filler.csv", fit::SampleClock::busy,
                   {0.07, 0.05, 0.10}, "h200");
}

// The H100 profile borrows the H200's GEMM surfaces and power-cap model (same die, same limit). Run 1 on an H100
// 80GB HBM3 (2026-12-05) drew a check set with run 4's seed, 10 ms after the fillers: 6.5% median, +0.1% signed,
// fp8 the worst variant at 9.4% (docs/calibration.md, "H100").
// Run 4 (a third lease) timed the clock pairs' shapes (seed 20261205) the same way: 6.7% median, +3.1% signed.
TEST(ShippedProfiles, H100PredictsItsAfterFillerCheckSetOnABusyGpu) {
  expect_check_set("h100-calibration/run1-sustained/gemm-check.csv", fit::SampleClock::busy, {0.07, 0.03, 0.10},
                   "h100-sxm");
  expect_check_set("h100-calibration/run4-pairs/pairs-after-filler.csv", fit::SampleClock::busy, {0.07, 0.04, 0.10},
                   "h100-sxm");
}

// Run 2 on an H100 (another lease, 2026-12-05): a held-out steady set (seed 20261206), each shape replayed alone
// 250 ms, priced at the kernel's own clock by the borrowed power-cap model: 6.2% median, -0.7% signed (fp8 7.2%).
// Run 4's second held-out set (seed 20261207, a third lease): 6.3% median, -3.3% signed, fp8 about 9% (-7.8%): fp8 is
// predicted fast on this board, the bounds are what it reaches.
TEST(ShippedProfiles, H100PredictsItsHeldOutSteadyCheckSetAtEachKernelsOwnClock) {
  expect_check_set("h100-calibration/run2-steady/heldout-steady.csv", fit::SampleClock::own, {0.07, 0.02, 0.08},
                   "h100-sxm");
  expect_check_set("h100-calibration/run4-pairs/heldout-steady-2.csv", fit::SampleClock::own, {0.07, 0.04, 0.095},
                   "h100-sxm");
}

}  // namespace
}  // namespace cs
