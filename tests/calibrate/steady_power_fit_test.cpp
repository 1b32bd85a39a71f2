// fit_steady_power: the split of a GEMM's dynamic power into what any running GEMM draws, a tensor-core part
// per format and an HBM part (sim/hardware/power_cap_model.hpp), recovered from GEMMs timed alone in their
// steady state: samples made by a known model, at the clocks that model settles at, give that model back.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "calibrate/fit/power_cap_fit.hpp"
#include "sim/hardware/device_profile.hpp"
#include "sim/store/calibration_sample.hpp"

namespace cs {
namespace {

PowerCapModel base_model() {
  PowerCapModel m;
  m.clock_bound = 0.7;
  m.power_exponent = 1.7;
  m.static_power = Watts{120.0};
  m.power_limit = Watts{700.0};
  m.memory_power = Watts{500.0};
  m.busy_power = Watts{850.0};
  m.tensor_power = {{DType::bf16, Watts{1000.0}}, {DType::fp8, Watts{1000.0}}, {DType::fp16, Watts{1000.0}}};
  return m;
}

// `count` steady GEMMs of a model with active 150 W, bf16 800 W, fp8 1000 W: each at the clock where that model
// meets the limit, with the time and power it has there.
SamplesFile steady_samples(const DeviceProfile& base, int count) {
  PowerCapModel truth = base_model();
  truth.active_power = Watts{150.0};
  truth.tensor_power[DType::bf16] = Watts{800.0};
  truth.tensor_power[DType::fp8] = Watts{1000.0};
  SamplesFile f;
  for (int i = 0; i < count; ++i) {
    const bool fp8 = i % 3 == 0;
    const DType t = fp8 ? DType::fp8 : DType::bf16;
    const std::int64_t m = 256 << (i % 6), n = 512 << (i % 5), k = 256 << (i % 7);
    const double busy = 0.1 + 0.8 * ((i * 37) % 100) / 100.0;
    const double flops = 2.0 * m * n * k;
    const double t_fmax = flops / (busy * base.gpu.peak_for(t).value());
    const double bytes = (fp8 ? 1.0 : 2.0) * (m * k + k * n) + 2.0 * m * n;
    const double dyn = 150.0 + truth.tensor_power.at(t).value() * busy +
                       500.0 * bytes / t_fmax / base.gpu.memory_bandwidth.value();
    const KernelLoad load{Time::from_seconds(t_fmax), truth.clock_bound, Watts{dyn}};
    const double clock = truth.sustained_clock(std::vector<KernelLoad>{load});
    CalibrationSample s;
    s.kind = "gemm";
    s.op = "gemm";
    s.dtype = fp8 ? "fp8" : "bf16";
    s.m = m, s.n = n, s.k = k;
    s.bytes = Bytes{bytes};
    s.layout = "tn";
    s.clocks = "steady";
    s.sm_mhz = clock * truth.max_clock_mhz;
    s.median = MeasuredTime{t_fmax * fit::clock_factor(truth, s.sm_mhz)};
    s.watts = truth.power(load, clock);
    f.samples.push_back(s);
  }
  return f;
}

TEST(SteadyPowerFit, RecoversTheActiveTensorSplitOfAKnownModel) {
  const DeviceProfile base = find_device_profile("h200-datasheet");
  PowerCapModel m = base_model();
  std::string report;
  fit::fit_steady_power(steady_samples(base, 240), base, m, report);
  EXPECT_NEAR(m.active_power.value(), 150.0, 1.0) << report;
  EXPECT_NEAR(m.tensor_power.at(DType::bf16).value(), 800.0, 2.0) << report;
  EXPECT_NEAR(m.tensor_power.at(DType::fp8).value(), 1000.0, 2.0) << report;
  // A format the steady samples did not measure draws what bf16 does.
  EXPECT_DOUBLE_EQ(m.tensor_power.at(DType::fp16).value(), m.tensor_power.at(DType::bf16).value());
  EXPECT_NE(report.find("median |error| 0 MHz"), std::string::npos) << report;
}

TEST(SteadyPowerFit, TooFewSteadySamplesLeaveTheModelAsItIs) {
  const DeviceProfile base = find_device_profile("h200-datasheet");
  PowerCapModel m = base_model();
  std::string report;
  fit::fit_steady_power(steady_samples(base, 40), base, m, report);
  EXPECT_EQ(m.active_power.value(), 0.0);
  EXPECT_EQ(m.tensor_power.at(DType::bf16).value(), 1000.0);
  EXPECT_NE(report.find("fewer than 50"), std::string::npos) << report;
}

TEST(SteadyPowerFit, SustainedSamplesAreNotSteady) {
  const DeviceProfile base = find_device_profile("h200-datasheet");
  SamplesFile f = steady_samples(base, 240);
  for (auto& s : f.samples) s.clocks = "sustained";
  PowerCapModel m = base_model();
  std::string report;
  fit::fit_steady_power(f, base, m, report);
  EXPECT_EQ(m.active_power.value(), 0.0);
}

}  // namespace
}  // namespace cs
