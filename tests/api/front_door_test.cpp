// The API's front door for every command: the sweep schema without registration, run's trace, the kernel and
// collective probes, sweeps into a database and the results queried back. The CLI commands print these values
// (tests/e2e and tests/sweep check their output); here they are checked as values.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>

#include "sim/api/clustersim.hpp"
#include "temp_path.hpp"

namespace cs {
namespace {

namespace fs = std::filesystem;
const std::string kScenario = std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-1.3b-8xh100-dp.yaml";

TEST(Api, SweepSchemaIsTheSweepLayersWithoutRegistration) {
  const ParamSection& s = api::schema(api::InputKind::sweep);
  EXPECT_NE(s.find_param("base"), nullptr);
  EXPECT_NE(s.find_param("axes"), nullptr);
  EXPECT_EQ(api::check_value(api::InputKind::sweep, "no_such_key", "1"), "unknown key");
  EXPECT_EQ(api::json_schema(api::InputKind::sweep)["title"], "clustersim sweep file");
  EXPECT_NE(api::schema_markdown(api::InputKind::sweep).find("`axes`"), std::string::npos);
}

TEST(Api, RunReturnsTheTraceOnlyWhenAskedAndTheSameResult) {
  const Scenario sc = api::load({.path = kScenario, .text = {}, .set = {}, .profile = {}});
  std::string trace;
  const RunResult traced = api::run(sc, {.observers = {}, .cancel = nullptr, .trace_json = &trace});
  const RunResult plain = api::run(sc);
  EXPECT_EQ(traced.step.step_time, plain.step.step_time);
  const auto j = nlohmann::json::parse(trace);
  ASSERT_TRUE(j.contains("traceEvents"));
  EXPECT_GT(j["traceEvents"].size(), 10u);
}

TEST(Api, CollectiveSweepReportsNcclTestsBandwidths) {
  api::CollectiveSweepOptions o;
  o.algorithm = "ring";
  o.min_bytes = "256MiB";
  o.max_bytes = "1GiB";
  o.factor = 4;
  const api::CollectiveSweep s = api::collective_sweep(o);
  EXPECT_EQ(s.collective, "all-reduce");
  EXPECT_EQ(s.gpus, 8);
  EXPECT_EQ(s.group_ranks, 8);
  ASSERT_EQ(s.samples.size(), 2u);  // 256 MiB and 1 GiB
  EXPECT_EQ(s.samples[1].bytes, 1024.0 * 1024 * 1024);
  for (const api::CollectiveSample& x : s.samples) {
    EXPECT_EQ(x.algorithm, "ring");
    ASSERT_GT(x.seconds, 0);
    EXPECT_DOUBLE_EQ(x.algbw, x.bytes / x.seconds);
    // nccl-tests' all-reduce bus factor: 2 (n - 1) / n = 2 * 7 / 8 = 1.75 on 8 ranks.
    EXPECT_DOUBLE_EQ(x.busbw, 1.75 * x.algbw);
  }
  EXPECT_NE(s.topology_report.find("GPUs"), std::string::npos);
}

TEST(Api, CollectiveSweepRefusesBadOptionsByName) {
  api::CollectiveSweepOptions o;
  o.op = "all_gossip";
  try {
    (void)api::collective_sweep(o);
    FAIL() << "accepted an unknown collective";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--op"), std::string::npos) << e.what();
  }
  o = {};
  o.group_size = 3;
  EXPECT_THROW((void)api::collective_sweep(o), InputError);  // 3 does not divide 8
}

TEST(Api, KernelCostCsvAppendsEachShapesPredictedTime) {
  const fs::path shapes = testing::temp_file("api_shapes", ".csv");
  std::ofstream(shapes) << "op,dtype,m,n,k\ngemm,bf16,4096,4096,4096\ngemm,bf16,8192,8192,8192\n";
  const std::string csv = api::kernel_cost_csv("h100-sxm", shapes.string());
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("# profile: h100-sxm", 0), 0u) << line;
  std::getline(lines, line);
  EXPECT_EQ(line, "op,dtype,m,n,k,predicted_s");
  double small = 0, large = 0;
  std::getline(lines, line);
  small = std::stod(line.substr(line.rfind(',') + 1));
  std::getline(lines, line);
  large = std::stod(line.substr(line.rfind(',') + 1));
  // 8x the FLOPs (2 m n k): at least 4x the time once the larger GEMM is compute-bound.
  EXPECT_GT(small, 0);
  EXPECT_GT(large, 4 * small);
  std::ofstream(shapes) << "op,dtype,m,n,k\ngemm,bf17,1,1,1\n";
  EXPECT_THROW((void)api::kernel_cost_csv("h100-sxm", shapes.string()), InputError);
}

/// A two-point sweep (micro-batch 1 and 2) on the datasheet H100 profile, which is fast.
fs::path write_sweep(const fs::path& dir) {
  const fs::path p = dir / "sweep.yaml";
  std::ofstream(p) << "format_version: 1\nname: api test\nbase: " << kScenario
                   << "\nset:\n  cluster.profile: h100-sxm\naxes:\n  training.micro_batch: [1, 2]\n";
  return p;
}

double number(const api::ResultCell& c) { return std::holds_alternative<double>(c) ? std::get<double>(c) : NAN; }

TEST(Api, SweepIntoADatabaseThenQueryAndMergeIt) {
  const fs::path dir = testing::temp_dir("api_sweep");
  const fs::path sweep = write_sweep(dir);
  const std::string db = (dir / "r.sqlite").string();
  api::SweepJob job{.sweep = sweep.string(), .db = db, .jobs = 1};
  std::ostringstream out, log;
  const api::SweepTotals first = api::run_sweep(job, out, log);
  EXPECT_EQ(first.points, 2u);
  EXPECT_EQ(first.evaluated, 2u);
  EXPECT_EQ(first.failed, 0u);
  EXPECT_NE(out.str().find("sweep api test: 2 points; evaluated 2 (0 failed)"), std::string::npos) << out.str();
  EXPECT_EQ(api::run_sweep(job, out, log).evaluated, 0u);  // a rerun evaluates only what is missing

  const api::ResultsTable all =
      api::query_results({.db = db, .where = {}, .pareto = {}, .columns = "micro_batch,step_time_s"});
  ASSERT_EQ(all.columns, (std::vector<std::string>{"point", "status", "label", "training.micro_batch", "step_time_s"}));
  ASSERT_EQ(all.rows.size(), 2u);
  EXPECT_FALSE(all.pareto_candidates);
  // The in-process sweep gives the rows the database holds.
  const nlohmann::ordered_json in_process = api::sweep(sweep.string(), 1);
  ASSERT_EQ(in_process.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(number(all.rows[i][4]), in_process[i]["result"]["step_time_s"].get<double>());
  }

  const api::ResultsTable two =
      api::query_results({.db = db, .where = {"training.micro_batch = 2"}, .pareto = {}, .columns = "step_time_s"});
  ASSERT_EQ(two.rows.size(), 1u);
  EXPECT_EQ(api::results_csv(two).substr(0, 31), "point,status,label,step_time_s\n");
  EXPECT_EQ(api::results_json(two)[0]["status"], "ok");
  EXPECT_NE(api::results_text(two).find("1 rows"), std::string::npos);

  const api::ResultsTable front =
      api::query_results({.db = db, .where = {}, .pareto = "step_time_s,mfu:max", .columns = {}});
  EXPECT_EQ(front.pareto_candidates, 2u);
  EXPECT_GE(front.rows.size(), 1u);
  EXPECT_THROW((void)api::query_results({.db = db, .where = {}, .pareto = {}, .columns = "no_such_output"}),
               InputError);

  const std::string merged = (dir / "merged.sqlite").string();
  EXPECT_EQ(api::merge_results(merged, {db}).rows_added, 2u);
  EXPECT_EQ(api::merge_results(merged, {db}).rows_added, 0u);  // every point once
}

TEST(Api, SweepJobRefusesToRunWithoutADatabase) {
  const fs::path dir = testing::temp_dir("api_sweep_nodb");
  std::ostringstream out, log;
  api::SweepJob job{.sweep = write_sweep(dir).string()};
  EXPECT_THROW((void)api::run_sweep(job, out, log), InputError);
  job.check_only = true;
  EXPECT_EQ(api::run_sweep(job, out, log).points, 2u);
  EXPECT_NE(out.str().find(": 2 points, all load"), std::string::npos);
}

}  // namespace
}  // namespace cs
