// Fitting on synthetic samples whose true parameters are known: each model is generated from a known
// GemmFit / AttentionFit / LinearCost, fitted back, and must predict shapes it never saw.
#include "calibrate/fit/kernel_fits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calibrate/fit/error_stats.hpp"

namespace cs::fit {
namespace {

constexpr int kSms = 132;
const FlopRate kPeak{989.4e12};

// Truth: tile 128x128, launch 3 us, ln(eff) = -2 + 0.05 ln m + 0.05 ln n + 0.1 ln k - 0.004 (ln k)^2, which
// runs from eff 0.29 (64^3) to 0.65 (16384^3). Monomial order of degree 2 in (m, n, k):
// 1, m, n, k, mm, mn, mk, nn, nk, kk.
GemmFit truth_gemm() {
  GemmFit g;
  g.tile_m = 128;
  g.tile_n = 128;
  g.launch = Time::us(3);
  g.surface.degree = 2;
  g.surface.log_min = {std::log(32.0), std::log(32.0), std::log(32.0)};
  g.surface.log_max = {std::log(32768.0), std::log(32768.0), std::log(32768.0)};
  g.surface.coefficients = {-2.0, 0.05, 0.05, 0.1, 0, 0, 0, 0, 0, -0.004};
  return g;
}

std::vector<GemmSample> gemm_samples(const GemmFit& truth, int count, std::uint64_t seed, double noise) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> lg(std::log(64.0), std::log(16384.0));
  std::normal_distribution<double> err(0.0, noise);
  std::vector<GemmSample> v;
  for (int i = 0; i < count; ++i) {
    const auto d = [&] { return static_cast<std::int64_t>(std::exp(lg(rng))) / 64 * 64 + 64; };
    GemmShape s{d(), d(), d(), DType::bf16, 1};
    v.push_back({s, truth.time(s, kSms, kPeak).seconds() * std::exp(noise > 0 ? err(rng) : 0.0)});
  }
  return v;
}

ErrorStats evaluate(const GemmFit& fit, const std::vector<GemmSample>& test) {
  std::vector<double> pred, meas;
  for (const auto& s : test) {
    pred.push_back(fit.time(s.shape, kSms, kPeak).seconds());
    meas.push_back(s.seconds);
  }
  return error_stats(pred, meas);
}

TEST(FitGemm, RecoversTilesLaunchAndSurfaceFromExactSamples) {
  const GemmFit truth = truth_gemm();
  const GemmFit fit = fit_gemm(gemm_samples(truth, 400, 1, 0.0), kSms, kPeak);
  EXPECT_EQ(fit.tile_m, 128);
  EXPECT_EQ(fit.tile_n, 128);
  EXPECT_EQ(fit.launch, Time::us(3));
  const ErrorStats e = evaluate(fit, gemm_samples(truth, 200, 2, 0.0));  // shapes the fit never saw
  EXPECT_LT(e.median, 1e-3);
  EXPECT_LT(e.max, 1e-2);
}

TEST(FitGemm, PredictsUnseenShapesWithinTheNoiseOfNoisySamples) {
  const GemmFit truth = truth_gemm();
  // 3% log-normal measurement noise: the fit averages it out, so unseen shapes (compared with the noise-free
  // truth) land well inside 3%.
  const GemmFit fit = fit_gemm(gemm_samples(truth, 600, 3, 0.03), kSms, kPeak);
  const ErrorStats e = evaluate(fit, gemm_samples(truth, 200, 4, 0.0));
  EXPECT_LT(e.median, 0.02);
  EXPECT_LT(e.p90, 0.05);
}

TEST(FitGemm, FindsTheCeilingOfMisalignedShapes) {
  // Misaligned truth: shapes with an odd k or m (2-byte alignment in bf16) never exceed 12% of peak.
  GemmFit truth = truth_gemm();
  truth.misaligned_caps = {0.12, 1.0};
  auto v = gemm_samples(truth, 300, 5, 0.0);
  std::mt19937_64 rng(6);
  std::uniform_int_distribution<std::int64_t> odd(100, 9000);
  for (int i = 0; i < 100; ++i) {
    GemmShape s{odd(rng) | 1, odd(rng), odd(rng) | 1, DType::bf16, 1};  // odd m and k: 2-byte alignment
    v.push_back({s, truth.time(s, kSms, kPeak).seconds()});
  }
  const GemmFit fit = fit_gemm(v, kSms, kPeak);
  ASSERT_EQ(fit.misaligned_caps.size(), 2u);
  EXPECT_NEAR(fit.misaligned_caps[0], 0.12, 0.01);
  const GemmShape big{8191, 8192, 8191, DType::bf16, 1};  // deep in the ceiling-bound region
  EXPECT_NEAR(fit.time(big, kSms, kPeak) / truth.time(big, kSms, kPeak), 1.0, 0.03);
}

TEST(FitAttention, RecoversASurfaceFromExactSamples) {
  // Truth: launch 2 us, ln(eff) = -1 + 0.05 ln(batch*heads) + 0.08 ln(seq) - 0.05 ln(head_dim).
  AttentionFit truth;
  truth.launch = Time::us(2);
  truth.surface.degree = 1;
  truth.surface.log_min = {0.0, std::log(128.0), std::log(32.0)};
  truth.surface.log_max = {std::log(1024.0), std::log(32768.0), std::log(256.0)};
  truth.surface.coefficients = {-1.0, 0.05, 0.08, -0.05};
  std::vector<AttentionSample> train, test;
  for (std::int64_t b : {1, 2, 4, 8}) {
    for (std::int64_t h : {16, 32, 48}) {
      for (std::int64_t s : {1024, 2048, 4096, 8192, 16384}) {
        for (std::int64_t d : {64, 128}) {
          for (bool bwd : {false, true}) {
            AttentionShape a;
            a.batch = b;
            a.heads = a.kv_heads = h;
            a.seq_q = a.seq_kv = s;
            a.head_dim = d;
            a.backward = bwd;
            ((b + h + s / 1024 + d / 64) % 4 == 0 ? test : train).push_back({a, truth.time(a, kPeak).seconds()});
          }
        }
      }
    }
  }
  const AttentionFit fit = fit_attention(train, kPeak);
  EXPECT_EQ(fit.launch, Time::us(2));
  for (const auto& s : test) EXPECT_NEAR(fit.time(s.shape, kPeak).seconds() / s.seconds, 1.0, 1e-3);
}

TEST(FitLinear, RecoversLatencyAndBandwidth) {
  // t = 5 us + bytes / 2 TB/s, sizes 1 KiB .. 1 GiB.
  std::vector<SizedSample> v;
  for (double b = 1024; b <= 1073741824.0; b *= 4) v.push_back({b, 5e-6 + b / 2e12});
  const LinearCost c = fit_linear(v);
  EXPECT_NEAR(c.latency.seconds(), 5e-6, 1e-9);
  EXPECT_NEAR(c.bandwidth.value() / 2e12, 1.0, 1e-6);
  EXPECT_THROW((void)fit_linear({{1024, 1e-5}}), std::invalid_argument);
}

TEST(FitSegments, SeparatesSizeRanges) {
  // Below 64 KiB: 5 us + bytes / 50 GB/s; above: 20 us + bytes / 2 TB/s (an NCCL protocol switch).
  std::vector<SizedSample> v;
  for (double b = 1024; b <= 65536; b *= 2) v.push_back({b, 5e-6 + b / 50e9});
  for (double b = 131072; b <= 1073741824.0; b *= 4) v.push_back({b, 20e-6 + b / 2e12});
  const auto segs = fit_segments(v, {65536.0});
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_DOUBLE_EQ(segs[0].up_to.value(), 65536.0);
  EXPECT_NEAR(segs[0].cost.latency.seconds(), 5e-6, 1e-9);
  EXPECT_NEAR(segs[0].cost.bandwidth.value() / 50e9, 1.0, 1e-6);
  EXPECT_NEAR(segs[1].cost.latency.seconds(), 20e-6, 1e-9);
  EXPECT_NEAR(segs[1].cost.bandwidth.value() / 2e12, 1.0, 1e-6);
}

TEST(ErrorStats, MedianAndPercentiles) {
  // Relative errors 0%, +10%, -20%, +30%, +40%: |e| sorted 0, .1, .2, .3, .4 -> median .2, p90 .36
  // (interpolated between .3 and .4), signed median +10%.
  const ErrorStats e = error_stats({1.0, 1.1, 0.8, 1.3, 1.4}, {1, 1, 1, 1, 1});
  EXPECT_EQ(e.count, 5);
  EXPECT_NEAR(e.median, 0.2, 1e-12);
  EXPECT_NEAR(e.p90, 0.36, 1e-12);
  EXPECT_NEAR(e.max, 0.4, 1e-12);
  EXPECT_NEAR(e.bias, 0.1, 1e-12);
}

}  // namespace
}  // namespace cs::fit
