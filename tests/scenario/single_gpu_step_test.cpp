// The calibration check of docs/calibration.md: one GPU of an H200 (or H100) node training small GPTs, predicted
// with the shipped profile of that GPU, against the PyTorch steps measured on it (calibrate/pytorch/gpt_step.py:
// profiles/h200-calibration/gpt_step.json, profiles/h100-calibration/run1-sustained/gpt_step.json).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "measured_steps.hpp"

namespace cs {
namespace {

/// One GPU of a DGX node (topology `node`, profile `gpu`) training the GPT of one entry of gpt_step.json.
Scenario gpt_on_one_gpu(const nlohmann::json& m, const std::string& node = "dgx-h200",
                        const std::string& gpu = "h200") {
  Scenario sc;
  sc.name = m["name"].get<std::string>();
  sc.model.name = sc.name;
  sc.model.layers = m["layers"].get<int>();
  sc.model.hidden = m["hidden"].get<std::int64_t>();
  sc.model.heads = m["heads"].get<int>();
  sc.model.kv_heads = sc.model.heads;
  sc.model.ffn_hidden = 4 * sc.model.hidden;
  sc.model.vocab = m["vocab"].get<std::int64_t>();
  sc.model.seq_len = m["seq"].get<int>();
  sc.gpus = 8;
  sc.topology = load_topology(node, 8);
  sc.profile = find_device_profile(gpu);
  sc.training.micro_batch = m["batch"].get<int>();
  sc.training.global_batch = sc.training.micro_batch;
  sc.training.seq_len = sc.model.seq_len;
  return sc;
}

/// What a check bounds: the step time's relative error, and the SM clock's error (unchecked when zero).
struct StepBounds {
  double step = 0.10;
  double clock_mhz = 0;
};

/// Each measured step of `results` (gpt_step.json entries) predicted on one GPU of `node` with profile `gpu`.
void expect_steps(const nlohmann::json& results, const std::string& node, const std::string& gpu,
                  StepBounds bounds) {
  ASSERT_GE(results.size(), 3u);
  for (const auto& m : results) {
    const Scenario sc = gpt_on_one_gpu(m, node, gpu);
    const RunResult r = run_scenario(sc);
    const double predicted_ms = r.step.step_time.seconds() * 1e3;
    const double measured_ms = m["step_ms_median"].get<double>();
    std::printf("%s on %s: predicted %.1f ms, measured %.1f ms (%+.1f%%)\n", sc.name.c_str(), gpu.c_str(), predicted_ms,
                measured_ms, (predicted_ms / measured_ms - 1) * 100);
    EXPECT_NEAR(predicted_ms / measured_ms, 1.0, bounds.step)
        << sc.name << ": predicted " << predicted_ms << " ms, measured " << measured_ms << " ms";
    if (bounds.clock_mhz <= 0) continue;
    ASSERT_TRUE(r.sm_clock_mhz.has_value()) << sc.name;
    const double mhz = m["timed_steps_nvml"]["sm_mhz_median"].get<double>();
    std::printf("  predicted SM clock %.0f MHz, measured %.0f MHz (%+.0f MHz)\n", *r.sm_clock_mhz, mhz,
                *r.sm_clock_mhz - mhz);
    EXPECT_NEAR(*r.sm_clock_mhz, mhz, bounds.clock_mhz) << sc.name;
  }
}

TEST(SingleGpuStep, MeasuredH200ProfilePredictsPyTorchStepsWithinTenPercent) {
  expect_steps(testing::h200_results("gpt_step.json"), "dgx-h200", "h200", {.step = 0.10});
}

// The same steps' SM clock: run 4 recorded NVML's clock over the timed steps (1,665, 1,620 and 1,575 MHz at the
// 700 W limit); the replay's clock is what the power-cap model gives each unit's kernel mix, time-weighted.
TEST(SingleGpuStep, PowerCapModelPlacesTheStepsClock) {
  expect_steps(testing::h200_results("run4-sustained/gpt_step.json"), "dgx-h200", "h200",
               {.step = 0.10, .clock_mhz = 100.0});
}

// The H100 profile has no calibration of its own GEMM and attention surfaces: it borrows the H200's (same GH100
// die, same 700 W limit) beside the H100's datasheet HBM3. Run 1 on an H100 80GB HBM3 (2026-12-05,
// profiles/h100-calibration/run1-sustained/) measured the same three steps at the H200's clocks (1,665, 1,620 and
// 1,575 MHz at 700 W): predicted +2.3%, +5.6% and +5.5%. The power-cap model places their clocks 90-115 MHz high
// (the H100's own idle and HBM power, 130 W and 445 W, tried in its place, move them only 20-30 MHz: the cause is
// not found); the bound on the clock is a guard on that known bias, not a claim of accuracy.
TEST(SingleGpuStep, H100ProfilePredictsPyTorchStepsMeasuredOnAnH100) {
  expect_steps(testing::measured_results("h100-calibration/run1-sustained/gpt_step.json"), "dgx-h100", "h100-sxm",
               {.step = 0.08, .clock_mhz = 130.0});
}

}  // namespace
}  // namespace cs
