// The host-issue model against H200 run 10 (calibrate/studies/host_sync_study.py;
// profiles/h200-calibration/run10-host-sync/host_sync.json): the same six-layer Qwen3-MoE-shaped model, with the
// per-expert counts copied to the host before the expert GEMMs (`balanced`: the dropless dispatcher's sync) or
// known in advance (`static`), predicted with training.moe_host_sync true / false, the eager kernel gap and
// 32 us of host time per launch. Predicted 2026-12-04: 128 experts +4.6% (static) and +12.6% (balanced), 32
// experts +2.2% and -4.1%; with the script's unfused permutation priced (2026-12-06) +7.8% / +18.5% and +5.9% / -0.6%;
// with the host carrying on from the forward to the backward (StepReplay::host_carries_on, 2026-12-06) +3.8% /
// +14.4% and +5.9% / -0.6%.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <vector>

#include "measured_steps.hpp"

namespace cs {
namespace {

double predicted_ms(const nlohmann::json& m, bool sync) {
  Scenario sc = testing::moe_step_on_one_h200(m);
  sc.training.moe_host_sync = sync;
  const RunResult r = run_scenario(sc);
  return (r.step.step_time - r.step.breakdown.optimizer).seconds() * 1e3;
}

TEST(HostSyncStep, FullSizeMoeStepsAndTheSynchronisationsCost) {
  const auto results = testing::h200_results("run10-host-sync/host_sync.json");
  std::map<std::string, std::map<std::string, double>> ms;  // name -> routing -> measured forward+backward
  for (const auto& m : results) {
    ms[m["name"].get<std::string>()][m["routing"].get<std::string>()] = m["fwd_bwd_ms_median"].get<double>();
  }
  for (const auto& m : results) {
    const std::string name = m["name"].get<std::string>();
    if (m["experts"].get<int>() == 0 || m["seq"].get<int>() < 4096 || m["routing"] != "static") continue;
    const double no_sync = predicted_ms(m, false), sync = predicted_ms(m, true);
    const double measured_static = ms[name]["static"], measured_balanced = ms[name]["balanced"];
    std::printf("%s: no sync predicted %.1f ms, measured %.1f ms (%+.1f%%); sync predicted %.1f ms, measured %.1f ms "
                "(%+.1f%%)\n",
                name.c_str(), no_sync, measured_static, (no_sync / measured_static - 1) * 100, sync, measured_balanced,
                (sync / measured_balanced - 1) * 100);
    EXPECT_NEAR(no_sync / measured_static, 1.0, 0.15) << name;
    // The 128-expert sync case is +14.4%: its sync's cost is overestimated against the median (below).
    EXPECT_NEAR(sync / measured_balanced, 1.0, 0.15) << name;
    // The sync never makes a step faster. What it costs is not yet placed right (2026-12-06: predicted +12.7 ms for
    // 128 experts where the medians show none and the fastest steps 9.5 ms, +2.1 ms for 32 experts where the
    // medians show +8.4 ms; the host's cost of the non-GEMM operators, several PyTorch kernels each, is
    // undercounted: docs/validation.md).
    EXPECT_GE(sync, no_sync) << name;
  }
}

}  // namespace
}  // namespace cs

namespace cs {
namespace {

// The grouped-launch constants (workload/parallel_plan.hpp) are the means of H200 run 12
// (calibrate/studies/native_launch_study.py): host time per kernel launched from a C++ loop through ATen, GEMMs
// (one per expert, as Transformer Engine's GroupedLinear) and small kernels (a per-expert fp8 cast's), and a
// Python loop of the same GEMMs costs the host more per kernel than the C++ loop.
TEST(NativeLaunch, ConstantsAreTheMeansOfRun12) {
  const auto results = testing::h200_results("run12-native-launch/native_launch.json");
  std::map<std::string, std::vector<double>> host;  // study -> host us per kernel over the shapes
  for (const auto& r : results) {
    const std::string name = r["name"].get<std::string>();
    host[name.substr(0, name.find('-'))].push_back(r["host_us_per_kernel_median"].get<double>());
  }
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  ASSERT_EQ(host["native_mm"].size(), 4u);
  ASSERT_EQ(host["native_cast4"].size(), 4u);
  const FrameworkHostCosts& c = find_framework_profile("pytorch-eager").costs;
  EXPECT_NEAR(mean(host["native_mm"]), c.native_gemm_launch.seconds() * 1e6, 0.1);
  EXPECT_NEAR(mean(host["native_cast4"]), c.native_kernel_launch.seconds() * 1e6, 0.1);
  EXPECT_GT(mean(host["python_mm"]), mean(host["native_mm"]) * 1.2);
}

}  // namespace
}  // namespace cs
