// `clustersim schedule` on the shipped measured-latency example, as a user runs it: exit status, the JSON's keys
// for a service given by measured latency, the Perfetto trace's counter, and a bad table file refused with its
// line and column and nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace cs {
namespace {

namespace fs = std::filesystem;

/// A folder of the running test's own: ctest runs each test as its own process, at the same time as others.
fs::path schedule_cli_dir() {
  const fs::path d = fs::temp_directory_path() /
                     (std::string("cs_schedule_cli_test_") + testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const std::string kRecsys = std::string(CS_SOURCE_DIR) + "/scenarios/schedules/recsys-day-train-night-32xh100.yaml";

TEST(ScheduleCli, TheMeasuredRecommendationExampleWritesItsKeys) {
  const fs::path d = schedule_cli_dir();
  const auto o = e2e::run_cli("schedule " + kRecsys + " --set isolation=nodes --json " + (d / "r.json").string() +
                              " --trace " + (d / "t.json").string());
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("given by measured latency"), std::string::npos) << o.output;
  std::ifstream in(d / "r.json");
  const auto j = nlohmann::json::parse(in);
  const auto& s = j["services"][0];
  EXPECT_EQ(s["given_by"], "measured");
  EXPECT_TRUE(s["ttft_p99_s"].is_null());
  EXPECT_TRUE(s["tpot_p99_s"].is_null());
  ASSERT_TRUE(s["latency_p99_s"].is_number());
  EXPECT_LE(s["latency_p99_s"].get<double>(), 0.025);  // on whole nodes the 25 ms SLO holds in every hour
  EXPECT_GE(s["slo_attainment"].get<double>(), 0.99);
  for (const auto& h : s["hours"]) EXPECT_TRUE(h.contains("latency_p99_s"));
  EXPECT_TRUE(j["jobs"][0]["finished_s"].is_number());
  std::ifstream tin(d / "t.json");
  const auto t = nlohmann::json::parse(tin);
  int counters = 0;
  for (const auto& e : t["traceEvents"]) counters += e["ph"] == "C" && e["name"] == "recsys-ranking" ? 1 : 0;
  EXPECT_EQ(counters, 48);  // one per hour of the 48 h span
  fs::remove_all(d);
}

TEST(ScheduleCli, ABadLatencyTableIsLocatedAndNothingIsWritten) {
  const fs::path d = schedule_cli_dir();
  std::ofstream(d / "table.csv") << "batch,latency_s\n1,0.002\n8,0.003\n4,0.004\n";
  std::ofstream(d / "s.yaml")
      << "format_version: 1\nname: t\ncluster:\n  scenario: " << CS_SOURCE_DIR
      << "/scenarios/gpt3-13b-32xh100-one-switch.yaml\nservices:\n  - name: r\n    rate: [100]\n"
         "    measured: {latency_file: table.csv, slo: 20ms}\n";
  const auto o = e2e::run_cli("schedule " + (d / "s.yaml").string() + " --json " + (d / "r.json").string());
  EXPECT_NE(o.status, 0);
  EXPECT_NE(o.output.find("table.csv:4:1: batch: must be above the previous row's 8"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(d / "r.json"));
  fs::remove_all(d);
}

}  // namespace
}  // namespace cs
