// The whole CPU path on synthetic samples with known truth: samples file -> fit with a held-out quarter ->
// measured profile written, loaded back through load_device_profile, and predicting as the fit did.
#include "calibrate/fit/calibration_fitter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "calibrate/fit/gpt_step_estimate.hpp"
#include "temp_path.hpp"

namespace cs::fit {
namespace {

SamplesFile synthetic_samples(const DeviceProfile& base) {
  SamplesFile f;
  f.run.gpu_name = "Synthetic GPU";
  f.run.sm_count = base.gpu.sm_count;
  f.run.driver = "0";
  f.run.date = "2026-12-02T00:00:00Z";
  // GEMM truth: launch 4 us + FLOPs / (peak * eff), eff = 0.7 * k / (k + 256).
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> lg(std::log(128.0), std::log(16384.0));
  for (int i = 0; i < 200; ++i) {
    const auto d = [&] { return static_cast<std::int64_t>(std::exp(lg(rng))) / 64 * 64 + 64; };
    CalibrationSample s;
    s.kind = "gemm";
    s.op = "gemm";
    s.dtype = "bf16";
    s.m = d();
    s.n = d();
    s.k = d();
    const double k = static_cast<double>(s.k);
    s.median = MeasuredTime{4e-6 + 2.0 * static_cast<double>(s.m * s.n) * k /
                                       (base.gpu.peak_for(DType::bf16).value() * 0.7 * k / (k + 256))};
    f.samples.push_back(s);
  }
  // Attention truth: 2 us + FLOPs / (peak * 0.4) forward, 0.35 backward.
  for (std::int64_t b : {1, 2, 4}) {
    for (std::int64_t h : {16, 32}) {
      for (std::int64_t seq : {1024, 2048, 4096, 8192}) {
        for (const char* op : {"fwd", "bwd"}) {
          CalibrationSample s;
          s.kind = "attention";
          s.op = op;
          s.dtype = "bf16";
          s.batch = b;
          s.heads = h;
          s.seq = seq;
          s.head_dim = 128;
          const double fwd = 4.0 * static_cast<double>(b * h * seq * seq * 128) / 2;
          s.median = MeasuredTime{2e-6 + (s.op == "fwd" ? fwd / 0.4 : 2.5 * fwd / 0.35) /
                                             base.gpu.peak_for(DType::bf16).value()};
          f.samples.push_back(s);
        }
      }
    }
  }
  for (const char* op : {"copy", "add"}) {  // 3 us + bytes / 4 TB/s
    for (double b = 1 << 20; b <= 4.0 * (1 << 30); b *= 2) {
      CalibrationSample s;
      s.kind = "memory";
      s.op = op;
      s.dtype = "fp32";
      s.bytes = Bytes{b};
      s.median = MeasuredTime{3e-6 + b / 4e12};
      f.samples.push_back(s);
    }
  }
  for (const char* op : {"idle", "compute", "memory"}) {
    CalibrationSample s;
    s.kind = "power";
    s.op = op;
    s.watts = Watts{op == std::string("idle") ? 100.0 : op == std::string("compute") ? 650.0 : 500.0};
    f.samples.push_back(s);
  }
  return f;
}

TEST(CalibrationFitter, FitsHoldsOutAQuarterAndWritesALoadableProfile) {
  const DeviceProfile base = find_device_profile("h200-datasheet");
  const SamplesFile samples = synthetic_samples(base);
  FitOptions opt;
  opt.profile_name = "synthetic";
  opt.samples_reference = "synthetic";
  const FitResult r = fit_calibration(base, samples, opt);

  EXPECT_EQ(r.gemm_holdout.count, 50);       // a quarter of 200
  EXPECT_EQ(r.attention_holdout.count, 12);  // a quarter of 48
  EXPECT_LT(r.gemm_holdout.median, 0.01);
  EXPECT_LT(r.gemm_holdout.p90, 0.03);
  EXPECT_LT(r.attention_holdout.p90, 0.01);
  EXPECT_EQ(r.profile.provenance.kind, "measured");
  ASSERT_TRUE(r.profile.fits.memory.has_value());
  EXPECT_NEAR(r.profile.fits.memory->bandwidth.value() / 4e12, 1.0, 1e-6);
  EXPECT_NEAR(r.profile.fits.memory->latency.seconds(), 3e-6, 2e-9);
  ASSERT_TRUE(r.profile.fits.power.has_value());
  EXPECT_DOUBLE_EQ(r.profile.fits.power->compute.value(), 650);
  EXPECT_DOUBLE_EQ(r.profile.gpu.idle_power.value(), 100);

  // No memory in the samples' header: the datasheet's stays.
  EXPECT_EQ(r.profile.gpu.memory, base.gpu.memory);

  // Written and read back, the profile predicts what the fit predicted.
  const auto path = cs::testing::temp_file("synthetic_profile", ".yaml").string();
  {
    std::ofstream out(path);
    write_device_profile(out, r.profile);
  }
  const DeviceProfile loaded = load_device_profile(path);
  EXPECT_TRUE(loaded.measured());
  const auto a = make_cost_model(r.profile), b = make_cost_model(loaded);
  for (const auto& h : r.holdout) {
    if (h.sample.kind != "gemm") continue;
    const GemmShape s{h.sample.m, h.sample.n, h.sample.k, DType::bf16, 1};
    EXPECT_NEAR(b->gemm(s) / a->gemm(s), 1.0, 1e-4);  // residual rows are written with 6 digits
  }
  EXPECT_EQ(b->memory_bound(Bytes{1e9}), a->memory_bound(Bytes{1e9}));
}

// Samples of two attention kernels (the samples' algo column: attention_bench.py --backend flash or cudnn) fit two
// families: cuDNN's fused attention, here twice as fast as FlashAttention-2's truth, gets fits of its own, which
// the profile writes and reads back, and a shape asks for by its kernel; the flash fits stay as they were.
TEST(CalibrationFitter, FitsCudnnAttentionApartFromFlash) {
  const DeviceProfile base = find_device_profile("h200-datasheet");
  SamplesFile samples = synthetic_samples(base);
  const std::size_t flash = samples.samples.size();
  for (std::size_t i = 0; i < flash; ++i) {
    CalibrationSample s = samples.samples[i];
    if (s.kind != "attention") continue;
    samples.samples[i].algo = "flash";
    s.algo = "cudnn";
    s.median = MeasuredTime{2e-6 + (s.median.value() - 2e-6) / 2};
    samples.samples.push_back(s);
  }
  FitOptions opt;
  opt.profile_name = "synthetic";
  const FitResult r = fit_calibration(base, samples, opt);
  ASSERT_TRUE(r.profile.fits.cudnn_attention_fwd.count(DType::bf16));
  ASSERT_TRUE(r.profile.fits.cudnn_attention_bwd.count(DType::bf16));
  EXPECT_EQ(r.attention_holdout.count, 24);  // a quarter of 96
  EXPECT_LT(r.attention_holdout.p90, 0.01);

  const auto path = cs::testing::temp_file("synthetic_cudnn_profile", ".yaml").string();
  {
    std::ofstream out(path);
    write_device_profile(out, r.profile);
  }
  const auto model = make_cost_model(load_device_profile(path));
  std::filesystem::remove(path);
  for (const bool backward : {false, true}) {
    AttentionShape a{2, 32, 32, 4096, 4096, 128, true, backward, DType::bf16};
    const double fwd_flops = 4.0 * 2 * 32 * 4096.0 * 4096 * 128 / 2;
    const double flash_truth = 2e-6 + (backward ? 2.5 * fwd_flops / 0.35 : fwd_flops / 0.4) /
                                          base.gpu.peak_for(DType::bf16).value();
    const double t_flash = model->attention_load(a).at_max_clock.seconds();
    a.kernel = FusedAttention::cudnn;
    const double t_cudnn = model->attention_load(a).at_max_clock.seconds();
    EXPECT_NEAR(t_flash / flash_truth, 1.0, 0.01) << backward;
    EXPECT_NEAR(t_cudnn / (2e-6 + (flash_truth - 2e-6) / 2), 1.0, 0.01) << backward;
  }
}

// A profile without cuDNN fits prices cuDNN's kernel with its flash fits (the documented fallback).
TEST(CalibrationFitter, CudnnAttentionFallsBackToTheFlashFits) {
  const DeviceProfile base = find_device_profile("h200-datasheet");
  FitOptions opt;
  opt.profile_name = "synthetic";
  const FitResult r = fit_calibration(base, synthetic_samples(base), opt);
  EXPECT_TRUE(r.profile.fits.cudnn_attention_fwd.empty());
  const auto model = make_cost_model(r.profile);
  AttentionShape a{2, 32, 32, 4096, 4096, 128, true, false, DType::bf16};
  const Time flash = model->attention(a);
  a.kernel = FusedAttention::cudnn;
  EXPECT_EQ(model->attention(a), flash);
}

// The profile's capacity is the memory CUDA reported on the calibrated GPU (the samples' memory_bytes), not the
// datasheet's rounded figure: an "80GB" H100 reports 85,017,493,504 bytes (79.2 GiB), written back exactly.
TEST(CalibrationFitter, TakesTheMemoryTheCalibratedGpuReported) {
  const DeviceProfile base = find_device_profile("h100-sxm-datasheet");
  SamplesFile samples = synthetic_samples(base);
  samples.run.memory = Bytes{85017493504.0};
  FitOptions opt;
  opt.profile_name = "synthetic";
  const FitResult r = fit_calibration(base, samples, opt);
  EXPECT_EQ(base.gpu.memory, Bytes{80e9});
  EXPECT_EQ(r.profile.gpu.memory, Bytes{85017493504.0});
  const auto path = cs::testing::temp_file("synthetic_memory_profile", ".yaml").string();
  {
    std::ofstream out(path);
    write_device_profile(out, r.profile);
  }
  EXPECT_EQ(load_device_profile(path).gpu.memory, Bytes{85017493504.0});
  std::filesystem::remove(path);
}

// A profile held against samples: one prediction per GEMM and attention sample, equal to the fit's own
// predictions on the held-out ones, and a subset table whose first row counts them all.
TEST(CalibrationFitter, PredictsSamplesItNeverSawAndTabulatesTheErrors) {
  const DeviceProfile base = find_device_profile("h200-datasheet");
  const SamplesFile samples = synthetic_samples(base);
  FitOptions opt;
  opt.profile_name = "synthetic";
  const FitResult r = fit_calibration(base, samples, opt);
  const auto predicted = predict_samples(r.profile, samples);
  ASSERT_EQ(predicted.size(), 248u);  // 200 GEMMs + 48 attention samples; memory and power are not predicted
  for (const auto& h : r.holdout) {
    const auto same = std::find_if(predicted.begin(), predicted.end(), [&](const HeldOutPrediction& p) {
      return p.sample.kind == h.sample.kind && p.sample.op == h.sample.op && p.sample.m == h.sample.m &&
             p.sample.n == h.sample.n && p.sample.k == h.sample.k && p.sample.batch == h.sample.batch &&
             p.sample.heads == h.sample.heads && p.sample.seq == h.sample.seq;
    });
    ASSERT_NE(same, predicted.end());
    EXPECT_DOUBLE_EQ(same->predicted_s, h.predicted_s);
  }
  const std::string table = format_prediction_subsets(predicted, "subset");
  EXPECT_NE(table.find("| GEMM + attention (all) | 248 |"), std::string::npos) << table;
  EXPECT_NE(table.find("| GEMM, 16-byte-aligned leading dimensions | 200 |"), std::string::npos) << table;
  EXPECT_EQ(table.find("misaligned"), std::string::npos) << table;  // no misaligned sample: no row
}

// A cost model where every kind of kernel has its own fixed cost, to count the kernels of a GPT step.
class CountingModel final : public ComputeCostModel {
 public:
  [[nodiscard]] Time gemm(const GemmShape&) const override { return Time::us(1); }
  [[nodiscard]] Time attention(const AttentionShape&) const override { return Time::us(10); }
  [[nodiscard]] Time memory_bound(Bytes) const override { return Time::ns(100); }
  [[nodiscard]] const Provenance& provenance() const override { return p_; }

