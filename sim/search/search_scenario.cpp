#include "sim/search/search_scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

namespace cs {
namespace {

YAML::Node try_parse(const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception&) {
    return {};  // the loader reports the syntax error with its location
  }
}

bool is_search(const YAML::Node& root) {
  return root.IsMap() && root["parallelism"] && root["parallelism"].IsScalar() &&
         root["parallelism"].Scalar() == "search";
}

}  // namespace

bool asks_for_plan_search(const std::string& yaml_text) { return is_search(try_parse(yaml_text)); }

namespace {

/// The integer at `key` of the mapping `section`, when it is one; -1 otherwise (the loader reports it).
std::int64_t plain_integer(const std::optional<InputNode>& section, std::string_view key) {
  if (!section || !section->is_map()) return -1;
  const auto n = section->find(key);
  if (!n || !n->is_scalar()) return -1;
  try {
    return n->as<std::int64_t>();
  } catch (const InputError&) {
    return -1;
  }
}

}  // namespace

SearchableScenario load_searchable_scenario(const std::string& yaml_text, const std::string& name) {
  // Parsed once: the placeholder is written over the parsed document as settings, so every other value keeps
  // its place in the user's text for the loader's messages.
  InputNode doc = InputNode::parse(yaml_text, name);
  SearchableScenario out;
  const auto parallelism = doc.find("parallelism");
  out.search = parallelism && parallelism->is_scalar() && parallelism->as<std::string>() == "search";
  if (!out.search) {
    out.scenario = load_scenario(doc);
    return out;
  }
  const std::optional<InputNode> training = doc.find("training");
  const std::int64_t gpus = plain_integer(doc.find("cluster"), "gpus");
  const std::int64_t batch = plain_integer(training, "global_batch");
  const std::int64_t micro = plain_integer(training, "micro_batch");
  // The placeholder: every parallelism key at its default (dp auto: every GPU), and a batch that it divides.
  std::vector<Setting> placeholder{{"parallelism", "{}"}};
  if (gpus > 0 && batch > 0) {
    placeholder.push_back({"training.global_batch", std::to_string(gpus)});
    if (micro >= 0) placeholder.push_back({"training.micro_batch", "1"});
  }
  doc.apply(placeholder, "the plan search's placeholder for parallelism: search, ");
  out.scenario = load_scenario(doc);
  // The loader saw the placeholder's batch sizes; the search works with the scenario's own.
  if (batch > 0) out.scenario.training.global_batch = batch;
  out.scenario.training.micro_batch = micro > 0 ? static_cast<int>(micro) : 1;
  return out;
}

SearchableScenario load_searchable_scenario_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // Let the loader produce its usual message for a missing or unreadable file.
    SearchableScenario out;
    out.scenario = load_scenario(path);
    return out;
  }
  std::ostringstream s;
  s << in.rdbuf();
  return load_searchable_scenario(s.str(), path);
}

}  // namespace cs
