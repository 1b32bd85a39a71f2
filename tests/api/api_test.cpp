// The public API: schemas derived from the declarations, the docs generated from them, value checks,
// cancellation, and the plan search with the settings that reproduce a plan.
#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

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
  EXPECT_EQ(api::check_value(InputKind::scenario, "training.precision", "int4"),
            "must be fp32, tf32, bf16, fp16, fp8, mxfp8 or fp4, got \"int4\"");
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

/// Whether YAML node `n` has the shape JSON Schema `schema` gives it (its "type", and its properties' and items'
/// types where declared): what an editor checking the file against `clustersim schema KIND` would accept.
void expect_shape(const YAML::Node& n, const nlohmann::ordered_json& schema, const std::string& where) {
  if (schema.contains("type")) {
    std::vector<std::string> types;
    if (schema["type"].is_array()) {
      for (const auto& t : schema["type"]) types.push_back(t.get<std::string>());
    } else {
      types.push_back(schema["type"].get<std::string>());
    }
    const auto allows = [&](const char* t) { return std::find(types.begin(), types.end(), t) != types.end(); };
    const bool scalar = allows("string") || allows("number") || allows("integer") || allows("boolean");
    const bool ok = n.IsMap() ? allows("object") : n.IsSequence() ? allows("array") : scalar;
    EXPECT_TRUE(ok) << where << ": the schema says " << schema["type"].dump();
  }
  if (n.IsMap() && schema.contains("properties")) {
    for (const auto& kv : n) {
      const std::string key = kv.first.as<std::string>();
      if (schema["properties"].contains(key)) expect_shape(kv.second, schema["properties"][key], where + "." + key);
    }
  }
  if (n.IsSequence() && schema.contains("items")) {
    for (std::size_t i = 0; i < n.size(); ++i) expect_shape(n[i], schema["items"], where + "[" + std::to_string(i) + "]");
  }
}

// Every shipped sweep and schedule file has the shape its JSON Schema declares (mappings such as `set:` and
// `axes:` are objects, job lists arrays), so an editor using the schema accepts it.
TEST(Api, ShippedSweepsAndSchedulesHaveTheShapeOfTheirJsonSchema) {
  namespace fs = std::filesystem;
  const std::pair<const char*, api::InputKind> dirs[] = {{"scenarios/sweeps", api::InputKind::sweep},
                                                         {"scenarios/schedules", api::InputKind::schedule}};
  int files = 0;
  for (const auto& [dir, kind] : dirs) {
    const auto schema = api::json_schema(kind);
    for (const auto& e : fs::directory_iterator(std::string(CS_SOURCE_DIR) + "/" + dir)) {
      if (e.path().extension() != ".yaml" || e.path().filename().string().ends_with("-plan.yaml")) continue;
      expect_shape(YAML::LoadFile(e.path().string()), schema, e.path().filename().string());
      ++files;
    }
  }
  EXPECT_GE(files, 10);
  EXPECT_EQ(api::json_schema(api::InputKind::sweep)["properties"]["set"]["type"], "object");
}

