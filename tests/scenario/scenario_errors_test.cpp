// Every way a scenario can be wrong gets a located message naming the key, before anything runs.
#include "sim/scenario/scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/error.hpp"
#include "temp_path.hpp"

namespace cs {
namespace {

const char* kGood = R"(format_version: 1
name: tiny
model:
  preset: gpt3-1.3b
cluster:
  gpus: 8
  topology: dgx-h100
  profile: h100-sxm
parallelism:
  tp: 2
  pp: 2
  dp: 2
training:
  global_batch: 16
  micro_batch: 1
)";

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = cs::testing::temp_file("scenario_test_" + name, ".yaml");
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

/// Replaces the first occurrence of `from` in the good scenario with `to`.
std::string edit(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}

struct BadCase {
  const char* name;
  std::string text;
  std::string expected;  // a substring of the message, including the location where there is one
};

class ScenarioErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScenarioErrors, AreRejectedWithALocatedMessage) {
  const BadCase& c = GetParam();
  const std::string path = write_temp(c.name, c.text);
  try {
    (void)load_scenario(path);
    FAIL() << "accepted: " << c.name;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(c.expected), std::string::npos) << "message: " << what << "\nexpected: " << c.expected;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, ScenarioErrors,
    ::testing::Values(
        BadCase{"empty", "", "file is empty"},
        BadCase{"binary", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10), "binary"},
        BadCase{"not_utf8", "name: \xff\xfe\n", "not valid UTF-8"},
        BadCase{"syntax", "format_version: 1\nmodel: [unclosed\n", ":3:1: YAML syntax error"},
        BadCase{"top_level_list", "- a\n- b\n", "top level must be a mapping"},
        BadCase{"truncated", std::string(kGood).substr(0, std::string(kGood).find("training:")), "needs a training: section"},
        BadCase{"unknown_top_key", std::string(kGood) + "colour: blue\n", ":16:1: colour: unknown key"},
        BadCase{"unknown_nested_key", edit("  tp: 2\n", "  tp: 2\n  tpp: 4\n"), ":11:3: parallelism.tpp: unknown key"},
        BadCase{"missing_key", edit("  gpus: 8\n", ""), "cluster: missing key \"gpus\""},
        BadCase{"non_numeric", edit("gpus: 8", "gpus: eight"), ":6:9: cluster.gpus: expected a whole number, got \"eight\""},
        BadCase{"fractional_int", edit("tp: 2", "tp: 2.5"), "parallelism.tp: expected a whole number"},
        BadCase{"wrong_type_map", edit("  tp: 2", "  tp: {a: 1}"), "parallelism.tp: expected a whole number, got a mapping"},
        BadCase{"negative", edit("pp: 2", "pp: -2"), "parallelism.pp: must be a positive whole number"},
        BadCase{"product_mismatch", edit("dp: 2", "dp: 4"), "tp*pp*dp*cp = 2*2*4*1 = 16 but the cluster has 8 GPUs"},
        BadCase{"batch_not_divisible", edit("global_batch: 16", "global_batch: 15"), "training.global_batch: 15 is not a multiple"},
        BadCase{"bad_enum", edit("  micro_batch: 1\n", "  micro_batch: 1\n  recompute: sometimes\n"), "training.recompute: must be none, selective or full"},
        BadCase{"bad_precision", edit("  micro_batch: 1\n", "  micro_batch: 1\n  precision: int4\n"), "training.precision: must be fp32"},
        BadCase{"fp4_on_hopper", edit("  micro_batch: 1\n", "  micro_batch: 1\n  precision: fp4\n"),
                "training.precision: NVIDIA H100 SXM5 80GB has no fp4 peak"},
        BadCase{"mxfp8_on_hopper", edit("  micro_batch: 1\n", "  micro_batch: 1\n  precision: mxfp8\n"),
                "training.precision: NVIDIA H100 SXM5 80GB has no mxfp8 peak"},
        BadCase{"wrong_unit", edit("  micro_batch: 1\n", "  micro_batch: 1\n  grad_bucket: 40GB/s\n"), "training.grad_bucket: unknown size unit \"GB/s\""},
        BadCase{"negative_host_cost", edit("  micro_batch: 1\n", "  micro_batch: 1\n  host_launch_cost: -5us\n"), "training.host_launch_cost:"},
        BadCase{"host_cost_no_unit", edit("  micro_batch: 1\n", "  micro_batch: 1\n  host_launch_cost: 32\n"), "training.host_launch_cost: \"32\" has no unit"},
        BadCase{"host_sync_not_bool", edit("  micro_batch: 1\n", "  micro_batch: 1\n  moe_host_sync: maybe\n"), "training.moe_host_sync:"},
        BadCase{"bad_dispatcher", edit("  micro_batch: 1\n", "  micro_batch: 1\n  moe_dispatcher: deepep\n"), "training.moe_dispatcher: must be alltoall or flex"},
        BadCase{"router_groups_not_dividing", edit("  preset: gpt3-1.3b\n", "  preset: gpt3-1.3b\n  experts: 12\n  top_k: 2\n  router_groups: 5\n  router_group_topk: 2\n"), "model.router_groups: router_groups must divide experts"},
        BadCase{"router_group_topk_too_big", edit("  preset: gpt3-1.3b\n", "  preset: gpt3-1.3b\n  experts: 16\n  top_k: 2\n  router_groups: 4\n  router_group_topk: 5\n"), "model.router_group_topk: router_group_topk must lie in 1..router_groups"},
        BadCase{"negative_capacity", edit("  micro_batch: 1\n", "  micro_batch: 1\n  moe_capacity_factor: -1\n"), "training.moe_capacity_factor:"},
        BadCase{"unknown_framework", edit("  micro_batch: 1\n", "  micro_batch: 1\n  framework: jax-xla\n"),
                ":16:14: training.framework: unknown framework profile \"jax-xla\" (shipped: cuda-graphs, megatron-core-te-2025"},
        BadCase{"bad_grouped_launch", edit("  micro_batch: 1\n", "  micro_batch: 1\n  grouped_launch: cuda\n"), "training.grouped_launch: must be native or python"},
        BadCase{"missing_unit", edit("  micro_batch: 1\n", "  micro_batch: 1\n  grad_bucket: 4000\n"), "training.grad_bucket: \"4000\" has no unit"},
        BadCase{"unknown_profile", edit("profile: h100-sxm", "profile: z9000"), "cluster.profile: unknown device profile \"z9000\""},
        BadCase{"unknown_preset", edit("preset: gpt3-1.3b", "preset: gpt9"), "model.preset: unknown model preset \"gpt9\""},
        BadCase{"gpus_not_whole_nodes", edit("gpus: 8", "gpus: 12"), "12 GPUs is not a whole number of 8-GPU nodes"},
        BadCase{"heads_not_divisible", edit("  preset: gpt3-1.3b\n", "  preset: gpt3-1.3b\n  heads: 15\n"), "model: hidden (2048) must be a multiple of heads (15)"},
        BadCase{"future_version", edit("format_version: 1", "format_version: 7"), ":1:17: format_version: unsupported scenario format_version 7"},
        BadCase{"tp_beyond_node", edit("tp: 2", "tp: 16").replace(std::string(kGood).find("gpus: 8"), 7, "gpus: 64"), "parallelism.tp: tensor parallelism beyond one node"}),
    [](const ::testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

TEST(Scenario, MissingFileIsAnInputError) {
  try {
    (void)load_scenario("/nonexistent/dir/scenario.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/scenario.yaml: cannot open file"), std::string::npos);
  }
}

TEST(Scenario, GoodScenarioLoads) {
  const Scenario sc = load_scenario(write_temp("good", kGood));
  EXPECT_EQ(sc.gpus, 8);
  EXPECT_EQ(sc.plan.tp, 2);
  EXPECT_EQ(sc.model.layers, 24);
  EXPECT_EQ(sc.training.seq_len, 2048);  // from the model preset
  EXPECT_EQ(sc.training.micro_batches(sc.plan), 8);
  EXPECT_TRUE(sc.plan.sequence_parallel);  // default on when tp > 1
}

TEST(Scenario, ShippedScenariosAllLoad) {
  for (const auto& e : std::filesystem::directory_iterator(std::string(CS_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW((void)load_scenario(e.path().string())) << e.path();
  }
}

}  // namespace
}  // namespace cs
