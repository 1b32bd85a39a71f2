// The public API: schemas derived from the declarations, the docs generated from them, value checks, and
// cancellation.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/api/clustersim.hpp"

namespace cs {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Api, CommittedDocsEqualTheTablesGeneratedFromTheDeclarations) {
  // After changing a declaration: build/sim/cli/clustersim schema --update-docs docs/*.md
  for (const char* doc : {"docs/scenario.md", "docs/topology.md", "docs/profiles.md"}) {
    const std::string text = slurp(std::string(CS_SOURCE_DIR) + "/" + doc);
    ASSERT_NE(text.find("<!-- params: "), std::string::npos) << doc << " has no generated key table";
    EXPECT_EQ(api::update_param_docs(text), text) << doc << " is stale: run clustersim schema --update-docs " << doc;
  }
}

TEST(Api, CheckValueGivesTheScenarioLoadersMessage) {
  using api::InputKind;
  EXPECT_EQ(api::check_value(InputKind::scenario, "facility.cooling.pue", "1.2"), std::nullopt);
  EXPECT_EQ(api::check_value(InputKind::scenario, "facility.cooling.pue", "0.9"), "must lie in [1, 3]");
  EXPECT_EQ(api::check_value(InputKind::scenario, "cluster.gpus", "-8"), "must be a positive whole number");
  EXPECT_EQ(api::check_value(InputKind::scenario, "training.precision", "fp4"),
            "must be fp32, tf32, bf16, fp16 or fp8, got \"fp4\"");
  EXPECT_EQ(api::check_value(InputKind::scenario, "cluster.colour", "red"), "unknown key");
  EXPECT_TRUE(api::check_value(InputKind::scenario, "facility.power.gpu_power_cap", "700").has_value())
      << "a power without a unit is refused";
  EXPECT_EQ(api::check_value(InputKind::topology, "fabric.kind", "fat_tree"), std::nullopt);
}

/// Every key used by a shipped file must be declared (the schema describes what the files really use).
void expect_declared(const YAML::Node& n, const ParamSection& s, const std::string& where) {
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    if (const ParamSection* sub = s.find_section(key)) {
      if (kv.second.IsMap() && !sub->params.empty()) expect_declared(kv.second, *sub, where + "." + key);
      continue;
    }
    EXPECT_NE(s.find_param(key), nullptr) << where << "." << key << " is not declared";
  }
}

TEST(Api, EveryKeyOfTheShippedFilesIsDeclared) {
  namespace fs = std::filesystem;
  const std::pair<const char*, api::InputKind> dirs[] = {{"scenarios", api::InputKind::scenario},
                                                         {"topologies", api::InputKind::topology},
                                                         {"profiles", api::InputKind::profile}};
  int files = 0;
  for (const auto& [dir, kind] : dirs) {
    for (const auto& e : fs::directory_iterator(std::string(CS_SOURCE_DIR) + "/" + dir)) {
      if (e.path().extension() != ".yaml") continue;
      expect_declared(YAML::LoadFile(e.path().string()), api::schema(kind), e.path().filename().string());
      ++files;
    }
  }
  EXPECT_GE(files, 10);
}

TEST(Api, JsonSchemaOfScenariosListsSectionsAndRequiredKeys) {
  const auto j = param_json_schema(api::schema(api::InputKind::scenario), "scenario");
  EXPECT_EQ(j["additionalProperties"], false);
  EXPECT_TRUE(j["properties"].contains("facility"));
  EXPECT_EQ(j["properties"]["facility"]["properties"]["cooling"]["properties"]["pue"]["minimum"], 1.0);
  EXPECT_EQ(j["properties"]["training"]["properties"]["precision"]["enum"].size(), 5u);
  const auto& req = j["required"];
  EXPECT_NE(std::find(req.begin(), req.end(), "format_version"), req.end());
  EXPECT_NE(std::find(req.begin(), req.end(), "cluster"), req.end());
}

TEST(Api, ARunWhoseFlagIsSetIsCancelled) {
  const Scenario sc = load_scenario(std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-1.3b-8xh100-dp.yaml");
  std::atomic<bool> cancel{true};
  EXPECT_THROW((void)api::run(sc, {.observers = {}, .cancel = &cancel}), api::Cancelled);
  cancel = false;
  const RunResult r = api::run(sc, {.observers = {}, .cancel = &cancel});
  EXPECT_GT(r.step.step_time, Time::zero());
}

}  // namespace
}  // namespace cs
