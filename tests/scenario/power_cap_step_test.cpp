// A user's GPU power cap acts once: through the calibrated power-cap model of a measured profile (every kernel
// priced at the clock the cap allows), or, for a profile without one, through the facility layer's DVFS
// stretch of the compute-bound share. Never both.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "sim/scenario/facility_link.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {
namespace {

std::string shipped(const std::string& name) {
  std::ifstream in(std::string(CS_SOURCE_DIR) + "/scenarios/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Scenario with_cap(const std::string& file, const std::string& cap, const std::string& profile = "") {
  std::string text = shipped(file);
  if (!profile.empty()) {
    const auto at = text.find("profile: ");
    text.replace(at, text.find('\n', at) - at, "profile: " + profile);
  }
  // Costing needs a token budget; the H200 calibration scenario has none.
  if (text.find("token_budget") == std::string::npos) {
    text.replace(text.find("training:\n"), 10, "training:\n  token_budget: 1e9\n");
  }
  if (!cap.empty()) text += "\nfacility:\n  power: {gpu_power_cap: " + cap + "}\n";
  return load_scenario_text(text, file);
}

// The measured H200 profile has a power-cap model: a 450 W cap (the board's limit is 700 W) slows the step in
// the replay itself, and the facility's report keeps that step time (no second stretch).
TEST(PowerCapStep, MeasuredProfilePricesTheCapInTheReplayOnce) {
  const Scenario free = with_cap("gpt-1.3b-1xh200.yaml", "");
  const Scenario capped = with_cap("gpt-1.3b-1xh200.yaml", "450W");
  ASSERT_TRUE(capped.profile.fits.power_cap.has_value());
  EXPECT_FALSE(prices_power_cap(free));
  EXPECT_TRUE(prices_power_cap(capped));
  const RunResult a = run_scenario(free), b = run_scenario(capped);
  EXPECT_GT(b.step.step_time.seconds(), a.step.step_time.seconds() * 1.02);
  const RunProfile run = make_run_profile(capped, b);
  EXPECT_TRUE(run.cap_in_step_time);
  ASSERT_TRUE(b.tco.has_value()) << (b.warnings.empty() ? "" : b.warnings.back());
  EXPECT_DOUBLE_EQ(b.tco->power.compute_slowdown, 1.0);
  EXPECT_EQ(b.tco->power.step_time, b.step.step_time);
  EXPECT_LE(b.tco->power.curve.compute.value(), 450.0);
}

// The burst-clock datasheet H100 profile has no power-cap model: the replay ignores the cap and the facility
// stretches the compute-bound share of the step.
TEST(PowerCapStep, DatasheetProfileLeavesTheCapToTheFacility) {
  const Scenario free = with_cap("gpt3-1.3b-8xh100-dp.yaml", "", "h100-sxm-datasheet");
  const Scenario capped = with_cap("gpt3-1.3b-8xh100-dp.yaml", "450W", "h100-sxm-datasheet");
  ASSERT_FALSE(capped.profile.fits.power_cap.has_value());
  EXPECT_FALSE(prices_power_cap(capped));
  const RunResult a = run_scenario(free), b = run_scenario(capped);
  EXPECT_EQ(a.step.step_time, b.step.step_time);
  ASSERT_TRUE(b.tco.has_value());
  EXPECT_GT(b.tco->power.compute_slowdown, 1.0);
  EXPECT_GT(b.tco->power.step_time.seconds(), b.step.step_time.seconds());
}

}  // namespace
}  // namespace cs
