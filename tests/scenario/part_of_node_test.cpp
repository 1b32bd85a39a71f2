// A job on part of one node, down to one GPU: `cluster.gpus` smaller than the topology's node (and dividing it)
// means that node with the job on `gpus` of its GPUs - the same run as the whole node with a one-GPU plan.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/scenario/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {
namespace {

std::string scenario(int gpus, const std::string& parallelism) {
  return "format_version: 1\nname: part of a node\nmodel:\n  preset: gpt3-1.3b\ncluster:\n  gpus: " +
         std::to_string(gpus) + "\n  topology: dgx-h200\n  profile: h200\nparallelism:\n" + parallelism +
         "training:\n  global_batch: 4\n  micro_batch: 2\n";
}

TEST(PartOfANode, OneGpuIsTheNodeWithAOneGpuPlan) {
  const Scenario one = load_scenario_text(scenario(1, "  tp: 1\n"), "one.yaml");
  const Scenario node = load_scenario_text(scenario(8, "  tp: 1\n  dp: 1\n"), "node.yaml");
  EXPECT_EQ(one.gpus, 8);
  const RunResult a = run_scenario(one), b = run_scenario(node);
  EXPECT_EQ(a.gpus, 1);
  EXPECT_EQ(a.step.step_time, b.step.step_time);
}

TEST(PartOfANode, TwoGpusRunDataParallelOnTwoOfTheEight) {
  const RunResult r = run_scenario(load_scenario_text(scenario(2, "  dp: 2\n"), "two.yaml"));
  EXPECT_EQ(r.gpus, 2);
}

TEST(PartOfANode, APlanThatDoesNotUseThemAllIsRefusedAtTheKey) {
  try {
    (void)load_scenario_text(scenario(4, "  dp: 2\n"), "four.yaml");
    FAIL() << "a 2-GPU plan on a 4-GPU cluster was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("four.yaml:6"), std::string::npos) << what;
    EXPECT_NE(what.find("cluster.gpus"), std::string::npos) << what;
  }
  // Not a divisor of the node: still whole nodes or nothing.
  EXPECT_THROW((void)load_scenario_text(scenario(3, "  dp: 3\n"), "three.yaml"), InputError);
}

}  // namespace
}  // namespace cs
