// clustersim design with a schedule file as the workload: each candidate replaces the cluster's fabric and the
// jobs' own, and the whole schedule runs on it; the SLO floor ranks a candidate whose services miss their SLO
// below one whose services meet it.
#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "sim/design/design_report.hpp"
#include "sim/design/schedule_design.hpp"
#include "sim/scenario/runner.hpp"

namespace cs {
namespace {

TEST(ScheduleDesign, AJobAloneFinishesAtSubmitPlusItsStepsAtEachCandidatesStep) {
  const ScheduleConfig cfg = load_schedule_file("tests/design/data/one-job-schedule.yaml");
  const std::vector<FabricCandidate> fabrics = schedule_candidates(cfg);
  DesignOptions o;
  o.threads = 1;
  const DesignReport rep = design_schedule(cfg, o);
  EXPECT_EQ(rep.workload, "schedule");
  EXPECT_EQ(rep.gpus, 32);
  EXPECT_EQ(rep.nodes, 4);
  ASSERT_GE(rep.candidates.size(), 5U);
  std::set<double> finishes;
  for (const DesignCandidate& c : rep.candidates) {
    ASSERT_TRUE(c.error.empty()) << c.label << ": " << c.error;
    ASSERT_TRUE(c.schedule.has_value());
    ASSERT_GE(c.candidate, 0);
    const FabricCandidate& fabric = fabrics[static_cast<std::size_t>(c.candidate)];
    // The job's scenario at its 16 GPUs (two nodes) on the candidate's family, replayed as `clustersim run` does.
    Scenario sc = load_scenario(InputNode::load_file(cfg.training[0].scenario, {{"cluster.gpus", "16"}}));
    put_candidate_fabric(sc, fabric);
    EXPECT_EQ(sc.topology.fabric().kind, fabric.fabric.kind) << c.label;
    EXPECT_EQ(sc.topology.nodes(), 2);
    const RunResult r = run_scenario(sc);
    // 13,107,200 tokens / (64 x 2,048 tokens per step) = 100 steps.
    const double steps = *cfg.training[0].tokens / r.tokens_per_step;
    EXPECT_DOUBLE_EQ(steps, 100.0);
    // Alone on an empty cluster without failures it starts at its submit (3,600 s), pays the scenario's restart
    // overhead once (start to first step: facility.reliability.restart_overhead) and runs 100 replayed steps.
    const double run_s = sc.facility.reliability.restart_overhead.seconds() + steps * r.step.step_time.seconds();
    const double expected = 3600.0 + run_s;
    ASSERT_TRUE(c.schedule->training_finished_s.has_value()) << c.label;
    EXPECT_NEAR(*c.schedule->training_finished_s, expected, 1e-9 * expected) << c.label;
    EXPECT_NEAR(c.time_to_train_s, *c.schedule->training_finished_s, 5e-4);  // ranked to the millisecond
    // 16 GPUs held from the start to the finish.
    EXPECT_NEAR(c.schedule->training_gpu_hours, 16 * run_s / 3600, 1e-6) << c.label;
    EXPECT_EQ(c.schedule->training_unfinished, 0);
    EXPECT_FALSE(c.schedule->worst_slo_attainment.has_value());
    EXPECT_TRUE(c.meets_slo);
    EXPECT_GT(c.network_capex_usd, 0) << c.label;
    EXPECT_GT(c.schedule->energy_kwh, 0);
    finishes.insert(*c.schedule->training_finished_s);
  }
  // The fabric is what the job ran on: the candidates do not all give it the same step.
  EXPECT_GT(finishes.size(), 1U);
  EXPECT_GE(rep.best, 0);
}

DesignCandidate made(std::string label, double ttt, double capex, double tco, bool meets_slo) {
  DesignCandidate c;
  c.family = "torus";
  c.label = std::move(label);
  c.time_to_train_s = ttt;
  c.network_capex_usd = capex;
  c.tco_usd_per_year = tco;
  c.meets_slo = meets_slo;
  if (!meets_slo) c.slo_miss = "chat 90.0% within the SLO against 99.0%";
  c.parts = {c.label};  // distinct builds: nothing merged
  return c;
}

TEST(ScheduleDesign, ACandidateWhoseServicesMissTheirSloLosesForThatReason) {
  DesignReport rep;
  rep.workload = "schedule";
  // "fast" trains sooner, at lower capex and TCO, but its services miss the SLO; "slow" meets it.
  rep.candidates = {made("fast", 100, 1, 1, false), made("slow", 200, 2, 2, true)};
  rank_candidates(rep);
  ASSERT_EQ(rep.best, 1);
  EXPECT_EQ(rep.candidates[1].verdict, "best");
  EXPECT_EQ(rep.candidates[0].verdict.rfind("services miss their SLO where slow's meet it", 0), 0U)
      << rep.candidates[0].verdict;
  // Neither dominates the other: "fast" is better in every figure, "slow" meets the SLO.
  EXPECT_TRUE(rep.candidates[0].pareto);
  EXPECT_TRUE(rep.candidates[1].pareto);
}

TEST(ScheduleDesign, AnUnfinishedTrainingIsSlowerThanAnyFinishedOne) {
  DesignReport rep;
  rep.workload = "schedule";
  rep.candidates = {made("unfinished", std::numeric_limits<double>::infinity(), 1, 1, true),
                    made("finished", 5e5, 2, 2, true)};
  rank_candidates(rep);
  EXPECT_EQ(rep.best, 1);
  const nlohmann::ordered_json j = design_json(rep);
  EXPECT_TRUE(j["candidates"][0]["time_to_train_s"].is_null());
  EXPECT_EQ(j["candidates"][1]["time_to_train_s"], 5e5);
}

TEST(ScheduleDesign, AClusterWithoutAScaleOutFabricIsALocatedError) {
  ScheduleConfig cfg = load_schedule_file("tests/design/data/one-job-schedule.yaml");
  cfg.cluster.gpus = 8;  // one node: nothing between nodes to design
  try {
    (void)schedule_candidates(cfg);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("one-job-schedule.yaml"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cluster.scenario"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cs
