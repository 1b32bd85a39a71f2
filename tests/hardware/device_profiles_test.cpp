// The shipped profiles, the measured-profile sections and the fitted cost model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/hardware/cost_table.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/hardware/efficiency_surface.hpp"
#include "sim/hardware/fitted_cost_model.hpp"
#include "sim/hardware/roofline_cost_model.hpp"
#include "sim/input/input_node.hpp"
#include "temp_path.hpp"

namespace cs {
namespace {

TEST(ShippedProfiles, AllLoadAndSayWhereTheirNumbersCameFrom) {
  const auto names = shipped_profiles();
  for (const char* expected : {"a100-sxm", "b200", "b300", "gb200", "gb300", "h100-sxm", "h200", "h200-datasheet", "rtx4090"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  for (const auto& n : names) {
    const DeviceProfile p = find_device_profile(n);
    EXPECT_TRUE(p.provenance.kind == "datasheet" || p.provenance.kind == "measured" ||
                p.provenance.kind == "datasheet+measured")
        << n;
    EXPECT_FALSE(p.provenance.description.empty()) << n;
    const auto model = make_cost_model(p);
    EXPECT_EQ(model->provenance().kind, p.provenance.kind) << n;
    EXPECT_GT(model->gemm({4096, 4096, 4096, DType::bf16, 1}), Time::zero()) << n;
  }
}

// h100-sxm borrows the H200's measured GEMM fits (same GH100 die): its GEMMs cost what the H200's do,
// while its bandwidth-bound kernels follow its own 3.35 TB/s (slower than the H200's 4.8 TB/s).
TEST(ShippedProfiles, BorrowedComputeFitsKeepTheirOwnMemorySystem) {
  const auto h100 = make_cost_model(find_device_profile("h100-sxm"));
  const auto h200 = make_cost_model(find_device_profile("h200"));
  const GemmShape g{4096, 4096, 4096, DType::bf16, 1};
  EXPECT_EQ(h100->gemm(g), h200->gemm(g));
  EXPECT_GT(h100->memory_bound(Bytes{1e9}), h200->memory_bound(Bytes{1e9}));
  EXPECT_EQ(h100->provenance().kind, "datasheet+measured");
  // The power-cap model comes along (same die, same 700 W limit); HBM power keeps the H200's energy per byte
  // at the H100's bandwidth, so a GEMM moving the same bytes draws the same power on both.
  const DeviceProfile p100 = find_device_profile("h100-sxm"), p200 = find_device_profile("h200");
  ASSERT_TRUE(p100.fits.power_cap && p200.fits.power_cap);
  EXPECT_NEAR(p100.fits.power_cap->memory_power.value(), p200.fits.power_cap->memory_power.value() * 3.35 / 4.8,
              1e-9);
  EXPECT_EQ(p100.fits.power_cap->active_power, p200.fits.power_cap->active_power);
}

TEST(ShippedProfiles, H200IsMeasuredAndUsesTheFittedModel) {
  const DeviceProfile p = find_device_profile("h200");
  EXPECT_TRUE(p.measured());
  ASSERT_TRUE(p.fits.calibration.has_value());
  EXPECT_EQ(p.fits.calibration->gpu, "NVIDIA H200");
  EXPECT_EQ(p.fits.gemm.size(), 5u);
  EXPECT_NE(dynamic_cast<const FittedCostModel*>(make_cost_model(p).get()), nullptr);
  EXPECT_NE(dynamic_cast<const RooflineCostModel*>(make_cost_model(find_device_profile("h200-datasheet")).get()),
            nullptr);
}

// Blackwell datasheet profiles carry a power-cap model whose figures come from published measurements, as their
// efficiencies do (profiles/b200.yaml). Its anchor: BF16 FlashAttention-4 at 1,450 of 2,250 TFLOP/s run back
// to back on a B200 settles near 1,580 MHz at 1,000 W and loses about 15% (flashinfer-ai/flashinfer PR #2899).
// A big GEMM is priced at the clock a busy GPU holds (slower than its published rate), a bandwidth-bound kernel
// not at all; the GB200 at 1,200 W holds a higher clock than the B200 for the same share of its peak.
TEST(ShippedProfiles, BlackwellDatasheetProfilesRunAtTheirPowerLimit) {
  const DeviceProfile b200 = find_device_profile("b200"), gb200 = find_device_profile("gb200");
  ASSERT_EQ(b200.provenance.kind, "datasheet");
  ASSERT_TRUE(b200.fits.power_cap && gb200.fits.power_cap);
  const PowerCapModel& pc = *b200.fits.power_cap;
  const double busy = 1450.0 / 2250.0;  // FlashAttention-4's rate at the highest clock, as a share of the peak
  const KernelLoad fa4{Time::ms(1.0), pc.clock_bound, pc.active_power + pc.tensor_power.at(DType::bf16) * busy};
  const double clock = pc.sustained_clock(std::span<const KernelLoad>(&fa4, 1));
  EXPECT_NEAR(clock * pc.max_clock_mhz, 1580.0, 20.0);
  EXPECT_NEAR(fa4.at_max_clock.seconds() / fa4.at(clock).seconds(), 1237.0 / 1450.0, 0.02);

  const auto model = make_cost_model(b200);
  ASSERT_NE(dynamic_cast<const FittedCostModel*>(model.get()), nullptr);
  const RooflineCostModel published(b200);  // the published (burst) rates
  const GemmShape g{8192, 8192, 8192, DType::bf16, 1};
  const double slower = model->gemm(g).seconds() / published.gemm(g).seconds();
  EXPECT_GT(slower, 1.08);
  EXPECT_LT(slower, 1.25);
  EXPECT_EQ(model->memory_bound(Bytes{1e9}), published.memory_bound(Bytes{1e9}));
  const double gb_clock = gb200.fits.power_cap->busy_clock(gb200.fits.power_cap->power_limit) *
                          gb200.fits.power_cap->max_clock_mhz;
  EXPECT_GT(gb_clock, pc.busy_clock(pc.power_limit) * pc.max_clock_mhz);
}

TEST(EfficiencySurface, FeaturesAreMonomialsByDegreeThenPenaltyTerms) {
  // Degree 2 in (a, b) = (2, 3): 1, a, b, a^2, ab, b^2; then for penalty p = 4: p, p*a, p*b.
  const double logs[2] = {2, 3}, pen[1] = {4};
  const auto f = EfficiencySurface::features(logs, 2, pen);
  const std::vector<double> want{1, 2, 3, 4, 6, 9, 4, 8, 12};
  EXPECT_EQ(f, want);
  EXPECT_EQ(EfficiencySurface::monomial_count(3, 3), 20u);  // C(6, 3)
}

TEST(EfficiencySurface, ClampsToTheFittedRange) {
  // ln(eff) = -1 + 0.1 ln(x), fitted over x in [e^2, e^6]: at x = e^10 the edge value -0.4 applies.
  EfficiencySurface s;
  s.degree = 1;
  s.log_min = {2};
  s.log_max = {6};
  s.coefficients = {-1, 0.1};
  const double inside[1] = {std::exp(4.0)}, outside[1] = {std::exp(10.0)};
  EXPECT_NEAR(s.efficiency(inside), std::exp(-0.6), 1e-12);
  EXPECT_NEAR(s.efficiency(outside), std::exp(-0.4), 1e-12);
}

TEST(GemmFit, AlignmentClasses) {
  // bf16: k = 4096 -> 8192 bytes (16-byte aligned); m = 4095 -> 8190 bytes (2-byte aligned): class {1, 0}.
  EXPECT_EQ(GemmFit::penalties({4095, 64, 4096, DType::bf16, 1}), (std::vector<double>{1, 0}));
  // fp32, k = 1001 -> 4004 bytes: 4-byte aligned, class {0, 1}. fp8 writes bf16: m = 8 -> 16 bytes, aligned.
  EXPECT_EQ(GemmFit::penalties({64, 64, 1001, DType::fp32, 1}), (std::vector<double>{0, 1}));
  EXPECT_EQ(GemmFit::penalties({8, 64, 16, DType::fp8, 1}), (std::vector<double>{0, 0}));
}

TEST(GemmFit, MisalignedShapesHitTheirCeiling) {
  // Aligned: no tiles, no launch, efficiency e^-0.5 = 0.61. Misaligned ceilings: 10% (2-byte), 20% (4/8).
  GemmFit g;
  g.surface.degree = 0;
  g.surface.log_min = {0, 0, 0};
  g.surface.log_max = {10, 10, 10};
  g.surface.coefficients = {-0.5};
  g.misaligned_caps = {0.1, 0.2};
  const FlopRate peak{1e15};
  const GemmShape aligned{4096, 4096, 4096, DType::bf16, 1}, odd{4095, 4096, 4096, DType::bf16, 1};
  EXPECT_NEAR(g.time(aligned, 100, peak).seconds(), aligned.flops().value() / (1e15 * std::exp(-0.5)), 1e-9);
  // 2-byte aligned: max(FLOPs / (peak * 0.61), FLOPs / (peak * 0.1)) = FLOPs / 1e14.
  EXPECT_NEAR(g.time(odd, 100, peak).seconds(), odd.flops().value() / 1e14, 1e-9);
}

std::string measured_profile(const std::string& extra) {
  return "format_version: 2\nname: t\nsource: measured\nsource_ref: test\ngpu:\n  name: G\n  sm_count: 100\n"
         "  memory: 80GB\n  memory_bandwidth: 3TB/s\n  tdp: 700W\n  idle_power: 70W\n  peak:\n    bf16: 1000TFLOP/s\n"
         "    fp32: 60TFLOP/s\n" + extra;
}

DeviceProfile load_text(const std::string& text) {
  const auto path = cs::testing::temp_file("profile_test", ".yaml").string();
  std::ofstream(path) << text;
  return load_device_profile(path);
}

TEST(MeasuredFits, FittedModelAndFallback) {
  // bf16 GEMMs: no tiles, launch 2 us, constant efficiency e^-0.5; fp32 has no fit: roofline fallback.
  const DeviceProfile p = load_text(measured_profile(
      "gemm_fit:\n  bf16:\n    tile: [0, 0]\n    launch: 2us\n    degree: 0\n    log_min: [0, 0, 0]\n"
      "    log_max: [10, 10, 10]\n    coefficients: [-0.5]\n"
      "memory_fit: {latency: 3us, bandwidth: 2TB/s}\n"));
  const auto m = make_cost_model(p);
  // 2 * 4096^3 = 1.374e11 FLOP at 1000 TFLOP/s * e^-0.5 = 226.6 us, plus 2 us.
  const GemmShape s{4096, 4096, 4096, DType::bf16, 1};
  EXPECT_NEAR(m->gemm(s).seconds(), 2e-6 + 2.0 * std::pow(4096.0, 3) / (1e15 * std::exp(-0.5)), 1e-9);
  // 1 GB at 2 TB/s = 500 us, plus 3 us.
  EXPECT_EQ(m->memory_bound(Bytes{1e9}), Time::us(503));
  GemmShape f32 = s;
  f32.dtype = DType::fp32;
  EXPECT_EQ(m->gemm(f32), RooflineCostModel(p).gemm(f32));
}

TEST(MeasuredFits, ErrorsAreLocated) {
  try {
    (void)load_text(measured_profile("gemm_fit:\n  bf16:\n    tile: [0, 0]\n    launch: 2us\n    degree: 1\n"
                                     "    log_min: [0, 0, 0]\n    log_max: [1, 1, 1]\n    coefficients: [1, 2]\n"));
    FAIL() << "accepted a wrong coefficient count";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "gemm_fit.bf16.coefficients");
    EXPECT_NE(e.message().find("needs 4 values"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)load_text(measured_profile("memory_fit: {latency: 3us, bandwidth: 2TB/s, colour: red}\n")),
               InputError);
  // A datasheet profile cannot carry measured sections.
  std::string ds = measured_profile("memory_fit: {latency: 3us, bandwidth: 2TB/s}\n");
  ds.replace(ds.find("source: measured"), 16, "source: datasheet");
  EXPECT_THROW((void)load_text(ds), InputError);
}

TEST(CostTable, AddsPredictedSeconds) {
  const auto model = make_cost_model(find_device_profile("h100-sxm-datasheet"));
  std::istringstream in("op,dtype,m,n,k\ngemm,bf16,8192,8192,8192\ngemm,fp32,128,128,128\n");
  std::ostringstream out;
  write_cost_csv(in, "shapes.csv", out, *model);
  std::istringstream lines(out.str());
  std::string l;
  std::getline(lines, l);
  EXPECT_EQ(l.rfind("# profile: h100-sxm-datasheet (datasheet: ", 0), 0u) << l;
  std::getline(lines, l);
  EXPECT_EQ(l, "op,dtype,m,n,k,predicted_s");
  std::getline(lines, l);
  const double t = std::stod(l.substr(l.rfind(',') + 1));
  EXPECT_NEAR(t, model->gemm({8192, 8192, 8192, DType::bf16, 1}).seconds(), 1e-12);
}

TEST(CostTable, RejectsBadRowsWithTheirPlace) {
  const auto model = make_cost_model(find_device_profile("a100-sxm"));
  const auto error = [&](const std::string& text) {
    std::istringstream in(text);
    std::ostringstream out;
    try {
      write_cost_csv(in, "s.csv", out, *model);
    } catch (const InputError& e) {
      EXPECT_TRUE(out.str().empty());  // nothing half-written
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("op,dtype,m,n,k\ngemm,bf17,1,2,3\n"), "s.csv:2:2: dtype: unknown dtype \"bf17\" (fp32, tf32, bf16, fp16, fp8)");
  EXPECT_EQ(error("op,dtype,m,n,k\ngemm,bf16,1,0,3\n"), "s.csv:2:4: n: \"0\" is not a positive integer");
  EXPECT_EQ(error("op,dtype,m,n\n"), "s.csv:1:1: expected the header \"op,dtype,m,n,k\"");
  EXPECT_NE(error("op,dtype,m,n,k\ngemm,fp8,64,64,64\n").find("no fp8 peak"), std::string::npos);  // A100: no FP8
}

}  // namespace
}  // namespace cs