TEST(Api, JsonSchemaOfScenariosListsSectionsAndRequiredKeys) {
  const auto j = param_json_schema(api::schema(api::InputKind::scenario), "scenario");
  EXPECT_EQ(j["additionalProperties"], false);
  EXPECT_TRUE(j["properties"].contains("facility"));
  EXPECT_EQ(j["properties"]["facility"]["properties"]["cooling"]["properties"]["pue"]["minimum"], 1.0);
  EXPECT_EQ(j["properties"]["training"]["properties"]["precision"]["enum"].size(), 7u);
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

const std::string kEightGpus = std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-1.3b-8xh100-dp.yaml";

/// `text` with its `parallelism:` section replaced by `settings` (dotted keys), as the planner writes a plan.
std::string with_settings(const std::string& text, const std::vector<std::pair<std::string, std::string>>& settings) {
  YAML::Node root = YAML::Load(text);
  root.remove("parallelism");
  for (const auto& [key, value] : settings) {
    const auto dot = key.find('.');
    const auto dot2 = key.find('.', dot + 1);
    if (dot2 == std::string::npos) root[key.substr(0, dot)][key.substr(dot + 1)] = value;
    else root[key.substr(0, dot)][key.substr(dot + 1, dot2 - dot - 1)][key.substr(dot2 + 1)] = value;
  }
  YAML::Emitter out;
  out << root;
  return out.c_str();
}

TEST(Api, PlanSettingsReproduceEveryPlanOfTheSearchSpace) {
  const std::string text = slurp(kEightGpus);
  const Scenario sc = load_scenario_text(text, "8gpu.yaml");
  std::vector<PlanCandidate> plans;
  PlanSpaceCounts counts;
  enumerate_plans(sc, counts, [&](const PlanCandidate& c) { plans.push_back(c); });
  ASSERT_GT(plans.size(), 20u);
  // About 16 plans spread evenly over the space (tp, pp, vpp, ZeRO, recompute, overlap): every plan would be
  // hundreds of scenario loads.
  const std::size_t stride = std::max<std::size_t>(1, plans.size() / 16);
  int checked = 0;
  for (std::size_t i = 0; i < plans.size(); i += stride, ++checked) {
    const PlanCandidate& c = plans[i];
    SCOPED_TRACE(describe(c));
    const Scenario got = load_scenario_text(with_settings(text, api::plan_settings(c)), "planned.yaml");
    EXPECT_EQ(got.plan.tp, c.plan.tp);
    EXPECT_EQ(got.plan.pp, c.plan.pp);
    EXPECT_EQ(got.plan.dp, c.plan.dp);
    EXPECT_EQ(got.plan.cp, c.plan.cp);
    EXPECT_EQ(got.plan.ep, c.plan.ep);
    EXPECT_EQ(got.plan.virtual_stages, c.plan.virtual_stages);
    EXPECT_EQ(got.plan.schedule, c.plan.schedule);
    EXPECT_EQ(got.plan.sequence_parallel, c.plan.sequence_parallel);
    EXPECT_EQ(got.plan.zero_stage, c.plan.zero_stage);
    EXPECT_EQ(got.training.micro_batch, c.micro_batch);
    EXPECT_EQ(got.training.recompute, c.recompute);
    EXPECT_EQ(got.training.overlap.grad_reduce, c.overlap.grad_reduce);
    EXPECT_EQ(got.training.overlap.param_gather, c.overlap.param_gather);
    EXPECT_EQ(got.training.overlap.tp_comm, c.overlap.tp_comm);
    // The same plan and settings give the same step as the search's own replay of it.
    if (i == 0) {
      Scenario own = load_scenario_text(text, "own.yaml");
      own.plan = c.plan;
      apply_candidate(c, own.training);
      EXPECT_EQ(api::run(got).step.step_time, api::run(own).step.step_time);
    }
  }
  EXPECT_GT(checked, 3);
}

TEST(Api, SearchPlansRanksTheReplayedPlansAndReportsProgress) {
  std::size_t last_done = 0, last_total = 0, calls = 0;
  const api::PlanRanking r = api::search_plans(slurp(kEightGpus), "eight.yaml", {.top_k = 3, .sample = 2, .threads = 2, .cancel = nullptr,
                                                    .progress = [&](std::size_t done, std::size_t total) {
                                                      EXPECT_GE(done, last_done);  // serialised, in order
                                                      last_done = done;
                                                      last_total = total;
                                                      ++calls;
                                                    }});
  ASSERT_EQ(r.plans.size(), 3u);
  EXPECT_EQ(r.replayed, 5u);  // top 3 + 2 spread over the rest of the ranking
  EXPECT_EQ(last_total, r.replayed);
  EXPECT_EQ(last_done, r.replayed);
  EXPECT_EQ(calls, r.replayed + 1);  // once after the screen, once per replay
  EXPECT_EQ(r.screened, r.enumerated - r.out_of_memory);
  EXPECT_TRUE(r.plans[0].why_lost.empty());
  for (std::size_t i = 1; i < r.plans.size(); ++i) {
    EXPECT_LE(r.plans[i - 1].step_s, r.plans[i].step_s);
    EXPECT_FALSE(r.plans[i].why_lost.empty());
  }
  // The head of the ranking runs as the API's run() of that plan written into the scenario.
  const Scenario best = load_scenario_text(with_settings(slurp(kEightGpus), api::plan_settings(r.plans[0].plan)), "b");
  EXPECT_DOUBLE_EQ(api::run(best).step.step_time.seconds(), r.plans[0].step_s);
}

TEST(Api, ACancelledSearchStopsReplaying) {
  std::atomic<bool> cancel{true};
  EXPECT_THROW((void)api::search_plans(slurp(kEightGpus), "eight.yaml", {.top_k = 3, .sample = 0, .threads = 1, .cancel = &cancel, .progress = {}}),
               api::Cancelled);
  // Set while the first plans replay: the rest are never replayed.
  cancel = false;
  std::size_t replayed = 0;
  api::SearchOptions opt{.top_k = 10, .sample = 10, .threads = 1, .cancel = &cancel,
                         .progress = [&](std::size_t done, std::size_t) {
                           replayed = done;
                           if (done == 1) cancel = true;
                         }};
  EXPECT_THROW((void)api::search_plans(slurp(kEightGpus), "eight.yaml", opt), api::Cancelled);
  EXPECT_EQ(replayed, 1u);
}

}  // namespace
}  // namespace cs
