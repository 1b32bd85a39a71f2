// Framework profiles (profiles/frameworks/*.yaml, sim/workload/framework_profile.hpp): the shipped ones read with
// their bases, a scenario's training.framework applied under the keys it sets itself, and bad profiles rejected
// with the file, line and key.
#include "sim/workload/framework_profile.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "sim/core/error.hpp"
#include "sim/scenario/scenario.hpp"
#include "temp_path.hpp"

namespace cs {
namespace {

std::string write_profile_file(const std::string& name, const std::string& text) {
  const auto path = testing::temp_file("framework_" + name, ".yaml");
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::string scenario_with(const std::string& training_extra) {
  return "format_version: 1\nname: tiny\nmodel:\n  preset: gpt3-1.3b\ncluster:\n  gpus: 8\n  topology: dgx-h100\n"
         "  profile: h100-sxm\nparallelism:\n  tp: 2\n  pp: 2\n  dp: 2\ntraining:\n  global_batch: 16\n"
         "  micro_batch: 1\n" + training_extra;
}

TEST(FrameworkProfile, ShippedProfilesBuildOnEagerPyTorch) {
  const FrameworkProfile& eager = find_framework_profile("pytorch-eager");
  EXPECT_EQ(eager.kernel_gap, Time::us(9.1));
  EXPECT_EQ(eager.host_launch_cost, Time::us(32));
  EXPECT_EQ(eager.host_factor, 1.0);
  EXPECT_EQ(eager.costs.native_gemm_launch, Time::us(15.8));
  EXPECT_EQ(eager.costs.schedule_node_host_synced, Time::us(730));
  EXPECT_EQ(eager.costs.calibration_host_linear_forward, Time::us(27.1));
  // CUDA graphs: no launch costs, the measuring hosts' other costs kept.
  const FrameworkProfile& graphs = find_framework_profile(kDefaultFramework);
  EXPECT_EQ(graphs.kernel_gap, Time::zero());
  EXPECT_EQ(graphs.host_launch_cost, Time::zero());
  EXPECT_EQ(graphs.costs.native_kernel_launch, eager.costs.native_kernel_launch);
  // Transformer Engine: eager PyTorch's costs at its measured (2025) or published (2026) ratio.
  const FrameworkProfile& te25 = find_framework_profile("megatron-core-te-2025");
  EXPECT_EQ(te25.host_factor, 7.04);
  EXPECT_EQ(te25.host_work, HostWork::per_kind);
  EXPECT_EQ(te25.host_launch_cost, Time::us(32));
  EXPECT_EQ(te25.costs.grouped_gemm_launch, Time::us(67));
  const FrameworkProfile& te26 = find_framework_profile("megatron-core-te-2026");
  EXPECT_EQ(te26.host_factor, 2.7);
  EXPECT_EQ(te26.host_work, HostWork::uniform);
  EXPECT_EQ(te26.name, "megatron-core-te-2026");
  EXPECT_FALSE(te26.measured_on.empty());
  EXPECT_EQ(shipped_framework_profiles(),
            (std::vector<std::string>{"cuda-graphs", "megatron-core-te-2025", "megatron-core-te-2026", "pytorch-eager"}));
}

TEST(FrameworkProfile, ScenarioKeysReplaceTheProfilesFigures) {
  // No framework named: CUDA graphs (no host), with the measuring hosts' costs for a hand-set launch cost.
  const Scenario plain = load_scenario_text(scenario_with(""), "plain.yaml");
  EXPECT_EQ(plain.training.framework, kDefaultFramework);
  EXPECT_EQ(plain.training.host_launch_cost, Time::zero());
  EXPECT_EQ(plain.training.host_costs.native_gemm_launch, Time::us(15.8));
  // Named: its figures, except the keys the scenario sets itself (whatever their order in the file).
  const Scenario te = load_scenario_text(scenario_with("  kernel_gap: 2us\n  framework: megatron-core-te-2025\n"), "te.yaml");
  EXPECT_EQ(te.training.framework, "megatron-core-te-2025");
  EXPECT_EQ(te.training.kernel_gap, Time::us(2));
  EXPECT_EQ(te.training.host_launch_cost, Time::us(32));
  EXPECT_EQ(te.training.framework_host_factor, 7.04);
  // A profile by path, built on a shipped one.
  const std::string own = write_profile_file("own", "base: pytorch-eager\ntitle: our fork\nmeasured_on: our host, 2026\n"
                                                     "host_launch_cost: 20us\nnative_gemm_launch: 11us\n");
  const Scenario mine = load_scenario_text(scenario_with("  framework: " + own + "\n"), "mine.yaml");
  EXPECT_EQ(mine.training.host_launch_cost, Time::us(20));
  EXPECT_EQ(mine.training.kernel_gap, Time::us(9.1));  // the base's
  EXPECT_EQ(mine.training.host_costs.native_gemm_launch, Time::us(11));
  EXPECT_EQ(mine.training.host_costs.native_kernel_launch, Time::us(9.8));
}

TEST(FrameworkProfile, BadProfilesNameTheFileLineAndKey) {
  const auto message = [](const std::string& text) {
    const std::string path = write_profile_file("bad", text);
    try {
      (void)load_framework_profile(path);
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      return what;
    }
    ADD_FAILURE() << "accepted: " << text;
    return std::string();
  };
  EXPECT_NE(message("title: t\nmeasured_on: m\nhost_lanch_cost: 3us\n").find(":3:1: host_lanch_cost: unknown key"),
            std::string::npos);
  EXPECT_NE(message("title: t\nmeasured_on: m\nhost_launch_cost: 32\n").find("host_launch_cost: \"32\" has no unit"),
            std::string::npos);
  EXPECT_NE(message("title: t\nmeasured_on: m\nnative_gemm_launch: -1us\n").find("native_gemm_launch: must not be negative"),
            std::string::npos);
  EXPECT_NE(message("title: t\nmeasured_on: m\nbase: tensorflow\n").find("base: unknown framework profile \"tensorflow\""),
            std::string::npos);
  EXPECT_NE(message("measured_on: m\n").find("missing key \"title\""), std::string::npos);
}

}  // namespace
}  // namespace cs
