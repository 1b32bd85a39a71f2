// The co-location model against the co-location run on one H200 (profiles/h200-calibration/colocation-run1): the
// model gets each job's alone measurements (a decode iteration's wall time; the kernels clustersim's serving
// layer prices for that step) and predicts the co-located times. The constants (data/colocation.yaml) were fitted
// to these same seven pairs; what this checks is that one set of constants explains all of them.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "../serving/serving_fixtures.hpp"
#include "sim/schedule/colocation_model.hpp"
#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/replica_comm.hpp"

namespace cs {
namespace {

nlohmann::json colocation_run() {
  std::ifstream in(std::string(CS_SOURCE_DIR) + "/profiles/h200-calibration/colocation-run1/colocation.json");
  return nlohmann::json::parse(in);
}

double median_ms(const nlohmann::json& run, const std::string& name) {
  for (const auto& r : run) {
    if (r["name"] == name) return r["step_s_median"].get<double>() * 1e3;
  }
  throw std::runtime_error("no measurement " + name);
}

/// Kernels the serving layer launches for the measured decode step (the 1.5B Llama shape, batch x 1,024 context).
int decode_kernels(int batch) {
  const AlphaBetaComm comm(1, Bandwidth{450e9}, Time::us(2));
  const IterationCost cost(testing::llama_1b5(), Deployment{}, EngineConfig{}, testing::h100_cost(), comm);
  BatchShape b;
  b.decodes = batch;
  b.decode_context = batch * 1024;
  return cost.breakdown(b).kernels;
}

struct Case {
  const char* pair;   ///< the run's phase
  const char* decode; ///< its alone phase
  int batch;
  bool graphs;
  Isolation isolation;
  double tolerance;   ///< relative, on the decode and on the training step
};

TEST(ColocationModel, PredictsTheMeasuredPairsFromTheAloneRuns) {
  const auto run = colocation_run();
  const ColocationParams& p = ColocationParams::shipped();
  const double train_alone = median_ms(run, "alone-train/train");
  const Case cases[] = {
      {"ts-train-d16", "alone-d16", 16, true, Isolation::time_slicing, 0.12},
      {"ts-train-d128", "alone-d128", 128, true, Isolation::time_slicing, 0.12},
      {"ts-train-d16e", "alone-d16e", 16, false, Isolation::time_slicing, 0.12},
      {"mps-train-d16", "alone-d16", 16, true, Isolation::mps, 0.15},
      {"mps-train-d128", "alone-d128", 128, true, Isolation::mps, 0.15},
      {"mps-train-d16e", "alone-d16e", 16, false, Isolation::mps, 0.15},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pair);
    const IterationShape it{Time::from_seconds(median_ms(run, std::string(c.decode) + "/decode") / 1e3),
                            decode_kernels(c.batch), c.graphs};
    const CoLocation m = colocate(c.isolation, it, p);
    const double decode_pred = it.wall.seconds() * 1e3 * m.replica_slowdown;
    const double decode_meas = median_ms(run, std::string(c.pair) + "/decode");
    const double train_pred = train_alone / m.training_rate;  // the decode loop never idles
    const double train_meas = median_ms(run, std::string(c.pair) + "/train");
    std::printf("%-16s decode %6.2f ms predicted %6.2f ms (%+5.1f%%)   training %6.1f ms predicted %6.1f ms (%+5.1f%%)\n",
                c.pair, decode_meas, decode_pred, 100 * (decode_pred / decode_meas - 1), train_meas, train_pred,
                100 * (train_pred / train_meas - 1));
    EXPECT_NEAR(decode_pred / decode_meas, 1.0, c.tolerance);
    EXPECT_NEAR(train_pred / train_meas, 1.0, c.tolerance);
  }
}

TEST(ColocationModel, TwoTrainingJobsTimeSlicedShareTheGpuLessTheSwitches) {
  const auto run = colocation_run();
  const double alone = median_ms(run, "alone-train/train");
  const double both = median_ms(run, "ts-train-train/train");
  EXPECT_NEAR(alone / time_sliced_pair_rate(ColocationParams::shipped()) / both, 1.0, 0.05);
}

TEST(ColocationModel, TwoDecodeLoopsTimeSlicedTakeTurns) {
  const auto run = colocation_run();
  const Time a = Time::from_seconds(median_ms(run, "alone-d16/decode") / 1e3);
  const double pred = a.seconds() * 1e3 * time_sliced_replicas_slowdown(a, a, ColocationParams::shipped());
  EXPECT_NEAR(pred / median_ms(run, "ts-d16-d16/decode"), 1.0, 0.08);
}

TEST(ColocationModel, AnSmLimitProtectsTheReplicaAndCostsTrainingItsShare) {
  const auto run = colocation_run();
  const IterationShape it{Time::from_seconds(median_ms(run, "alone-d16/decode") / 1e3), decode_kernels(16), true};
  const CoLocation m = colocate(Isolation::mps, it, ColocationParams::shipped(), 0.3);
  EXPECT_NEAR(it.wall.seconds() * 1e3 * m.replica_slowdown / median_ms(run, "mps70-train-d16/decode"), 1.0, 0.10);
  EXPECT_NEAR(median_ms(run, "alone-train/train") / m.training_rate / median_ms(run, "mps70-train-d16/train"), 1.0, 0.10);
}

TEST(ColocationModel, MigIsAStaticShareAndNodesShareNothing) {
  const IterationShape it{Time::ms(10), 100, true};
  const auto p = ColocationParams::shipped();
  EXPECT_DOUBLE_EQ(colocate(Isolation::mig, it, p, 0, 3).replica_slowdown, 7.0 / 3.0);
  EXPECT_DOUBLE_EQ(colocate(Isolation::mig, it, p, 0, 3).training_rate, 4.0 / 7.0);
  EXPECT_DOUBLE_EQ(colocate(Isolation::nodes, it, p).replica_slowdown, 1.0);
}

}  // namespace
}  // namespace cs
