// The text summary's plan line says which modules a run recomputes (Megatron-Core recompute_modules), not only
// the recompute granularity, which stays "none" for a run that reruns modules.
#include <gtest/gtest.h>

#include "sim/report/text_summary.hpp"
#include "sim/scenario/runner.hpp"

namespace cs {
namespace {

TEST(PlanLine, NamesTheRecomputedModules) {
  Scenario sc = load_scenario(std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-1.3b-8xh100-dp.yaml");
  const RunResult plain = run_scenario(sc);
  EXPECT_NE(text_summary(sc, plain).find("ZeRO-0, none recompute, bf16"), std::string::npos) << text_summary(sc, plain);
  sc.training.recompute_modules.layernorm = true;
  sc.training.recompute_modules.mlp = true;
  const RunResult modules = run_scenario(sc);
  EXPECT_NE(text_summary(sc, modules).find("none recompute (modules layernorm, mlp), bf16"), std::string::npos)
      << text_summary(sc, modules);
  EXPECT_GT(modules.step.step_time, plain.step.step_time);  // the rerun costs time
}

}  // namespace
}  // namespace cs
