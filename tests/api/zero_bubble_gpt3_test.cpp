// Issue 45's acceptance on the flagship: GPT-3 175B on 1,024 H100 (scenarios/gpt3-175b-1024xh100.yaml) with one
// model chunk per rank (virtual_stages: 1), the schedule set the way a user sets it (--set through api::load).
// The pipeline bubble compared is the busiest stage's (the bottleneck's) wait: the critical stage's also holds
// what it waits for the slower last stage (the output layer), which no schedule removes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/api/clustersim.hpp"

namespace cs {
namespace {

RunResult gpt3_with(const std::string& schedule) {
  std::filesystem::current_path(CS_SOURCE_DIR);
  const Scenario sc = api::load({.path = "scenarios/gpt3-175b-1024xh100.yaml",
                                 .text = std::nullopt,
                                 .set = {{"parallelism.virtual_stages", "1"}, {"parallelism.schedule", schedule}},
                                 .profile = ""});
  return api::run(sc);
}

TEST(ZeroBubbleGpt3, ZbH1HalvesToThirdsTheBubbleAtOneFOneBsMemory) {
  const RunResult one = gpt3_with("1f1b"), h1 = gpt3_with("zb-h1"), h2 = gpt3_with("zb-h2");
  const double bubble_1f1b = one.step.busiest.pipeline_wait.seconds(), bubble_h1 = h1.step.busiest.pipeline_wait.seconds();
  const double ratio = bubble_h1 / bubble_1f1b;
  EXPECT_GE(ratio, 1.0 / 3.0) << bubble_h1 << " s against " << bubble_1f1b << " s";
  EXPECT_LE(ratio, 1.0 / 2.0) << bubble_h1 << " s against " << bubble_1f1b << " s";
  // Same peak activation memory within 5% (ZB-H1 holds pp micro-batches on every rank, 1F1B on its first).
  EXPECT_NEAR(h1.memory.activations.value() / one.memory.activations.value(), 1.0, 0.05);
  // ZB-H2 holds up to 2pp - 1 micro-batches for a smaller bubble still.
  EXPECT_LT(h2.step.busiest.pipeline_wait, h1.step.busiest.pipeline_wait);
  EXPECT_GT(h2.memory.activations.value(), 1.5 * h1.memory.activations.value());
  EXPECT_LT(h1.step.step_time, one.step.step_time);
  EXPECT_LT(h2.step.step_time, h1.step.step_time);
  // Same work: the split moves kernels, it adds none.
  EXPECT_NEAR(h1.step.model_flops.value() / one.step.model_flops.value(), 1.0, 1e-12);
}

TEST(ZeroBubbleGpt3, PipeDream2BwHoldsOneMoreWeightVersionAndNoFlush) {
  const RunResult one = gpt3_with("1f1b"), bw = gpt3_with("pipedream-2bw");
  EXPECT_EQ(bw.memory.weight_versions, one.memory.weight_versions + 1);
  EXPECT_DOUBLE_EQ(bw.memory.stashed_weights.value(), bw.memory.weights.value());
  EXPECT_DOUBLE_EQ(bw.memory.total().value() - one.memory.total().value(),
                   1.05 * bw.memory.stashed_weights.value());  // the copy and its share of the allocator margin
  std::filesystem::current_path(CS_SOURCE_DIR);
  const Scenario sc = api::load({.path = "scenarios/gpt3-175b-1024xh100.yaml",
                                 .text = std::nullopt,
                                 .set = {{"parallelism.virtual_stages", "1"}, {"parallelism.schedule", "pipedream-2bw"}},
                                 .profile = ""});
  const auto j = api::result_json(sc, bw);
  EXPECT_FALSE(j["pipeline"]["flush"].get<bool>());
  EXPECT_EQ(j["pipeline"]["weight_versions"].get<int>(), 2);
  EXPECT_EQ(j["pipeline"]["weight_delay"].get<int>(), 1);
  EXPECT_EQ(j["memory"]["weight_versions"].get<int>(), 2);
  // Without the flush the fill and drain are gone: the step is shorter than 1F1B's.
  EXPECT_LT(bw.step.step_time, one.step.step_time);
  EXPECT_LT(bw.step.busiest.pipeline_wait, one.step.busiest.pipeline_wait);
}

// The values are declared once (schedule_names), so every input path takes them: a sweep axis, the planner's form.
TEST(ZeroBubbleGpt3, EveryScheduleIsAValueOfTheKey) {
  for (const char* s : {"zb-h1", "zb-h2", "zb-v", "dualpipe-v", "pipedream-2bw", "pipedream-async"}) {
    EXPECT_FALSE(api::check_value(api::InputKind::scenario, "parallelism.schedule", s).has_value()) << s;
  }
  EXPECT_TRUE(api::check_value(api::InputKind::scenario, "parallelism.schedule", "zb-h3").has_value());
}

}  // namespace
}  // namespace cs