 private:
  Provenance p_;
};

TEST(GptStepEstimate, CountsTheKernelsOfTheStep) {
  const CountingModel m;
  const GptConfig c{"gpt-1.3b", 2048, 24, 16, 2048, 4, 50304};
  const StepEstimate e = estimate_gpt_step(m, c);
  // GEMMs: 4 linears per layer plus the LM head, each forward + 2 backward: (24*4 + 1) * 3 = 291.
  EXPECT_EQ(e.gemm, Time::us(291));
  // Attention: forward and backward per layer: 48 kernels of 10 us.
  EXPECT_EQ(e.attention, Time::us(480));
  // Bandwidth-bound: per layer 6 kernels forward (2 LayerNorms, the attention-output copy, 2 residual adds,
  // GELU) + 6 backward + the dqkv stack = 13; then embedding (2), final LayerNorm (2), cross-entropy (3):
  // 24 * 13 + 7 = 319 kernels of 100 ns.
  EXPECT_EQ(e.memory, Time::ns(31900));
  EXPECT_EQ(e.optimizer, Time::ns(100));
  // Parameters as PyTorch counts them for this model (calibrate/pytorch/gpt_step.py printed 1418399744).
  EXPECT_EQ(e.params, 1418399744);
}

}  // namespace
}  // namespace cs::fit
