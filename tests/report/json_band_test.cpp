// The JSON result carries the step time's error band: its ends in seconds, its level and what it rests on.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/report/json_result.hpp"
#include "sim/report/text_summary.hpp"
#include "sim/scenario/runner.hpp"

namespace cs {
namespace {

TEST(JsonBand, ResultHasTheStepTimeBand) {
  const Scenario sc = load_scenario(std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-1.3b-8xh100-dp.yaml");
  const RunResult r = run_scenario(sc);
  ASSERT_TRUE(r.step_band && r.step_band->valid());
  const auto j = to_json(sc, r);
  ASSERT_TRUE(j.contains("step_time_band_s"));
  const auto& b = j["step_time_band_s"];
  EXPECT_DOUBLE_EQ(b["lo"].get<double>(), r.step_band->low);
  EXPECT_DOUBLE_EQ(b["hi"].get<double>(), r.step_band->high);
  EXPECT_LT(b["lo"].get<double>(), j["step_time_s"].get<double>());
  EXPECT_GT(b["hi"].get<double>(), j["step_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(b["level"].get<double>(), r.step_band->level);
  EXPECT_EQ(b["samples"].get<int>(), r.step_band->samples);
  EXPECT_EQ(b["basis"].get<std::string>(), r.step_band->basis);
}

TEST(JsonBand, NoBandIsNullWithTheReason) {
  const Scenario sc = load_scenario(std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-1.3b-8xh100-dp.yaml");
  RunResult r = run_scenario(sc);
  r.step_band = ErrorBand{};
  r.step_band->basis = "no validation residuals: test";
  const auto j = to_json(sc, r);
  EXPECT_TRUE(j["step_time_band_s"]["lo"].is_null());
  EXPECT_TRUE(j["step_time_band_s"]["hi"].is_null());
  EXPECT_EQ(j["step_time_band_s"]["basis"].get<std::string>(), "no validation residuals: test");
  EXPECT_NE(text_summary(sc, r).find("(no error band: no validation residuals: test)"), std::string::npos);
}

TEST(JsonBand, TextSummaryStepLineShowsTheBand) {
  const Scenario sc = load_scenario(std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-1.3b-8xh100-dp.yaml");
  const RunResult r = run_scenario(sc);
  ASSERT_TRUE(r.step_band && r.step_band->valid());
  const std::string text = text_summary(sc, r);
  const std::string want = to_string(r.step.step_time) + "  (" +
                           std::to_string(std::lround(100 * r.step_band->level)) + "% band " + to_string(Time::from_seconds(r.step_band->low)) +
                           " - " + to_string(Time::from_seconds(r.step_band->high)) + "; basis: " + r.step_band->basis + ")";
  EXPECT_NE(text.find(want), std::string::npos) << text;
}

}  // namespace
}  // namespace cs
