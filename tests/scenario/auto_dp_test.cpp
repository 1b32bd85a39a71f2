// `parallelism.dp: auto` (and the key left out): the data-parallel degree that fills the cluster, so a what-if
// on the GPU count (`--set cluster.gpus=512`, a sweep axis, the planner's field) keeps the model-parallel layout.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/input/input_node.hpp"
#include "sim/scenario/scenario.hpp"

namespace cs {
namespace {

std::string auto_dp_scenario(int gpus, const std::string& parallelism) {
  return "format_version: 1\nname: auto dp\nmodel:\n  preset: gpt3-1.3b\ncluster:\n  gpus: " + std::to_string(gpus) +
         "\n  topology: dgx-h100\n  profile: h100-sxm\nparallelism:\n" + parallelism +
         "training:\n  global_batch: 512\n  micro_batch: 1\n";
}

std::string shipped_flagship() { return data_path("scenarios/gpt3-175b-1024xh100.yaml"); }

TEST(AutoDp, AutoAndOmittedFillTheCluster) {
  EXPECT_EQ(load_scenario_text(auto_dp_scenario(64, "  tp: 4\n  pp: 2\n  dp: auto\n"), "a.yaml").plan.dp, 8);
  EXPECT_EQ(load_scenario_text(auto_dp_scenario(64, "  tp: 4\n  pp: 2\n"), "b.yaml").plan.dp, 8);
  EXPECT_EQ(load_scenario_text(auto_dp_scenario(64, "  tp: 2\n  cp: 2\n  pp: 2\n"), "c.yaml").plan.dp, 8);
  // A stated degree is kept as stated.
  EXPECT_EQ(load_scenario_text(auto_dp_scenario(64, "  tp: 4\n  pp: 2\n  dp: 8\n"), "d.yaml").plan.dp, 8);
}

TEST(AutoDp, TheFlagshipFollowsItsGpuCount) {
  const Scenario shipped = load_scenario(InputNode::load_file(shipped_flagship()));
  EXPECT_EQ(shipped.plan.dp, 16);  // 1024 / (tp 8 x pp 8), what the file stated before it said auto
  for (const auto& [gpus, dp] : {std::pair{512, 8}, std::pair{2048, 32}}) {
    const Scenario sc = load_scenario(InputNode::load_file(shipped_flagship(), {{"cluster.gpus", std::to_string(gpus)}}));
    EXPECT_EQ(sc.gpus, gpus);
    EXPECT_EQ(sc.plan.dp, dp);
    EXPECT_EQ(sc.plan.gpus(), gpus);
  }
}

TEST(AutoDp, AClusterTheLayoutDoesNotDivideIsALocatedError) {
  try {
    (void)load_scenario_text(auto_dp_scenario(48, "  tp: 8\n  pp: 4\n  dp: auto\n"), "odd.yaml");
    FAIL() << "48 GPUs accepted for tp 8 x pp 4";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("odd.yaml:12:"), std::string::npos) << what;  // at the dp key
    EXPECT_NE(what.find("parallelism.dp"), std::string::npos) << what;
    EXPECT_NE(what.find("48"), std::string::npos) << what;
    EXPECT_NE(what.find("8*4*1 = 32"), std::string::npos) << what;
  }
  // Omitted, the error is at the parallelism section.
  try {
    (void)load_scenario_text(auto_dp_scenario(48, "  tp: 8\n  pp: 4\n"), "omitted.yaml");
    FAIL() << "48 GPUs accepted for tp 8 x pp 4";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("omitted.yaml:10:"), std::string::npos) << e.what();
  }
}

TEST(AutoDp, OnlyAutoOrAPositiveWholeNumber) {
  for (const char* bad : {"0", "-2", "1.5", "automatic"}) {
    EXPECT_THROW((void)load_scenario_text(auto_dp_scenario(64, std::string("  tp: 8\n  dp: ") + bad + "\n"), "bad.yaml"),
                 InputError)
        << bad;
  }
}

TEST(Settings, AnErrorAtASettingNamesTheSetting) {
  try {
    (void)load_scenario(InputNode::load_file(shipped_flagship(), {{"training.global_batch", "lots"}}));
    FAIL() << "a bad setting was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "--set training.global_batch=lots");
    EXPECT_EQ(e.key_path(), "training.global_batch");
  }
  // A setting through a scalar is refused naming both.
  try {
    (void)InputNode::load_file(shipped_flagship(), {{"name.first", "x"}});
    FAIL() << "a setting through a scalar was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "--set name.first=x");
    EXPECT_NE(std::string(e.what()).find("name is"), std::string::npos) << e.what();
  }
  // Errors elsewhere stay in the file, at their own line.
  try {
    (void)load_scenario(InputNode::load_file(shipped_flagship(), {{"cluster.gpus", "1000"}}));
    FAIL() << "1000 GPUs accepted for tp 8 x pp 8";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, shipped_flagship());
    EXPECT_GT(e.where().line, 0);
  }
}

}  // namespace
}  // namespace cs
