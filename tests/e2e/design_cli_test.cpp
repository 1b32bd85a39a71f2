// `clustersim design` and `parallelism.placement: optimise` as a user runs them: the JSON keys issue 46 lists,
// the table's units, located errors for bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace cs::e2e {
namespace {

namespace fs = std::filesystem;

fs::path design_temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("cs_design_cli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

TEST(DesignCli, WritesEveryCandidateWithTheIssuesKeys) {
  const fs::path out = design_temp_dir() / "design.json";
  // GPT-3 13B on 4 DGX H100 re-sized to 8 nodes of the SuperPOD topology: small enough to run in seconds.
  const Outcome o = run_cli("design scenarios/gpt3-13b-32xh100-one-switch.yaml --set cluster.topology=dgx-h100 "
                            "--gpus 64 --budget 30000000 --json " + out.string());
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("network capex"), std::string::npos);
  EXPECT_NE(o.output.find("why the others lost"), std::string::npos);
  EXPECT_NE(o.output.find(" kW"), std::string::npos);
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["workload"], "scenario");
  EXPECT_EQ(j["gpus"], 64);
  ASSERT_GE(j["candidates"].size() + j["merged"].size(), 13U);
  int on_front = 0;
  for (const auto& c : j["candidates"]) {
    for (const char* key : {"family", "tiers", "oversubscription", "network_capex_usd", "capex_usd", "network_power_w",
                            "step_time_s", "time_to_train_s", "tco_usd_per_year", "pareto"}) {
      EXPECT_TRUE(c.contains(key)) << key << " in " << c.dump();
    }
    on_front += c["pareto"].get<bool>();
    // A scenario's candidates are as before: a step time, no schedule figures.
    EXPECT_TRUE(c["step_time_s"].is_number()) << c.dump();
    EXPECT_FALSE(c.contains("schedule"));
  }
  EXPECT_GE(on_front, 1);
}

TEST(DesignCli, AScheduleIsTheWorkloadWithItsFiguresPerCandidate) {
  const fs::path out = design_temp_dir() / "schedule-design.json";
  const Outcome o = run_cli("design tests/design/data/one-job-schedule.yaml --json " + out.string());
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("Fabric design for the schedule one-job"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("training done"), std::string::npos);
  EXPECT_NE(o.output.find("why the others lost"), std::string::npos);
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["workload"], "schedule");
  EXPECT_EQ(j["scenario"], "one-job");
  EXPECT_EQ(j["span_s"], 86400.0);
  EXPECT_EQ(j["gpus"], 32);
  ASSERT_GE(j["candidates"].size(), 5U);
  for (const auto& c : j["candidates"]) {
    for (const char* key : {"family", "tiers", "oversubscription", "network_capex_usd", "capex_usd", "network_power_w",
                            "step_time_s", "time_to_train_s", "tco_usd_per_year", "pareto", "schedule"}) {
      EXPECT_TRUE(c.contains(key)) << key << " in " << c.dump();
    }
    EXPECT_TRUE(c["step_time_s"].is_null());
    const auto& s = c["schedule"];
    for (const char* key : {"training_finished_s", "training_jobs", "training_unfinished", "training_gpu_hours",
                            "worst_slo_attainment", "worst_service", "meets_slo", "energy_kwh", "peak_facility_kw",
                            "cost_usd", "gpu_busy_fraction", "node_failures", "jobs"}) {
      EXPECT_TRUE(s.contains(key)) << key << " in " << s.dump();
    }
    EXPECT_NEAR(c["time_to_train_s"].get<double>(), s["training_finished_s"].get<double>(), 5e-4);
    ASSERT_EQ(s["jobs"].size(), 1U);
    EXPECT_EQ(s["jobs"][0]["name"], "gpt3-13b");
  }
}

TEST(DesignCli, ABadScheduleIsALocatedErrorAndWritesNothing) {
  const fs::path dir = design_temp_dir();
  const fs::path bad = dir / "bad-schedule.yaml";
  const fs::path out = dir / "bad-schedule.json";
  {
    std::ofstream f(bad);
    f << "format_version: 1\nname: bad\nspan: 24h\ncluster:\n  scenario: x.yaml\npolcy: fifo\ntraining: []\n";
  }
  fs::remove(out);
  const Outcome o = run_cli("design " + bad.string() + " --json " + out.string());
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_NE(o.output.find("bad-schedule.yaml:6"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("polcy"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(DesignCli, BadInputIsALocatedErrorAndExitsTwo) {
  // A GPU count the plan cannot divide: located at the --set the command wrote.
  const Outcome o = run_cli("design scenarios/gpt3-13b-32xh100-one-switch.yaml --set cluster.topology=dgx-h100 --gpus 36");
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_NE(o.output.find("error:"), std::string::npos);
  // No token budget: design needs time to train.
  const Outcome t = run_cli("design scenarios/gpt3-13b-32xh100-one-switch.yaml --set cluster.topology=dgx-h100 "
                            "--set training.token_budget=0");
  EXPECT_EQ(t.status, 2) << t.output;
}

TEST(DesignCli, PlacementOptimiseReportsBothStepTimes) {
  const fs::path out = design_temp_dir() / "run.json";
  const Outcome o = run_cli("run tests/design/data/gpt3-13b-tp8-pp2-dp2.yaml --json " + out.string());
  ASSERT_EQ(o.status, 0) << o.output;
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("placement"));
  EXPECT_EQ(j["placement"]["method"], "greedy + local search");
  EXPECT_LT(j["placement"]["step_time_s"].get<double>(), j["placement"]["step_time_default_s"].get<double>());
  EXPECT_DOUBLE_EQ(j["step_time_s"].get<double>(), j["placement"]["step_time_s"].get<double>());
}

}  // namespace
}  // namespace cs::e2e
